import type { ClinicRecord, Coordinates, EscalationRule, TaskStatus } from '@bedrequest/contracts';

/** What the rule reads of each Task of a request. */
export interface EscalationTask {
  clinicIk: string;
  status: TaskStatus;
  overdue: boolean;
}

/** A clinic the rule asks, and where it came from: the party's list or the registry. */
export interface ClinicToAsk {
  ik: string;
  source: 'list' | 'registry';
}

/**
 * The clinics still open (docs/api.md, "Asking by rule"): those whose Task is neither cancelled, nor
 * declined (`rejected`), nor overdue. An acceptance, a query and a clinic asked later than the
 * others all still count: each may still lead to the placement.
 */
export function stillOpen(tasks: readonly EscalationTask[]): number {
  return tasks.filter((task) => task.status !== 'cancelled' && task.status !== 'rejected' && !task.overdue).length;
}

/**
 * The next clinics the rule asks for a request of `departmentCode`: up to `askNext` participating
 * clinics that offer the department and have no Task of the request yet (whatever its state: a
 * clinic is asked once), first from the party's list in its order, then from the registry nearest
 * to the rule's origin (clinics without coordinates last; ties by IK).
 */
export function clinicsToAsk(input: {
  rule: EscalationRule;
  departmentCode: string;
  registry: readonly ClinicRecord[];
  asked: ReadonlySet<string>;
}): ClinicToAsk[] {
  const { rule, departmentCode, asked } = input;
  const offering = new Map(
    input.registry
      .filter((clinic) => !asked.has(clinic.ik) && clinic.departments.some((department) => department.code === departmentCode))
      .map((clinic) => [clinic.ik, clinic]),
  );
  const fromList: ClinicToAsk[] = (rule.clinics ?? []).filter((ik) => offering.has(ik)).map((ik) => ({ ik, source: 'list' }));
  const listed = new Set(fromList.map((clinic) => clinic.ik));
  const fromRegistry: ClinicToAsk[] = [...offering.values()]
    .filter((clinic) => !listed.has(clinic.ik))
    .map((clinic) => ({ ik: clinic.ik, km: clinic.coordinates ? greatCircleKm(rule.origin, clinic.coordinates) : Number.POSITIVE_INFINITY }))
    .sort((a, b) => a.km - b.km || a.ik.localeCompare(b.ik))
    .map(({ ik }) => ({ ik, source: 'registry' }));
  return [...fromList, ...fromRegistry].slice(0, rule.askNext);
}

/** The mean Earth radius (IUGG), in km. */
const EARTH_RADIUS_KM = 6371.0088;

/** The great-circle distance between two points in km, by the haversine formula. */
export function greatCircleKm(from: Coordinates, to: Coordinates): number {
  const radians = (degrees: number) => (degrees * Math.PI) / 180;
  const dLat = radians(to.latitude - from.latitude);
  const dLon = radians(to.longitude - from.longitude);
  const h = Math.sin(dLat / 2) ** 2 + Math.cos(radians(from.latitude)) * Math.cos(radians(to.latitude)) * Math.sin(dLon / 2) ** 2;
  return 2 * EARTH_RADIUS_KM * Math.asin(Math.min(1, Math.sqrt(h)));
}
