/** docs/decisions.md, "Parties and credentials": the two roles that log in. */
export const ROLES = ['referrer', 'clinic'] as const;
export type Role = (typeof ROLES)[number];

interface UserBase {
  readonly id: string;
  readonly username: string;
  readonly passwordHash: string;
  readonly disabledAt: Date | null;
  readonly createdAt: Date;
}

/** An acute hospital or referral portal: one or more IK numbers it may send for, and its FHIR base URL. */
export interface ReferrerUser extends UserBase {
  readonly role: 'referrer';
  readonly ikNumbers: readonly string[];
  readonly fhirBase: string;
}

/** Staff or the information system of one rehabilitation clinic: bound to that clinic's IK number. */
export interface ClinicUser extends UserBase {
  readonly role: 'clinic';
  readonly ikNumbers: readonly [string];
  readonly fhirBase?: undefined;
}

export type UserAccount = ReferrerUser | ClinicUser;
