import type { PayloadForm } from '@bedrequest/contracts';
import type { NotifierDatabase, NotifierTables, Tx } from '../persistence/database';
import type { ProtectedFields } from '../persistence/sealed-fields';

export type SubscriptionStatus = 'active' | 'disabled';

export interface StoredSubscription {
  id: string;
  partyId: string;
  eventType: string;
  callbackUrl: string;
  secret: string;
  status: SubscriptionStatus;
  disabledReason: string | null;
  payload: PayloadForm;
  heartbeatSeconds: number | null;
  /** Until when the secret before the latest rotation still signs; null when none does. */
  previousSecretExpiresAt: Date | null;
  /** The last failed attempt of any of its deliveries; null when none failed yet. */
  lastError: { at: Date; statusCode: number | null; error: string | null } | null;
}

/** What a POST or PUT sets besides the address; a field left out keeps its setting. */
export interface SubscriptionOptions {
  payload?: PayloadForm;
  heartbeatSeconds?: number | null;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed' | 'withheld';

/** Why a delivery was withheld (docs/webhooks.md, "Authorization at delivery time"). */
export type WithheldReason = 'party-disabled' | 'request-erased';

/** One page of the delivery log: newest first, after the cursor's sequence number, of the statuses and from the time asked for. */
export interface DeliveryLogPage {
  limit: number;
  /** The sequence number of the last entry of the page before: this page lists older ones. */
  before?: number;
  statuses?: readonly DeliveryStatus[];
  since?: Date;
}

export interface DeliveryLogEntry {
  eventId: string;
  sequence: number;
  eventType: string;
  status: DeliveryStatus;
  createdAt: Date;
  deliveredAt: Date | null;
  nextAttemptAt: Date | null;
  withheld: { at: Date; reason: WithheldReason } | null;
  attempts: { attemptedAt: Date; statusCode: number | null; error: string | null; durationMs: number }[];
}

export interface StoredEvent {
  eventId: string;
  eventType: string;
  sequence: number;
  occurredAt: Date;
  data: unknown;
}

const subscriptionFields = {
  id: true,
  partyId: true,
  eventType: true,
  callbackUrl: true,
  sealedSecret: true,
  status: true,
  disabledReason: true,
  payload: true,
  heartbeatSeconds: true,
  previousSecretExpiresAt: true,
  lastErrorAt: true,
  lastErrorStatusCode: true,
  lastError: true,
} as const;

/** A subscription row as read, its secret still sealed. */
interface SubscriptionRow extends Omit<StoredSubscription, 'secret' | 'status' | 'payload' | 'lastError'> {
  status: string;
  payload: string;
  sealedSecret: Uint8Array;
  lastErrorAt: Date | null;
  lastErrorStatusCode: number | null;
  lastError: string | null;
}

/**
 * The notifier's SQL about subscriptions and what a subscriber may read of its deliveries. The
 * secret is sealed on the way in and opened on the way out (SealedFields): nothing above this
 * class sees it sealed, nothing below in clear.
 */
export class SubscriptionRepository {
  constructor(
    private readonly prisma: NotifierDatabase,
    private readonly tables: NotifierTables,
    private readonly fields: ProtectedFields,
  ) {}

  /** Creates the subscription unless the party has one for that event type (then: undefined). */
  async createIfAbsent(
    subscription: Pick<StoredSubscription, 'id' | 'partyId' | 'eventType' | 'callbackUrl' | 'secret'>,
    options: SubscriptionOptions = {},
  ): Promise<StoredSubscription | undefined> {
    const { secret, ...clear } = subscription;
    const sealedSecret = this.fields.sealSecret(subscription.id, secret);
    const created = await this.prisma.$transaction(async (tx) => {
      const { count } = await tx.subscription.createMany({
        data: [{ ...clear, sealedSecret, status: 'active', payload: options.payload ?? 'full' }],
        skipDuplicates: true,
      });
      if (count === 1) await this.setHeartbeat(tx, subscription.id, options.heartbeatSeconds);
      return count === 1;
    });
    return created ? this.find(subscription.partyId, subscription.id) : undefined;
  }

