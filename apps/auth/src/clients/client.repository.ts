import type { JSONWebKeySet } from 'jose';
import { toParty, type Party } from '../parties/party';
import { isUuid } from '../parties/party.repository';
import type { AuthDatabase } from '../persistence/database';
import type { SystemClient } from './client';

/** A client to register: what the command line checked. */
export interface NewClient {
  readonly partyId: string;
  readonly name: string;
  readonly keys: SystemClient['keys'];
  readonly scopes: readonly string[] | null;
}

interface ClientRow {
  id: string;
  partyId: string;
  name: string;
  jwks: unknown;
  jwksUrl: string | null;
  scopes: string[] | null;
  createdAt: Date;
  disabledAt: Date | null;
}

function toClient(row: ClientRow): SystemClient {
  // The table's CHECK keeps exactly one of jwks and jwks_url.
  const keys = row.jwksUrl === null ? { jwks: row.jwks as JSONWebKeySet } : { jwksUrl: row.jwksUrl };
  const scopes = row.scopes && row.scopes.length > 0 ? row.scopes : null;
  return { id: row.id, partyId: row.partyId, name: row.name, keys, scopes, createdAt: row.createdAt, disabledAt: row.disabledAt };
}

/** The `system_client` table (apps/auth/prisma/migrations/0006_system_clients). */
export class ClientRepository {
  constructor(private readonly prisma: AuthDatabase) {}

  async create(client: NewClient): Promise<SystemClient> {
    const row = await this.prisma.systemClient.create({
      data: {
        partyId: client.partyId,
        name: client.name,
        ...('jwks' in client.keys ? { jwks: client.keys.jwks as object } : { jwksUrl: client.keys.jwksUrl }),
        ...(client.scopes ? { scopes: [...client.scopes] } : {}),
      },
    });
    return toClient(row);
  }

  /** The client and its party; undefined for an unknown id (or one that is not a UUID). */
  async findWithParty(id: string): Promise<{ client: SystemClient; party: Party } | undefined> {
    if (!isUuid(id)) return undefined;
    const row = await this.prisma.systemClient.findUnique({ where: { id }, include: { party: true } });
    return row ? { client: toClient(row), party: toParty(row.party) } : undefined;
  }

  async list(partyId?: string): Promise<SystemClient[]> {
    const rows = await this.prisma.systemClient.findMany({ where: partyId === undefined ? {} : { partyId }, orderBy: { createdAt: 'asc' } });
    return rows.map(toClient);
  }

  /** Disables the client at `at` (kept when it already was: its revocation time stays the first). */
  async disable(id: string, at: Date): Promise<'disabled' | 'already-disabled' | 'unknown'> {
    if (!isUuid(id)) return 'unknown';
    const { count } = await this.prisma.systemClient.updateMany({ where: { id, disabledAt: null }, data: { disabledAt: at } });
    if (count === 1) return 'disabled';
    return (await this.prisma.systemClient.count({ where: { id } })) === 1 ? 'already-disabled' : 'unknown';
  }

  /** The clients disabled at or after `since`: their tokens are on the revocation list. */
  async disabledSince(since: Date): Promise<{ id: string; disabledAt: Date }[]> {
    const rows = await this.prisma.systemClient.findMany({ where: { disabledAt: { gte: since } }, select: { id: true, disabledAt: true } });
    return rows.flatMap((row) => (row.disabledAt ? [{ id: row.id, disabledAt: row.disabledAt }] : []));
  }
}
