/** decisions.md, "Parties and credentials": the two roles that log in. */
export type Role = 'referrer' | 'clinic';

export const ANY_ROLE: readonly Role[] = ['referrer', 'clinic'];

/** Who is calling, taken from a verified access token. */
export interface Principal {
  /** The user id (`sub`). */
  readonly partyId: string;
  readonly role: Role;
  /** The IK numbers the party acts for: one or more for a referrer, exactly one for a clinic. */
  readonly ikNumbers: readonly string[];
  /** A referrer's registered FHIR base URL (spec, Authentication 10); absent for clinics. */
  readonly fhirBase?: string;
}

declare module 'express-serve-static-core' {
  interface Locals {
    /** Set by requireAccessToken before any route behind it runs. */
    principal?: Principal;
  }
}
