/**
 * The specialty table of the interface specification (ServiceRequest, `performerType.coding` rules):
 * specialty code, its meaning, and the department key (Fachabteilungsschlüssel) it maps to.
 *
 * Kept here as data for the clinic registry for now; the same table is being added to
 * @bedrequest/fhir-model, and this copy should move there so that intake and routing share one.
 */
export interface Specialty {
  readonly code: string;
  readonly display: string;
  readonly departmentKey: string;
}

export const SPECIALTIES: readonly Specialty[] = [
  { code: 'addiction', display: 'addiction treatment', departmentKey: '8501' },
  { code: 'angiology', display: 'angiology', departmentKey: '3750' },
  { code: 'cardiology', display: 'cardiology', departmentKey: '0300' },
  { code: 'dermatology', display: 'dermatology', departmentKey: '3400' },
  { code: 'endocrinology', display: 'endocrinology', departmentKey: '0600' },
  { code: 'gastroenterology', display: 'gastroenterology', departmentKey: '0700' },
  { code: 'geriatrics', display: 'geriatrics', departmentKey: '0200' },
  { code: 'gynaecology', display: 'gynaecology', departmentKey: '2400' },
  { code: 'internal-medicine', display: 'internal medicine', departmentKey: '0100' },
  { code: 'nephrology', display: 'nephrology', departmentKey: '0400' },
  { code: 'neuro-pediatrics', display: 'neuropaediatrics', departmentKey: '2810' },
  { code: 'neuro-phase-b', display: 'neurology phase B', departmentKey: '2852' },
  { code: 'neuro-phase-c', display: 'neurology phase C', departmentKey: '2891' },
  { code: 'neuro-phase-d', display: 'neurology phase D', departmentKey: '2800' },
  { code: 'neurology', display: 'neurology', departmentKey: '2800' },
  { code: 'oncology', display: 'oncology', departmentKey: '0500' },
  { code: 'orthopedics', display: 'orthopaedics', departmentKey: '2300' },
  { code: 'parents-and-child-rehab', display: 'accompanied children', departmentKey: '1090' },
  { code: 'pediatrics', display: 'paediatrics', departmentKey: '1000' },
  { code: 'pneumology', display: 'pneumology', departmentKey: '0800' },
  { code: 'psychosomatic', display: 'psychosomatics/psychotherapy', departmentKey: '3100' },
  { code: 'rheumatology', display: 'rheumatology', departmentKey: '0900' },
  { code: 'urology', display: 'urology', departmentKey: '2200' },
];

/**
 * The department keys a clinic can register, each with the specialty it is listed under in
 * `GET /api/v1/kliniken`. 2800 is shared by `neurology` and `neuro-phase-d`; a department is listed
 * once, under the general `neurology` (a clinic with 2800 takes requests for either specialty).
 */
export const DEPARTMENTS: ReadonlyMap<string, Specialty> = new Map(
  SPECIALTIES.filter((specialty) => specialty.code !== 'neuro-phase-d').map((specialty) => [specialty.departmentKey, specialty]),
);
