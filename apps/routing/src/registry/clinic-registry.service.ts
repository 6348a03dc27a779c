import { ClinicRegistryChangedV1, type ClinicRecord as ClinicRecordMessage } from '@bedrequest/contracts';
import { outboxRecord } from '@bedrequest/messaging';
import type { ClinicLocation, ClinicRecord, ClinicRepository } from './clinic.repository';
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

export interface Clinic extends ClinicLocation {
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

/** A German postal code: 5 digits (what `clinic upsert --postal-code` takes). */
export function parsePostalCode(value: string): string {
  const postalCode = value.trim();
  if (!/^[0-9]{5}$/.test(postalCode)) throw new InvalidClinicError(`malformed postal code "${value}": a German postal code is 5 digits`);
  return postalCode;
}

/** A point from `--latitude` and `--longitude`, both or neither, in decimal WGS 84 degrees. */
export function parseCoordinates(latitude: string | undefined, longitude: string | undefined): ClinicLocation['coordinates'] {
  if (latitude === undefined && longitude === undefined) return undefined;
  if (latitude === undefined || longitude === undefined) throw new InvalidClinicError('--latitude and --longitude go together');
  return { latitude: degrees(latitude, 'latitude', 90), longitude: degrees(longitude, 'longitude', 180) };
}

function degrees(value: string, what: string, limit: number): number {
  const number = /^-?[0-9]{1,3}(\.[0-9]+)?$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!(Math.abs(number) <= limit)) throw new InvalidClinicError(`malformed ${what} "${value}": decimal degrees from -${limit} to ${limit}`);
  return number;
}

/** The participating clinics and their departments; routing owns this registry. */
export class ClinicRegistry {
  constructor(private readonly clinics: ClinicRepository) {}

  /** Registers or updates a clinic; a location part not given stays as stored. */
  async register(input: { ik: string; name: string; departments: readonly string[] } & ClinicLocation): Promise<{ clinic: Clinic; created: boolean }> {
    const name = input.name.trim();
    if (name === '') throw new InvalidClinicError('the clinic name must not be empty');
    const clinic = {
      ik: parseIk(input.ik),
      name,
      departments: parseDepartments(input.departments),
      ...(input.postalCode === undefined ? {} : { postalCode: parsePostalCode(input.postalCode) }),
      ...(input.coordinates ? { coordinates: input.coordinates } : {}),
    };
    // Every process that keeps the registry in memory hears of the change (gateway, intake).
    const announce = (stored: ClinicRecord) =>
      outboxRecord(ClinicRegistryChangedV1, { clinic: clinicRecord(describe(stored)) }, { correlationId: `clinic-registry:${clinic.ik}` });
    const { record, created } = await this.clinics.upsert(clinic, announce);
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

/**
 * The clinic record of docs/decisions.md, `{ik, name, departments: [{code, specialty, display}]}`,
 * with its postal code and coordinates where set, for the services (the gateway's public list leaves them out).
 */
export function clinicRecord({ ik, name, departments, postalCode, coordinates }: Clinic): ClinicRecordMessage {
  return {
    ik,
    name,
    departments: departments.map(({ code, specialty, display }) => ({ code, specialty, display })),
    ...(postalCode === undefined ? {} : { postalCode }),
    ...(coordinates ? { coordinates: { latitude: coordinates.latitude, longitude: coordinates.longitude } } : {}),
  };
}

function describe(record: ClinicRecord): Clinic {
  return {
    ik: record.ik,
    name: record.name,
    automaticAnswers: record.automaticAnswers,
    ...(record.postalCode === undefined ? {} : { postalCode: record.postalCode }),
    ...(record.coordinates ? { coordinates: record.coordinates } : {}),
    departments: record.departments.map((code) => {
      // A key stored by an older table version is still listed, with the key as its display.
      const specialty = DEPARTMENTS.get(code);
      return { code, specialty: specialty?.code ?? 'unknown', display: specialty?.display ?? code };
    }),
  };
}
