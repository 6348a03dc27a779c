import type { DisabledPartiesAnswer, RevocationListAnswer } from '@bedrequest/contracts';
import { ACCESS_TOKEN_LIFETIME_SECONDS } from '@bedrequest/tokens';
import type { AuthDatabase } from '../persistence/database';

/**
 * How far back the list reaches: an access token's lifetime, since a token issued before an older
 * revocation has expired, and 5 minutes for clocks that disagree (the verifier's with auth's).
 */
export const REVOCATION_WINDOW_SECONDS = ACCESS_TOKEN_LIFETIME_SECONDS + 300;

/**
 * The recent revocations of access tokens: each disable of a person or a party (`tokens_revoked_at`),
 * and of a system client (`disabled_at`), listed with the people as `client:<id>`, its tokens' `act.sub`.
 */
export class RevocationRepository {
  constructor(
    private readonly prisma: AuthDatabase,
    private readonly now: () => number = Date.now,
  ) {}

  async recent(): Promise<RevocationListAnswer> {
    const asOf = new Date(this.now());
    const since = new Date(asOf.getTime() - REVOCATION_WINDOW_SECONDS * 1000);
    const recent = {
      where: { tokensRevokedAt: { gte: since } },
      select: { id: true, tokensRevokedAt: true },
    };
    const [users, parties, clients] = await Promise.all([
      this.prisma.userAccount.findMany(recent),
      this.prisma.party.findMany(recent),
      this.prisma.systemClient.findMany({ where: { disabledAt: { gte: since } }, select: { id: true, disabledAt: true } }),
    ]);
    const disabledClients = clients.map((client) => ({ id: `client:${client.id}`, tokensRevokedAt: client.disabledAt }));
    return { users: [...subjectsOf(users), ...subjectsOf(disabledClients)], parties: subjectsOf(parties), asOf: asOf.toISOString() };
  }

  /** Every party disabled now, whenever it was (the notifier's check at delivery time). */
  async disabledParties(): Promise<DisabledPartiesAnswer> {
    const asOf = new Date(this.now());
    const rows = await this.prisma.party.findMany({ where: { disabledAt: { not: null } }, select: { id: true, disabledAt: true }, orderBy: { id: 'asc' } });
    return { parties: rows.flatMap((row) => (row.disabledAt ? [{ id: row.id, disabledAt: row.disabledAt.toISOString() }] : [])), asOf: asOf.toISOString() };
  }
}

function subjectsOf(rows: readonly { id: string; tokensRevokedAt: Date | null }[]): RevocationListAnswer['users'] {
  return rows.flatMap((row) => (row.tokensRevokedAt ? [{ id: row.id, revokedAt: row.tokensRevokedAt.toISOString() }] : []));
}
