import type { Party } from '../parties/party';

export type { Role } from '../parties/party';

/** A person's login inside a party (docs/parties.md, "Parties and people"). */
export interface UserAccount {
  readonly id: string;
  readonly username: string;
  readonly passwordHash: string;
  readonly partyId: string;
  /** The name the person's actions carry (`act.name` of their access tokens). */
  readonly displayName: string;
  readonly email: string | null;
  /** Manages the party's people through the API (docs/parties.md, "Party administrators"). */
  readonly administrator: boolean;
  readonly disabledAt: Date | null;
  /** When the person's tokens were last revoked (user disable); an enable leaves it (docs/parties.md, "Disabling"). */
  readonly tokensRevokedAt: Date | null;
  readonly createdAt: Date;
}

/** A user with its party: what login, refresh and the command line work with. */
export type Member = UserAccount & { readonly party: Party };
