import type { AuthDatabase } from '../persistence/database';
import { partyColumns, toParty, type NewParty, type Party } from './party';

/** What `party update` changes; absent fields stay, a contact field set to null is removed. */
export interface PartyChanges {
  readonly name?: string;
  readonly ikNumbers?: readonly string[];
  readonly fhirBase?: string;
  readonly contactEmail?: string | null;
  readonly contactName?: string | null;
  readonly contactPhone?: string | null;
}

type Transaction = Parameters<Parameters<AuthDatabase['$transaction']>[0]>[0];

export class PartyRepository {
  constructor(private readonly prisma: AuthDatabase) {}

  async findById(id: string): Promise<Party | undefined> {
    // Not a uuid: no such party (PostgreSQL would refuse the comparison).
    if (!UUID.test(id)) return undefined;
    const row = await this.prisma.party.findUnique({ where: { id } });
    return row ? toParty(row) : undefined;
  }

  /** Every party with the number of its users, by name. */
  async list(): Promise<{ party: Party; users: number }[]> {
    const rows = await this.prisma.party.findMany({ orderBy: [{ name: 'asc' }, { id: 'asc' }], include: { _count: { select: { users: true } } } });
    return rows.map((row) => ({ party: toParty(row), users: row._count.users }));
  }

  async create(party: NewParty): Promise<Party> {
    return toParty(
      await this.prisma.party.create({
        data: {
          ...partyColumns(party),
          name: party.name,
          contactEmail: party.contactEmail ?? null,
          contactName: party.contactName ?? null,
          contactPhone: party.contactPhone ?? null,
        },
      }),
    );
  }

  async update(id: string, changes: PartyChanges): Promise<Party> {
    return this.prisma.$transaction(async (tx) => {
      const current = toParty(await tx.party.findUniqueOrThrow({ where: { id } }));
      const columns = partyColumns({ role: current.role, ikNumbers: changes.ikNumbers ?? current.ikNumbers, fhirBase: changes.fhirBase ?? current.fhirBase });
      const row = await tx.party.update({
        where: { id },
        data: {
          ...columns,
          name: changes.name ?? current.name,
          contactEmail: changes.contactEmail === undefined ? current.contactEmail : changes.contactEmail,
          contactName: changes.contactName === undefined ? current.contactName : changes.contactName,
          contactPhone: changes.contactPhone === undefined ? current.contactPhone : changes.contactPhone,
        },
      });
      await mirrorToOwnUser(tx, id, columns);
      return toParty(row);
    });
  }

  /**
   * Marks the party disabled and revokes its people's access tokens issued until `at` (docs/parties.md,
   * "Disabling"); tells whether it was unknown, already disabled, or disabled now.
   */
  async disable(id: string, at: Date): Promise<'disabled' | 'already-disabled' | 'unknown'> {
    if (!UUID.test(id)) return 'unknown';
    const { count } = await this.prisma.party.updateMany({ where: { id, disabledAt: null }, data: { disabledAt: at, tokensRevokedAt: at } });
    if (count === 1) return 'disabled';
    return (await this.findById(id)) ? 'already-disabled' : 'unknown';
  }
}

/**
 * The deprecated role, IK numbers and FHIR base of the user whose id is its party's (the party of
 * one a previous release made, or `user create --role`): auth 1.0 processes of a rollout read them
 * (docs/compatibility.md, "1.1"). Other users have none.
 */
export async function mirrorToOwnUser(tx: Transaction, partyId: string, columns: ReturnType<typeof partyColumns>): Promise<void> {
  await tx.userAccount.updateMany({ where: { id: partyId }, data: columns });
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

export function isUuid(value: string): boolean {
  return UUID.test(value);
}
