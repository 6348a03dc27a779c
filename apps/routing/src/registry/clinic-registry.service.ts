import { ClinicRegistryChangedV1, type ClinicRecord as ClinicRecordMessage } from '@bedrequest/contracts';
import { outboxRecord } from '@bedrequest/messaging';
import type { ClinicRecord, ClinicRepository } from './clinic.repository';
import { DEPARTMENTS } from '@bedrequest/clinic-directory';

/** Input the registry refuses, with a one-line reason for the admin command line. */
export class InvalidClinicError extends Error {
  override name = 'InvalidClinicError';
}

/** One department as `GET /api/v1/kliniken` lists it (docs/decisions.md, "Subscriptions and webhooks"). */
export interface ClinicDepartment {
  readonly code: string;
  readonly specialty: string;
  readonly display: string;
}

export interface Clinic {
  readonly ik: string;
  readonly name: string;
  readonly departments: readonly ClinicDepartment[];
  /** Routing answers for the clinic from its published bed counts (docs/parties.md, "Clinics and routing"). */
  readonly automaticAnswers: boolean;
}

/** docs/decisions.md, "Parties and credentials": an IK number is 9 digits. */
export const IK_PATTERN = /^[0-9]{9}$/;

export function parseIk(value: string): string {
  const ik = value.trim();
  if (!IK_PATTERN.test(ik)) throw new InvalidClinicError(`malformed IK number "${value}": an IK number is 9 digits`);
  return ik;
}

/** Department keys from `2300,0300`: each must be one of the specification's specialty table. */
export function parseDepartments(values: readonly string[]): string[] {
  const keys = [...new Set(values.map((value) => value.trim()).filter((value) => value !== ''))];
  if (keys.length === 0) throw new InvalidClinicError('a clinic offers at least one department key');
  for (const key of keys) {
    if (!DEPARTMENTS.has(key)) {
      throw new InvalidClinicError(`unknown department key "${key}" (known: ${[...DEPARTMENTS.keys()].sort().join(', ')})`);
    }
  }
  return keys;
}

/** The participating clinics and their departments; routing owns this registry. */
export class ClinicRegistry {
  constructor(private readonly clinics: ClinicRepository) {}

  async register(input: { ik: string; name: string; departments: readonly string[] }): Promise<{ clinic: Clinic; created: boolean }> {
    const name = input.name.trim();
    if (name === '') throw new InvalidClinicError('the clinic name must not be empty');
    const clinic = { ik: parseIk(input.ik), name, departments: parseDepartments(input.departments) };
    // Every process that keeps the registry in memory hears of the change (gateway, intake).
    const announcement = outboxRecord(
      ClinicRegistryChangedV1,
      { clinic: clinicRecord(describe({ ...clinic, automaticAnswers: false })) },
      { correlationId: `clinic-registry:${clinic.ik}` },
    );
    const { record, created } = await this.clinics.upsert(clinic, announcement);
    return { clinic: describe(record), created };
  }

  /** Switches automatic answers on or off; refuses an unknown clinic. */
  async setAutomaticAnswers(ik: string, enabled: boolean): Promise<Clinic> {
    const record = await this.clinics.setAutomaticAnswers(parseIk(ik), enabled);
    if (!record) throw new InvalidClinicError(`no participating clinic with IK ${ik}`);
    return describe(record);
  }

  async list(): Promise<Clinic[]> {
    return (await this.clinics.list()).map(describe);
  }

  /** The clinic with this IK number, or undefined (also for a malformed number). */
  async find(ik: string): Promise<Clinic | undefined> {
    if (!IK_PATTERN.test(ik)) return undefined;
    const record = await this.clinics.find(ik);
    return record ? describe(record) : undefined;
  }
}

/** The clinic record of docs/decisions.md: `{ik, name, departments: [{code, specialty, display}]}`. */
export function clinicRecord({ ik, name, departments }: Clinic): ClinicRecordMessage {
  return { ik, name, departments: departments.map(({ code, specialty, display }) => ({ code, specialty, display })) };
}

function describe(record: ClinicRecord): Clinic {
  return {
    ik: record.ik,
    name: record.name,
    automaticAnswers: record.automaticAnswers,
    departments: record.departments.map((code) => {
      // A key stored by an older table version is still listed, with the key as its display.
      const specialty = DEPARTMENTS.get(code);
      return { code, specialty: specialty?.code ?? 'unknown', display: specialty?.display ?? code };
    }),
  };
}