  /**
   * Sets a new address and re-enables the subscription. Its pending events become due at once,
   * with a fresh retry schedule: the new (or repaired) receiver gets them now.
   */
  async changeAddress(
    where: { partyId: string } & ({ id: string } | { eventType: string }),
    callbackUrl: string,
    options: SubscriptionOptions = {},
  ): Promise<StoredSubscription | undefined> {
    const updated = await this.prisma.$transaction(async (tx) => {
      const { count } = await tx.subscription.updateMany({
        where,
        data: {
          callbackUrl,
          status: 'active',
          disabledReason: null,
          failingSince: null,
          updatedAt: new Date(),
          ...(options.payload ? { payload: options.payload } : {}),
        },
      });
      if (count === 0) return undefined;
      const found = await tx.subscription.findFirst({ where, select: { id: true } });
      if (!found) return undefined;
      await this.setHeartbeat(tx, found.id, options.heartbeatSeconds);
      const subscription = await tx.subscription.findFirst({ where, select: subscriptionFields });
      if (!subscription) return undefined;
      await tx.$executeRaw`
        UPDATE ${this.tables.delivery} SET next_attempt_at = now(), attempt_count = 0
         WHERE subscription_id = ${subscription.id}::uuid AND status = 'pending'`;
      return subscription;
    });
    return updated && this.opened(updated);
  }

  async list(partyId: string): Promise<StoredSubscription[]> {
    const rows = await this.prisma.subscription.findMany({ where: { partyId }, orderBy: { createdAt: 'asc' }, select: subscriptionFields });
    return Promise.all(rows.map((row) => this.opened(row)));
  }

  async find(partyId: string, id: string): Promise<StoredSubscription | undefined> {
    const row = await this.prisma.subscription.findFirst({ where: { id, partyId }, select: subscriptionFields });
    return row ? this.opened(row) : undefined;
  }

  /** Deletes the subscription; its events and their attempts go with it (ON DELETE CASCADE). */
  async delete(partyId: string, id: string): Promise<boolean> {
    const { count } = await this.prisma.subscription.deleteMany({ where: { id, partyId } });
    return count === 1;
  }

  /**
   * A page of the delivery log with all its entries' attempts: newest first by sequence number (the
   * subscription's own order of its events, given under its row lock, so an event stored while a
   * client pages is numbered above every page it has read and never shifts a later page), `limit`
   * at most. Keyset on (subscription, sequence): the unique index, as cheap at any depth.
   */
  async deliveries(subscriptionId: string, page: DeliveryLogPage): Promise<DeliveryLogEntry[]> {
    const rows = await this.prisma.delivery.findMany({
      where: {
        subscriptionId,
        ...(page.before === undefined ? {} : { sequence: { lt: page.before } }),
        ...(page.statuses ? { status: { in: [...page.statuses] } } : {}),
        ...(page.since ? { createdAt: { gte: page.since } } : {}),
      },
      orderBy: { sequence: 'desc' },
      take: page.limit,
      select: {
        eventId: true,
        sequence: true,
        eventType: true,
        status: true,
        createdAt: true,
        deliveredAt: true,
        nextAttemptAt: true,
        withheldAt: true,
        withheldReason: true,
        attempts: { orderBy: { attemptedAt: 'asc' }, select: { attemptedAt: true, statusCode: true, error: true, durationMs: true } },
      },
    });
    return rows.map(({ withheldAt, withheldReason, ...row }) => ({
      ...row,
      status: row.status as DeliveryStatus,
      nextAttemptAt: row.status === 'pending' ? row.nextAttemptAt : null,
      withheld: row.status === 'withheld' && withheldAt && withheldReason ? { at: withheldAt, reason: withheldReason as WithheldReason } : null,
    }));
  }
  /** Events with a sequence number above `since`, oldest first. */
  async eventsSince(subscriptionId: string, since: number, limit: number): Promise<StoredEvent[]> {
    const rows = await this.prisma.delivery.findMany({
      where: { subscriptionId, sequence: { gt: since } },
      orderBy: { sequence: 'asc' },
      take: limit,
      select: { eventId: true, eventType: true, sequence: true, occurredAt: true, sealedData: true },
    });
    return Promise.all(
      rows.map(async ({ sealedData, ...event }) => ({ ...event, data: await this.fields.openData(event.eventId, { sealed: sealedData, clear: null }) })),
    );
  }

