import type { AuthDatabase } from '../persistence/database';
import type { UserAccount } from '../users/user';
import { isUuid } from './party.repository';

/** A person of a party as the party administrator's API shows them: never the password hash. */
export type PartyMember = Pick<UserAccount, 'id' | 'username' | 'partyId' | 'displayName' | 'email' | 'administrator' | 'disabledAt' | 'createdAt'> & {
  /** Whether the person wants e-mail about the party's requests (docs/operations.md, "E-mail"). */
  readonly emailNotifications: boolean;
};

const MEMBER_COLUMNS = {
  id: true,
  username: true,
  partyId: true,
  displayName: true,
  email: true,
  emailNotifications: true,
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

  /** Sets whether the person wants e-mail; undefined for a person not of the party. */
  async setEmailNotifications(partyId: string, userId: string, wanted: boolean): Promise<PartyMember | undefined> {
    const { count } = await this.prisma.userAccount.updateMany({ where: { id: userId, partyId }, data: { emailNotifications: wanted } });
    return count === 1 ? this.find(partyId, userId) : undefined;
  }

  /**
   * The addresses mail about the party's requests goes to: its people who opted in and have an
   * address, none disabled, nor the party. `ik` names a clinic party by its IK number.
   */
  async mailRecipients(party: { id: string } | { ik: string }): Promise<string[]> {
    const rows = await this.prisma.userAccount.findMany({
      where: {
        emailNotifications: true,
        email: { not: null },
        disabledAt: null,
        party: { disabledAt: null, ...('id' in party ? { id: party.id } : { role: 'clinic', ikNumbers: { has: party.ik } }) },
      },
      select: { email: true },
      orderBy: { username: 'asc' },
    });
    return rows.flatMap((row) => (row.email ? [row.email] : []));
  }
}
