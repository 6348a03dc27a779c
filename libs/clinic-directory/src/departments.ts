import { SPECIALTIES, specialtiesOfDepartment, type Specialty } from '@bedrequest/fhir-model';

/**
 * 2800 is shared by `neurology` and `neuro-phase-d` (spec, specialty table); a department is listed
 * once in `GET /api/v1/kliniken`, under the general `neurology` (a clinic with 2800 takes requests
 * for either specialty).
 */
const LISTED_UNDER: Readonly<Record<string, string>> = { '2800': 'neurology' };

/**
 * The department keys a clinic can register: those of the specification's specialty table (the one
 * in @bedrequest/fhir-model), each with the specialty it is listed under.
 */
export const DEPARTMENTS: ReadonlyMap<string, Specialty> = new Map(
  [...new Set(SPECIALTIES.map((specialty) => specialty.department))].flatMap((code) => {
    const candidates = specialtiesOfDepartment(code);
    const listed = candidates.find((specialty) => specialty.code === LISTED_UNDER[code]) ?? candidates[0];
    return listed ? [[code, listed] as const] : [];
  }),
);
