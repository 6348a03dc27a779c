import type { BedCountView } from '@bedrequest/contracts';
import { DEPARTMENTS } from '@bedrequest/clinic-directory';
import { IK_PATTERN, type ClinicRegistry } from '../registry/clinic-registry.service';
import type { BedCapacityRepository } from './bed-capacity.repository';
import { InvalidBedCountError, availableBeds, clinicToday, parseAdmissionDate, parsePublishableDate, parseFreeBeds, type BedCount } from './bed-count';

/** No participating clinic has this IK. */
export class UnknownClinicError extends Error {
  override name = 'UnknownClinicError';
}

/** The clinics' published bed counts: set by the clinic (capacity API) or an administrator. */
export class BedCountService {
  constructor(
    private readonly registry: ClinicRegistry,
    private readonly beds: BedCapacityRepository,
    /** Today in the clinic's time zone (a test passes a fixed day). */
    private readonly today: () => string = () => clinicToday(),
  ) {}

  /** Sets the count of free beds of one of the clinic's departments on one admission date, today or later. */
  async publish(clinicIk: string, input: { department: unknown; date: unknown; freeBeds: unknown }): Promise<BedCountView> {
    const clinic = await this.registry.find(clinicIk);
    if (!clinic) throw new UnknownClinicError(`no participating clinic with IK ${clinicIk}`);
    const department = typeof input.department === 'string' ? input.department.trim() : '';
    if (!clinic.departments.some((offered) => offered.code === department)) {
      const offered = clinic.departments.map((offer) => offer.code).join(', ');
      throw new InvalidBedCountError(`department must be a department key the clinic offers (${offered}), got ${JSON.stringify(input.department)}`);
    }
    const count = await this.beds.publish(
      { clinicIk, departmentCode: department, admissionDate: parsePublishableDate(input.date, this.today()) },
      parseFreeBeds(input.freeBeds),
    );
    return view(count);
  }

  async list(clinicIk: string, range: { from?: unknown; to?: unknown } = {}): Promise<BedCountView[]> {
    if (!IK_PATTERN.test(clinicIk) || !(await this.registry.find(clinicIk))) throw new UnknownClinicError(`no participating clinic with IK ${clinicIk}`);
    const bound = (value: unknown) => (value === undefined || value === '' ? undefined : parseAdmissionDate(value));
    return (await this.beds.list(clinicIk, { from: bound(range.from), to: bound(range.to) })).map(view);
  }
}

/** A bed count as the clinic API (libs/contracts `BedCountView`) and the admin command line show it. */
function view(count: BedCount): BedCountView {
  return {
    department: count.departmentCode,
    specialty: DEPARTMENTS.get(count.departmentCode)?.code ?? 'unknown',
    date: count.admissionDate,
    freeBeds: count.freeBeds,
    held: count.held,
    reserved: count.reserved,
    available: availableBeds(count),
  };
}
