/** docs/decisions.md, "Parties and credentials": the two roles of a party. */
export const ROLES = ['referrer', 'clinic'] as const;
export type Role = (typeof ROLES)[number];

interface PartyBase {
  readonly id: string;
  readonly name: string;
  readonly contactEmail: string | null;
  /** Whom a clinic calls about the party's requests (docs/parties.md, "Contact"). */
  readonly contactName: string | null;
  readonly contactPhone: string | null;
  readonly disabledAt: Date | null;
  /** When its people's tokens were last revoked (party disable); those issued before stay refused. */
  readonly tokensRevokedAt: Date | null;
  readonly createdAt: Date;
}

/** An acute hospital or referral portal: one or more IK numbers it may send for, and its FHIR base URL. */
export interface ReferrerParty extends PartyBase {
  readonly role: 'referrer';
  readonly ikNumbers: readonly string[];
  readonly fhirBase: string;
}

/** A rehabilitation clinic: bound to its one IK number. */
export interface ClinicParty extends PartyBase {
  readonly role: 'clinic';
  readonly ikNumbers: readonly [string];
  readonly fhirBase?: undefined;
}

/** Who owns requests, Tasks and subscriptions (docs/parties.md): the `sub` of its people's tokens. */
export type Party = ReferrerParty | ClinicParty;

/** A party to create: what the command line checked. */
export interface NewParty {
  readonly role: Role;
  readonly name: string;
  readonly ikNumbers: readonly string[];
  readonly fhirBase?: string;
  readonly contactEmail?: string;
  readonly contactName?: string;
  readonly contactPhone?: string;
}

export interface PartyRow {
  id: string;
  role: string;
  name: string;
  contactEmail: string | null;
  contactName: string | null;
  contactPhone: string | null;
  ikNumbers: string[];
  fhirBase: string | null;
  disabledAt: Date | null;
  tokensRevokedAt: Date | null;
  createdAt: Date;
}

export function toParty(row: PartyRow): Party {
  const base = {
    id: row.id,
    name: row.name,
    contactEmail: row.contactEmail,
    contactName: row.contactName,
    contactPhone: row.contactPhone,
    disabledAt: row.disabledAt,
    tokensRevokedAt: row.tokensRevokedAt,
    createdAt: row.createdAt,
  };
  // The table's CHECK constraints guarantee these shapes; a row breaking them is a bug worth failing on.
  if (row.role === 'referrer' && row.fhirBase !== null) return { ...base, role: 'referrer', ikNumbers: row.ikNumbers, fhirBase: row.fhirBase };
  const [ik] = row.ikNumbers;
  if (row.role === 'clinic' && ik !== undefined && row.ikNumbers.length === 1) return { ...base, role: 'clinic', ikNumbers: [ik] };
  throw new Error(`party ${row.id} has an inconsistent role, IK numbers or FHIR base`);
}

/** The columns of a party's role, IK numbers and FHIR base. */
export function partyColumns(party: Pick<NewParty, 'role' | 'ikNumbers' | 'fhirBase'>) {
  return { role: party.role, ikNumbers: [...party.ikNumbers], fhirBase: party.role === 'referrer' ? (party.fhirBase ?? null) : null };
}
