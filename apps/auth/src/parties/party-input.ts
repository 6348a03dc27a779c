import { fhirBasesOverlap } from '@bedrequest/tokens';
import { ROLES, type Role } from './party';
import type { Party } from './party';

/** Input the admin command line refuses, with a one-line reason. */
export class InvalidUserError extends Error {
  override name = 'InvalidUserError';
}

/** Is this IK number a participating clinic? Routing owns the registry; auth asks its internal API. */
export interface ClinicDirectory {
  isParticipatingClinic(ik: string): Promise<boolean>;
}

/** docs/decisions.md, "Parties and credentials": an IK number is 9 digits. */
const IK_PATTERN = /^[0-9]{9}$/;
const EMAIL_PATTERN = /^[^\s@\p{Cc}]+@[^\s@\p{Cc}]+$/u;
/** Control characters (line breaks, NUL, terminal escapes) and the Unicode line and paragraph separators. */
const NOT_ONE_LINE = /[\p{Cc}\u2028\u2029]/u;
const MAX_NAME_LENGTH = 200;
const PHONE_PATTERN = /^\+?[0-9 ()/.-]{3,40}$/;

export function parseRole(value: string): Role {
  if (!(ROLES as readonly string[]).includes(value)) throw new InvalidUserError(`unknown role "${value}" (expected "referrer" or "clinic")`);
  return value as Role;
}

export function parseIkNumbers(value: string): string[] {
  const ikNumbers = [
    ...new Set(
      value
        .split(',')
        .map((ik) => ik.trim())
        .filter((ik) => ik !== ''),
    ),
  ];
  if (ikNumbers.length === 0) throw new InvalidUserError('at least one IK number is required');
  for (const ik of ikNumbers) {
    if (!IK_PATTERN.test(ik)) throw new InvalidUserError(`malformed IK number "${ik}": an IK number is 9 digits`);
  }
  return ikNumbers;
}

/**
 * The referrer's FHIR base URL: every ServiceRequest.identifier it sends must begin with it
 * (spec, Authentication 10). Stored as given, since it is compared as a prefix.
 */
export function parseFhirBase(value: string): string {
  const fhirBase = value.trim();
  let url: URL;
  try {
    url = new URL(fhirBase);
  } catch {
    throw new InvalidUserError(`bad URL "${value}" for --fhir-base: an absolute http(s) URL is required`);
  }
  if ((url.protocol !== 'https:' && url.protocol !== 'http:') || url.search || url.hash || url.username || url.password) {
    throw new InvalidUserError(`bad URL "${value}" for --fhir-base: an absolute http(s) URL without query, fragment or credentials is required`);
  }
  return fhirBase;
}

/** A party's or a person's name: 1-200 characters, one line. */
export function parseName(value: string, flag: string): string {
  const name = value.trim();
  if (name === '' || name.length > MAX_NAME_LENGTH || NOT_ONE_LINE.test(name)) {
    throw new InvalidUserError(`bad ${flag} ${JSON.stringify(value)}: 1-${MAX_NAME_LENGTH} characters on one line, without control characters`);
  }
  return name;
}

export function parseEmail(value: string, flag: string): string {
  const email = value.trim();
  if (!EMAIL_PATTERN.test(email) || email.length < 3 || email.length > 254) {
    throw new InvalidUserError(`bad ${flag} ${JSON.stringify(value)}: an e-mail address is required`);
  }
  return email;
}

/**
 * A telephone number as people write it ("+49 40 1234-567", "(040) 1234 567"): digits with spaces,
 * `+`, `-`, `/`, `.` and brackets, 3 to 20 digits, so that the clinic's page can offer it to dial.
 */
export function parsePhone(value: string, flag: string): string {
  const phone = value.trim();
  const digits = phone.replace(/[^0-9]/g, '').length;
  if (!PHONE_PATTERN.test(phone) || digits < 3 || digits > 20) {
    throw new InvalidUserError(`bad ${flag} ${JSON.stringify(value)}: a telephone number of digits, spaces and + - / ( ) is required`);
  }
  return phone;
}

/** The IK numbers and FHIR base a party of `role` may have, checked as `party create` and `user create --role` do. */
export async function checkRoleBinding(
  deps: { clinics: ClinicDirectory; parties: () => Promise<readonly Party[]> },
  binding: { role: Role; ikNumbers: readonly string[]; fhirBase?: string; ownPartyId?: string },
): Promise<string | undefined> {
  if (binding.role === 'referrer') {
    if (binding.fhirBase === undefined) throw new InvalidUserError("missing option --fhir-base (the referrer's registered FHIR base URL)");
    const fhirBase = parseFhirBase(binding.fhirBase);
    assertOwnFhirBase(await deps.parties(), fhirBase, binding.ownPartyId);
    return fhirBase;
  }
  if (binding.fhirBase !== undefined) throw new InvalidUserError('--fhir-base applies to referrers only');
  if (binding.ikNumbers.length !== 1) throw new InvalidUserError('a clinic is bound to exactly one IK number');
  const [ik] = binding.ikNumbers as [string];
  if (!(await deps.clinics.isParticipatingClinic(ik))) {
    throw new InvalidUserError(`unknown clinic IK ${ik}: register the clinic first (npm run admin -- clinic upsert --ik ${ik} ...)`);
  }
  return undefined;
}

/**
 * A referrer's FHIR base may not lie inside or around another referrer party's (by path segments),
 * or one of them would own the other's identifiers. The same base is allowed: another login of the
 * same referrer made with `user create --role`, as release 1.0 allowed.
 */
function assertOwnFhirBase(parties: readonly Party[], fhirBase: string, ownPartyId: string | undefined): void {
  const other = parties.find((party) => party.role === 'referrer' && party.id !== ownPartyId && fhirBasesOverlap(party.fhirBase, fhirBase));
  if (other?.role === 'referrer') {
    throw new InvalidUserError(
      `the FHIR base ${fhirBase} overlaps the FHIR base ${other.fhirBase} of referrer ${other.name}: each referrer needs a base of its own`,
    );
  }
}
