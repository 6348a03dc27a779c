import type { AuthDatabase } from '../persistence/database';
import type { Role, UserAccount } from './user';

/** The username is taken (unique index user_account_username_key). */
export class DuplicateUsernameError extends Error {
  override name = 'DuplicateUsernameError';
  constructor(username: string) {
    super(`a user named "${username}" already exists`);
  }
}

export interface NewUser {
  readonly username: string;
  readonly passwordHash: string;
  readonly role: Role;
  readonly ikNumbers: readonly string[];
  readonly fhirBase?: string;
}

interface UserRow {
  id: string;
  username: string;
  passwordHash: string;
  role: string;
  ikNumbers: string[];
  fhirBase: string | null;
  disabledAt: Date | null;
  createdAt: Date;
}

export class UserRepository {
  constructor(private readonly prisma: AuthDatabase) {}

  async findByUsername(username: string): Promise<UserAccount | undefined> {
    const row = await this.prisma.userAccount.findUnique({ where: { username } });
    return row ? toUser(row) : undefined;
  }

  async findById(id: string): Promise<UserAccount | undefined> {
    const row = await this.prisma.userAccount.findUnique({ where: { id } });
    return row ? toUser(row) : undefined;
  }

  async list(): Promise<UserAccount[]> {
    const rows = await this.prisma.userAccount.findMany({ orderBy: { username: 'asc' } });
    return rows.map(toUser);
  }

  async create(user: NewUser): Promise<UserAccount> {
    try {
      return toUser(await this.prisma.userAccount.create({ data: columns(user) }));
    } catch (error) {
      if ((error as { code?: string }).code === 'P2002') throw new DuplicateUsernameError(user.username);
      throw error;
    }
  }

  /** Creates the user, or replaces password, role, IK numbers and FHIR base and enables it again. */
  async upsert(user: NewUser): Promise<{ user: UserAccount; created: boolean }> {
    return this.prisma.$transaction(async (tx) => {
      const existing = await tx.userAccount.findUnique({ where: { username: user.username }, select: { id: true } });
      const row = await tx.userAccount.upsert({
        where: { username: user.username },
        create: columns(user),
        update: { ...columns(user), disabledAt: null },
      });
      return { user: toUser(row), created: !existing };
    });
  }

  /** Marks the user disabled; tells whether it was unknown, already disabled, or disabled now. */
  async disable(username: string, at: Date): Promise<'disabled' | 'already-disabled' | 'unknown'> {
    const { count } = await this.prisma.userAccount.updateMany({ where: { username, disabledAt: null }, data: { disabledAt: at } });
    if (count === 1) return 'disabled';
    return (await this.findByUsername(username)) ? 'already-disabled' : 'unknown';
  }
}

function columns(user: NewUser) {
  return {
    username: user.username,
    passwordHash: user.passwordHash,
    role: user.role,
    ikNumbers: [...user.ikNumbers],
    fhirBase: user.role === 'referrer' ? (user.fhirBase ?? null) : null,
  };
}

function toUser(row: UserRow): UserAccount {
  const base = { id: row.id, username: row.username, passwordHash: row.passwordHash, disabledAt: row.disabledAt, createdAt: row.createdAt };
  // The table's CHECK constraints guarantee these shapes; a row breaking them is a bug worth failing on.
  if (row.role === 'referrer' && row.fhirBase !== null) return { ...base, role: 'referrer', ikNumbers: row.ikNumbers, fhirBase: row.fhirBase };
  const [ik] = row.ikNumbers;
  if (row.role === 'clinic' && ik !== undefined && row.ikNumbers.length === 1) return { ...base, role: 'clinic', ikNumbers: [ik] };
  throw new Error(`user ${row.id} has an inconsistent role, IK numbers or FHIR base`);
}
