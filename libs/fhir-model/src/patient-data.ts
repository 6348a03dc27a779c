import { MASKED_NULL_FLAVOR, NULL_FLAVOR_EXTENSION } from './systems';
import { arrayField, field, stringField } from './validation/raw';

/**
 * How much of the patient's master data a bundle carries (spec, Patient, "Data level by stage"):
 * `masked` (pseudonymized: the family name left out with the nullFlavor extension `MSK`) or
 * `complete` (every name has its family name, none is masked; docs/decisions.md, "Requests").
 */
export type PatientDataLevel = 'masked' | 'complete';

/** True when a HumanName carries `_family.extension[]` with the nullFlavor `MSK`. */
export function isMaskedName(name: unknown): boolean {
  return arrayField(field(name, '_family'), 'extension').some(
    (extension) => stringField(extension, 'url') === NULL_FLAVOR_EXTENSION && stringField(extension, 'valueCode') === MASKED_NULL_FLAVOR,
  );
}

/** The data level of a Patient resource, or undefined when it has no usable name at all. */
export function patientDataLevel(patient: unknown): PatientDataLevel | undefined {
  const names = arrayField(patient, 'name');
  if (names.some(isMaskedName)) return 'masked';
  const complete = names.length > 0 && names.every((name) => (stringField(name, 'family') ?? '').length > 0);
  return complete ? 'complete' : undefined;
}

/**
 * The patient's age in whole years on `today` (UTC calendar days) from a FHIR date: YYYY-MM-DD, or
 * a pseudonymised YYYY-MM or YYYY (counted from the first day they allow). Undefined for anything
 * else and for a date after `today`. What the clinic list and the inbox show instead of the birth date.
 */
export function ageOn(birthDate: string | undefined, today: Date): number | undefined {
  const match = /^(\d{4})(?:-(\d{2}))?(?:-(\d{2}))?$/.exec(birthDate ?? '');
  if (!match) return undefined;
  const [year, month, day] = [Number(match[1]), Number(match[2] ?? 1), Number(match[3] ?? 1)];
  const thisMonth = today.getUTCMonth() + 1;
  const birthdayPassed = thisMonth > month || (thisMonth === month && today.getUTCDate() >= day);
  const age = today.getUTCFullYear() - year - (birthdayPassed ? 0 : 1);
  return age >= 0 ? age : undefined;
}
