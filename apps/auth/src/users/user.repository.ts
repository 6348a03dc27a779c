import { randomUUID } from 'node:crypto';
import { mirrorToOwnUser } from '../parties/party.repository';
import { partyColumns, toParty, type NewParty, type PartyRow } from '../parties/party';
import type { AuthDatabase } from '../persistence/database';
import type { Member, Role } from './user';

/** The username is taken (unique index user_account_username_key). */
export class DuplicateUsernameError extends Error {
  override name = 'DuplicateUsernameError';
  constructor(username: string) {
    super(`a user named "${username}" already exists`);
  }
}

/** `user upsert --role` would change the role of a party that has other people too. */
export class RoleChangeError extends Error {
  override name = 'RoleChangeError';
  constructor(username: string, role: Role) {
    super(`user ${username} belongs to a party with other users: its role cannot become ${role} (create a new party)`);
  }
}

/** A user with a party of its own, as release 1.0 made them: the party takes the user's id and its username as name. */
export interface NewUser {
  readonly username: string;
  readonly passwordHash: string;
  readonly role: Role;
  readonly ikNumbers: readonly string[];
  readonly fhirBase?: string;
  readonly displayName?: string;
  readonly email?: string;
  readonly administrator?: boolean;
}

/** A person added to an existing party. */
export interface NewPartyUser {
  readonly partyId: string;
  readonly username: string;
  readonly passwordHash: string;
  readonly displayName: string;
  readonly email?: string;
  readonly administrator: boolean;
}

interface UserRow {
  id: string;
  username: string;
  passwordHash: string;
  partyId: string;
  displayName: string;
  email: string | null;
  administrator: boolean;
  disabledAt: Date | null;
  tokensRevokedAt: Date | null;
  createdAt: Date;
  party: PartyRow;
}

const WITH_PARTY = { include: { party: true } } as const;

export class UserRepository {
  constructor(private readonly prisma: AuthDatabase) {}

  async findByUsername(username: string): Promise<Member | undefined> {
    const row = await this.prisma.userAccount.findUnique({ where: { username }, ...WITH_PARTY });
    return row ? toMember(row) : undefined;
  }

  async findById(id: string): Promise<Member | undefined> {
    const row = await this.prisma.userAccount.findUnique({ where: { id }, ...WITH_PARTY });
    return row ? toMember(row) : undefined;
  }

  async list(): Promise<Member[]> {
    const rows = await this.prisma.userAccount.findMany({ orderBy: { username: 'asc' }, ...WITH_PARTY });
    return rows.map(toMember);
  }

  /** A user with a party of its own (`user create --role`): the party takes the user's id. */
  async create(user: NewUser): Promise<Member> {
    return this.unique(user.username, () => this.prisma.$transaction((tx) => createAlone(tx, user)));
  }

  async createInParty(user: NewPartyUser): Promise<Member> {
    const { partyId, email, ...rest } = user;
    return this.unique(user.username, async () =>
      toMember(await this.prisma.userAccount.create({ data: { ...rest, email: email ?? null, party: { connect: { id: partyId } } }, ...WITH_PARTY })),
    );
  }

  /**
   * Creates the user with a party of its own, or gives an existing one the new password and enables
   * it, and its party the role, IK numbers and FHIR base (a role only while the user is its party's only one).
   */
  async upsert(user: NewUser): Promise<{ user: Member; created: boolean }> {
    await secondAfterRevocation(await this.prisma.userAccount.findUnique({ where: { username: user.username }, select: { tokensRevokedAt: true } }));
    return this.prisma.$transaction(async (tx) => {
      const existing = await tx.userAccount.findUnique({ where: { username: user.username }, ...WITH_PARTY });
      if (!existing) return { user: await createAlone(tx, user), created: true };
      const columns = partyColumns(user);
      if (existing.party.role !== user.role && (await tx.userAccount.count({ where: { partyId: existing.partyId } })) > 1) {
        throw new RoleChangeError(user.username, user.role);
      }
      await tx.party.update({ where: { id: existing.partyId }, data: columns });
      await mirrorToOwnUser(tx, existing.partyId, columns);
      const row = await tx.userAccount.update({ where: { id: existing.id }, data: { passwordHash: user.passwordHash, disabledAt: null }, ...WITH_PARTY });
      return { user: toMember(row), created: false };
    });
  }

  /**
   * Marks the user disabled and revokes the access tokens issued until `at` (docs/parties.md,
   * "Disabling"); tells whether it was unknown, already disabled, or disabled now.
   */
  async disable(username: string, at: Date): Promise<'disabled' | 'already-disabled' | 'unknown'> {
    const { count } = await this.prisma.userAccount.updateMany({ where: { username, disabledAt: null }, data: { disabledAt: at, tokensRevokedAt: at } });
    if (count === 1) return 'disabled';
    return (await this.findByUsername(username)) ? 'already-disabled' : 'unknown';
  }

  private async unique<T>(username: string, write: () => Promise<T>): Promise<T> {
    try {
      return await write();
    } catch (error) {
      if ((error as { code?: string }).code === 'P2002') throw new DuplicateUsernameError(username);
      throw error;
    }
  }
}

type Transaction = Parameters<Parameters<AuthDatabase['$transaction']>[0]>[0];

/**
 * Waits, when a user's tokens were revoked less than a second ago, until the next whole second has
 * begun. A token is refused when it was issued (`iat`, whole seconds) at or before the revocation,
 * so a login in the same second as a disable would be refused with the tokens it revoked; enabled
 * only from the next second on, the user's new tokens all carry a later `iat`. At most a second,
 * and only for an enable right after a disable.
 */
async function secondAfterRevocation(user: { tokensRevokedAt: Date | null } | null): Promise<void> {
  if (!user?.tokensRevokedAt) return;
  const revokedAtMs = user.tokensRevokedAt.getTime();
  const waitMs = Math.min(1_000, Math.floor(revokedAtMs / 1_000) * 1_000 + 1_000 - Date.now());
  if (waitMs > 0) await new Promise((resolve) => setTimeout(resolve, waitMs));
}

async function createAlone(tx: Transaction, user: NewUser): Promise<Member> {
  const id = randomUUID();
  const party: NewParty = { role: user.role, name: user.username, ikNumbers: user.ikNumbers, fhirBase: user.fhirBase };
  const columns = partyColumns(party);
  await tx.party.create({ data: { id, ...columns, name: party.name } });
  const row = await tx.userAccount.create({
    data: {
      id,
      partyId: id,
      username: user.username,
      passwordHash: user.passwordHash,
      displayName: user.displayName ?? user.username,
      email: user.email ?? null,
      administrator: user.administrator ?? false,
      // Deprecated copies for auth 1.0 during a rollout (docs/compatibility.md, "1.1").
      ...columns,
    },
    ...WITH_PARTY,
  });
  return toMember(row);
}

function toMember(row: UserRow): Member {
  const { party, ...user } = row;
  return {
    id: user.id,
    username: user.username,
    passwordHash: user.passwordHash,
    partyId: user.partyId,
    displayName: user.displayName,
    email: user.email,
    administrator: user.administrator,
    disabledAt: user.disabledAt,
    tokensRevokedAt: user.tokensRevokedAt,
    createdAt: user.createdAt,
    party: toParty(party),
  };
}