  /**
   * Makes one event of the subscription due now, whatever its state, with a fresh schedule; not one
   * of a request whose patient data was erased (then: when it was erased). The subscription's row is
   * locked first, as an erasure locks it before it discards and marks (RequestErasureRepository), so
   * the mark is read after any erasure of the request has committed, or the erasure runs after this.
   */
  async redeliverNow(subscriptionId: string, eventId: string): Promise<{ kind: 'scheduled' } | { kind: 'not-found' } | { kind: 'erased'; erasedAt: Date }> {
    const t = this.tables;
    return this.prisma.$transaction(async (tx) => {
      const [subscription] = await tx.$queryRaw<{ party_id: string }[]>`SELECT party_id FROM ${t.subscription} WHERE id = ${subscriptionId}::uuid FOR SHARE`;
      if (!subscription) return { kind: 'not-found' };
      const [event] = await tx.$queryRaw<{ erased_at: Date | null }[]>`
        SELECT e.erased_at
          FROM ${t.delivery} d LEFT JOIN ${t.erasure} e ON e.request_identifier = d.request_identifier AND e.party_id = ${subscription.party_id}
         WHERE d.event_id = ${eventId}::uuid AND d.subscription_id = ${subscriptionId}::uuid`;
      if (!event) return { kind: 'not-found' };
      if (event.erased_at) return { kind: 'erased', erasedAt: event.erased_at };
      const count = await tx.$executeRaw`
        UPDATE ${t.delivery} SET status = 'pending', next_attempt_at = now(), attempt_count = 0, delivered_at = NULL, withheld_reason = NULL, withheld_at = NULL
         WHERE event_id = ${eventId}::uuid AND subscription_id = ${subscriptionId}::uuid`;
      return count === 1 ? { kind: 'scheduled' } : { kind: 'not-found' };
    });
  }

  /**
   * A new signing secret; the current one becomes the previous, signing beside it for `overlapMs`
   * (sealed for its own column), and any earlier previous one is gone. No overlap: none is kept.
   */
  async rotateSecret(partyId: string, id: string, secret: string, overlapMs: number): Promise<StoredSubscription | undefined> {
    const t = this.tables;
    const rotated = await this.prisma.$transaction(async (tx) => {
      const [row] = await tx.$queryRaw<{ sealed_secret: Uint8Array }[]>`
        SELECT sealed_secret FROM ${t.subscription} WHERE id = ${id}::uuid AND party_id = ${partyId} FOR NO KEY UPDATE`;
      if (!row) return false;
      const previous = overlapMs > 0 ? this.fields.sealPreviousSecret(id, await this.fields.openSecret(id, row.sealed_secret)) : null;
      await tx.$executeRaw`
        UPDATE ${t.subscription}
           SET sealed_secret = ${this.fields.sealSecret(id, secret)}, sealed_previous_secret = ${previous},
               previous_secret_expires_at = CASE WHEN ${previous}::bytea IS NULL THEN NULL ELSE now() + ${overlapMs} * interval '1 millisecond' END,
               updated_at = now()
         WHERE id = ${id}::uuid`;
      return true;
    });
    return rotated ? this.find(partyId, id) : undefined;
  }

  /** Deletes the previous secrets whose overlap has ended (the columns are emptied, not just ignored). */
  async deleteExpiredPreviousSecrets(): Promise<number> {
    return this.prisma.$executeRaw`
      UPDATE ${this.tables.subscription} SET sealed_previous_secret = NULL, previous_secret_expires_at = NULL
       WHERE previous_secret_expires_at <= now()`;
  }

  /** Heartbeats every `seconds` (the first due that long from now), none for null; unchanged when undefined. */
  private async setHeartbeat(tx: Tx, id: string, seconds: number | null | undefined): Promise<void> {
    if (seconds === undefined) return;
    await tx.$executeRaw`
      UPDATE ${this.tables.subscription}
         SET heartbeat_seconds = ${seconds}::int,
             heartbeat_due_at = CASE WHEN ${seconds}::int IS NULL THEN NULL ELSE now() + ${seconds}::int * interval '1 second' END
       WHERE id = ${id}::uuid`;
  }

  private async opened({ sealedSecret, lastErrorAt, lastErrorStatusCode, lastError, ...row }: SubscriptionRow): Promise<StoredSubscription> {
    // Expired but not yet deleted (the maintenance run does that) is shown as none.
    const previousSecretExpiresAt = row.previousSecretExpiresAt && row.previousSecretExpiresAt > new Date() ? row.previousSecretExpiresAt : null;
    return {
      ...row,
      status: row.status as SubscriptionStatus,
      payload: row.payload as PayloadForm,
      previousSecretExpiresAt,
      secret: await this.fields.openSecret(row.id, sealedSecret),
      lastError: lastErrorAt ? { at: lastErrorAt, statusCode: lastErrorStatusCode, error: lastError } : null,
    };
  }
}
