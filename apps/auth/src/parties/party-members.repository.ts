import type { AuthDatabase } from '../persistence/database';
import type { UserAccount } from '../users/user';
import { isUuid } from './party.repository';

/** A person of a party as the party administrator's API shows them: never the password hash. */
export type PartyMember = Pick<UserAccount, 'id' | 'username' | 'partyId' | 'displayName' | 'email' | 'administrator' | 'disabledAt' | 'createdAt'>;

const MEMBER_COLUMNS = {
  id: true,
  username: true,
  partyId: true,
  displayName: true,
  email: true,
  administrator: true,
  disabledAt: true,
  createdAt: true,
} as const;

/**
 * The people of one party (docs/parties.md, "Party administrators"): every read names the party, so
 * that no caller reads another party's people.
 */
export class PartyMemberRepository {
  constructor(private readonly prisma: AuthDatabase) {}

  /** The party's people, disabled ones included, by username. */
  list(partyId: string): Promise<PartyMember[]> {
    return this.prisma.userAccount.findMany({ where: { partyId }, select: MEMBER_COLUMNS, orderBy: { username: 'asc' } });
  }

  /** The person with this id if they belong to the party; undefined for anyone else's, or an id that is not one. */
  async find(partyId: string, userId: string): Promise<PartyMember | undefined> {
    if (!isUuid(userId)) return undefined;
    return (await this.prisma.userAccount.findFirst({ where: { id: userId, partyId }, select: MEMBER_COLUMNS })) ?? undefined;
  }
}
