import type { Coding } from '@medplum/fhirtypes';
import { DEFAULT_PROFILE_BASE, DEPARTMENT_KEY_SYSTEM, fhirSystems } from './systems';

/**
 * The specialty table of the spec (ServiceRequest, "Specialty codes"): each specialty of the
 * `{profile_base}/fhir/CodeSystem/specialty` system and the hospital department key it maps to.
 * Several specialties may share a department (neurology and neurology phase D are both 2800).
 */
export const SPECIALTIES = [
  { code: 'addiction', display: 'addiction treatment', department: '8501' },
  { code: 'angiology', display: 'angiology', department: '3750' },
  { code: 'cardiology', display: 'cardiology', department: '0300' },
  { code: 'dermatology', display: 'dermatology', department: '3400' },
  { code: 'endocrinology', display: 'endocrinology', department: '0600' },
  { code: 'gastroenterology', display: 'gastroenterology', department: '0700' },
  { code: 'geriatrics', display: 'geriatrics', department: '0200' },
  { code: 'gynaecology', display: 'gynaecology', department: '2400' },
  { code: 'internal-medicine', display: 'internal medicine', department: '0100' },
  { code: 'nephrology', display: 'nephrology', department: '0400' },
  { code: 'neuro-pediatrics', display: 'neuropaediatrics', department: '2810' },
  { code: 'neuro-phase-b', display: 'neurology phase B', department: '2852' },
  { code: 'neuro-phase-c', display: 'neurology phase C', department: '2891' },
  { code: 'neuro-phase-d', display: 'neurology phase D', department: '2800' },
  { code: 'neurology', display: 'neurology', department: '2800' },
  { code: 'oncology', display: 'oncology', department: '0500' },
  { code: 'orthopedics', display: 'orthopaedics', department: '2300' },
  { code: 'parents-and-child-rehab', display: 'accompanied children', department: '1090' },
  { code: 'pediatrics', display: 'paediatrics', department: '1000' },
  { code: 'pneumology', display: 'pneumology', department: '0800' },
  { code: 'psychosomatic', display: 'psychosomatics/psychotherapy', department: '3100' },
  { code: 'rheumatology', display: 'rheumatology', department: '0900' },
  { code: 'urology', display: 'urology', department: '2200' },
] as const;

export type Specialty = (typeof SPECIALTIES)[number];
export type SpecialtyCode = Specialty['code'];

const specialtyByCode: ReadonlyMap<string, Specialty> = new Map(SPECIALTIES.map((row) => [row.code, row]));

export function findSpecialty(code: string): Specialty | undefined {
  return specialtyByCode.get(code);
}

/** The specialties that map to a department key (none, one, or several). */
export function specialtiesOfDepartment(departmentCode: string): Specialty[] {
  return SPECIALTIES.filter((row) => row.department === departmentCode);
}

export interface ResolvedDepartment {
  /** The 4-digit hospital department key the request is routed by. */
  departmentCode: string;
  /** The specialty asked for; when only a department key was given, the one specialty of that key, if unambiguous. */
  specialty: Specialty | undefined;
  /** Which coding decided. */
  source: 'specialty' | 'department-key';
}

/**
 * The department a request asks for, from `ServiceRequest.performerType` (spec, ServiceRequest,
 * "performerType.coding rules"; docs/decisions.md, "Requests"): the specialty coding first; the
 * department key only when no specialty is given; on contradiction the specialty wins; the order
 * of the codings has no effect. Unknown specialty codes and malformed department keys are ignored;
 * two different specialties (or, without a specialty, two different department keys) are
 * ambiguous and resolve to nothing, which is what keeps the result independent of coding order.
 */
export function resolveDepartment(
  performerType: { coding?: readonly Coding[] } | undefined,
  profileBase: string = DEFAULT_PROFILE_BASE,
): ResolvedDepartment | undefined {
  const codings = performerType?.coding ?? [];
  const { specialtySystem } = fhirSystems(profileBase);

  const specialties = distinct(codings.filter((coding) => coding.system === specialtySystem).map((coding) => findSpecialty(coding.code ?? '')));
  if (specialties.length > 0) {
    const [specialty] = specialties;
    return specialties.length === 1 && specialty ? { departmentCode: specialty.department, specialty, source: 'specialty' } : undefined;
  }

  const departmentCodes = distinct(
    codings.filter((coding) => coding.system === DEPARTMENT_KEY_SYSTEM && /^\d{4}$/.test(coding.code ?? '')).map((coding) => coding.code),
  );
  const [departmentCode] = departmentCodes;
  if (departmentCodes.length !== 1 || !departmentCode) return undefined;
  const candidates = specialtiesOfDepartment(departmentCode);
  return { departmentCode, specialty: candidates.length === 1 ? candidates[0] : undefined, source: 'department-key' };
}

function distinct<T>(values: readonly (T | undefined)[]): T[] {
  return [...new Set(values.filter((value): value is T => value !== undefined))];
}
