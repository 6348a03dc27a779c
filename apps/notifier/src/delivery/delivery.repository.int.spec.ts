import { randomUUID } from 'node:crypto';
import type { Pool } from 'pg';
import { testEnvironment } from '@bedrequest/testing';
import type { EventRepository } from '../events/event.repository';
import type { SubscriptionRepository } from '../subscriptions/subscription.repository';
import { incomingEvent, openNotifierStore, type NotifierStore } from '../testing/notifier-store';
import { notifierTables } from '../persistence/database';
import { claimTurn, newLease } from './claim-rule';
import type { ClaimedDelivery } from './claimed-delivery';
import type { DeliveryRepository, FinishedAttempt } from './delivery.repository';
import { claimDueSql } from './due-claim';
import type { NextStep } from './retry-policy';

const env = testEnvironment();
const LEASE_MS = 15_000;
const DAY_MS = 86_400_000;
const GONE: NextStep = { kind: 'disable-subscription', reason: 'the receiver answered 410 Gone' };
const DELIVERED: NextStep = { kind: 'delivered' };
const RETRY: NextStep = { kind: 'retry', delayMs: 60_000 };

describe('DeliveryRepository against the real PostgreSQL', () => {
  let db: NotifierStore;
  let deliveries: DeliveryRepository;
  let events: EventRepository;
  let subscriptions: SubscriptionRepository;
  let pool: Pool;
  let schema: string;

  beforeAll(async () => {
    db = await openNotifierStore(env.databaseUrl);
    ({ deliveries, events, subscriptions, pool, schema } = db);
  });

  afterAll(() => db.close());

  // Every test has its own subscription; claims look at all due deliveries of the schema, so a test
  // leaves none of its own due behind (see `finish`).
  const subscribedParty = () => db.subscribedParty();

  /** Stores events (request identifiers in this order, occurring 1 ms apart) and returns their ids. */
  const store = async (partyId: string, requests: string[]) => {
    const start = Date.now() - 60_000;
    const batch = requests.map((requestIdentifier, n) => incomingEvent(partyId, requestIdentifier, { occurredAt: new Date(start + n) }));
    await events.recordAll(batch);
    return batch.map((event): string => event.eventId);
  };

  const finished = (claim: ClaimedDelivery, step: NextStep, statusCode: number | null = 204): FinishedAttempt => ({
    claim,
    attempt: { attemptedAt: new Date(), statusCode, error: statusCode === 204 ? null : 'the receiver answered', durationMs: 3 },
    step,
  });
  const failure = (claim: ClaimedDelivery) => finished(claim, RETRY, 503);

  const deliveryRow = async (eventId: string) =>
    (
      await pool.query<{
        status: string;
        attempt_count: number;
        lease_token: string | null;
        delivered_at: Date | null;
        due_in_ms: number | null;
        attempts: number;
      }>(
        `SELECT status, attempt_count, lease_token, delivered_at, (extract(epoch FROM next_attempt_at - now()) * 1000)::int AS due_in_ms,
                (SELECT count(*)::int FROM "${schema}".delivery_attempt a WHERE a.event_id = d.event_id) AS attempts
           FROM "${schema}".delivery d WHERE event_id = $1`,
        [eventId],
      )
    ).rows[0];
  const subscriptionRow = async (id: string) =>
    (
      await pool.query<{ status: string; disabled_reason: string | null; failing_for_ms: number | null }>(
        `SELECT status, disabled_reason, (extract(epoch FROM now() - failing_since) * 1000)::int AS failing_for_ms FROM "${schema}".subscription WHERE id = $1`,
        [id],
      )
    ).rows[0]!;
  const failingSince = (id: string, agoMs: number) =>
    pool.query(`UPDATE "${schema}".subscription SET failing_since = now() - $2 * interval '1 millisecond' WHERE id = $1`, [id, agoMs]);

  /** Claims what is due (the whole schema: other tests leave nothing due), by subscription. */
  const claimAll = async (limit = 100) => {
    const bySubscription = new Map<string, ClaimedDelivery[]>();
    for (const claimed of (await deliveries.claimDue(limit, LEASE_MS)).claimed) {
      bySubscription.set(claimed.subscriptionId, [...(bySubscription.get(claimed.subscriptionId) ?? []), claimed]);
    }
    return { of: (subscriptionId: string) => bySubscription.get(subscriptionId) ?? [] };
  };
  const claim = async (subscriptionId: string, limit = 100) => (await claimAll(limit)).of(subscriptionId);
  /** Leaves nothing of this subscription due for the next test. */
  const finish = (subscriptionId: string) => pool.query(`UPDATE "${schema}".delivery SET status = 'delivered' WHERE subscription_id = $1`, [subscriptionId]);

  /** Shared buffers the worker's claim of 64 reads now (EXPLAIN ANALYZE, rolled back: nothing is claimed). */
  const claimBuffers = async () => {
    const statement = claimDueSql(notifierTables(schema), 64, newLease(LEASE_MS));
    const client = await pool.connect();
    try {
      const turn = claimTurn(schema);
      await client.query('BEGIN');
      await client.query(turn.text, turn.values);
      const { rows } = await client.query<{ 'QUERY PLAN': [{ Plan: { 'Shared Hit Blocks': number; 'Shared Read Blocks': number } }] }>(
        `EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${statement.text}`,
        statement.values,
      );
      const { Plan: plan } = rows[0]!['QUERY PLAN'][0];
      return plan['Shared Hit Blocks'] + plan['Shared Read Blocks'];
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
  };

  it('claims only the first pending event of each request, and the next one once the first is recorded as delivered', async () => {
    const { partyId, subscriptionId } = await subscribedParty();
    const [a1, b1, a2, a3] = await store(partyId, ['a', 'b', 'a', 'a']);

    const first = await claim(subscriptionId);
    expect(first.map((claimed) => claimed.eventId).sort()).toEqual([a1, b1].sort());
    expect(await claim(subscriptionId)).toEqual([]); // leased: not claimed twice

    await deliveries.recordAttempts(
      first.map((claimed) => (claimed.eventId === a1 ? finished(claimed, DELIVERED) : failure(claimed))),
      DAY_MS,
    );

    expect(await deliveryRow(a1!)).toMatchObject({ status: 'delivered', attempt_count: 1, lease_token: null, due_in_ms: null, attempts: 1 });
    expect((await deliveryRow(a1!))!.delivered_at).toBeInstanceOf(Date);
    // The retry waits for its delay (a receiver's Retry-After arrives here as the delay, see RetryPolicy).
    expect((await deliveryRow(b1!))!.due_in_ms).toBeGreaterThan(58_000);
    expect((await claim(subscriptionId)).map((claimed) => claimed.eventId)).toEqual([a2]);
    expect((await deliveryRow(a3!))!.attempt_count).toBe(0);
    await finish(subscriptionId);
  });

  it('records the attempt of a claim that was lost, but leaves the delivery to its new owner', async () => {
    const { partyId, subscriptionId } = await subscribedParty();
    const [eventId] = await store(partyId, ['a']);
    const [claimed] = await claim(subscriptionId);

    await deliveries.recordAttempts([finished({ ...claimed!, leaseToken: randomUUID() }, DELIVERED)], DAY_MS);

    expect(await deliveryRow(eventId!)).toMatchObject({ status: 'pending', attempt_count: 0, lease_token: claimed!.leaseToken, attempts: 1 });
    await finish(subscriptionId);
  });

  it('applies the attempts of one batch to the subscription in their order: a success ends a run of failures, a later failure starts one', async () => {
    const ended = await subscribedParty();
    const restarted = await subscribedParty();
    await store(ended.partyId, ['a', 'b']);
    await store(restarted.partyId, ['a', 'b']);
    await failingSince(ended.subscriptionId, 3_600_000);
    await failingSince(restarted.subscriptionId, 3_600_000);
    const claimed = await claimAll();
    const claimedEnded = claimed.of(ended.subscriptionId);
    const claimedRestarted = claimed.of(restarted.subscriptionId);

    await deliveries.recordAttempts(
      [failure(claimedEnded[0]!), finished(claimedRestarted[0]!, DELIVERED), finished(claimedEnded[1]!, DELIVERED), failure(claimedRestarted[1]!)],
      DAY_MS,
    );

    expect(await subscriptionRow(ended.subscriptionId)).toEqual({ status: 'active', disabled_reason: null, failing_for_ms: null });
    expect((await subscriptionRow(restarted.subscriptionId)).failing_for_ms).toBeLessThan(5_000);
    await finish(ended.subscriptionId);
    await finish(restarted.subscriptionId);
  });

  it("keeps the subscription's last failed attempt, the batch's last one, through later successes; none before the first failure", async () => {
    const { partyId, subscriptionId } = await subscribedParty();
    await store(partyId, ['a', 'b', 'c']);
    const lastError = async () => (await subscriptions.find(partyId, subscriptionId))!.lastError;
    expect(await lastError()).toBeNull();
    const [a, b, c] = await claim(subscriptionId);
    const at = new Date(Date.now() - 1_000);
    const timedOut: FinishedAttempt = {
      claim: b!,
      attempt: { attemptedAt: at, statusCode: null, error: 'no answer within 10000 ms', durationMs: 10_001 },
      step: RETRY,
    };

    await deliveries.recordAttempts([failure(a!), timedOut, finished(c!, DELIVERED)], DAY_MS);

    expect(await lastError()).toEqual({ at, statusCode: null, error: 'no answer within 10000 ms' });
    await pool.query(`UPDATE "${schema}".delivery SET next_attempt_at = now() WHERE subscription_id = $1 AND status = 'pending'`, [subscriptionId]);
    const [again] = await claim(subscriptionId);
    await deliveries.recordAttempts([finished(again!, DELIVERED)], DAY_MS);
    expect(await lastError()).toEqual({ at, statusCode: null, error: 'no answer within 10000 ms' });
    await finish(subscriptionId);
  });

  it('disables a subscription whose failures have lasted WEBHOOK_DISABLE_AFTER, unless a success in the same batch came first', async () => {
    const failing = await subscribedParty();
    const saved = await subscribedParty();
    await store(failing.partyId, ['a', 'b']);
    await store(saved.partyId, ['a', 'b']);
    await failingSince(failing.subscriptionId, 2 * DAY_MS);
    await failingSince(saved.subscriptionId, 2 * DAY_MS);
    const claimed = await claimAll();
    const claimedFailing = claimed.of(failing.subscriptionId);
    const claimedSaved = claimed.of(saved.subscriptionId);

    const disabled = await deliveries.recordAttempts(
      [failure(claimedFailing[0]!), finished(claimedSaved[0]!, DELIVERED), failure(claimedSaved[1]!), failure(claimedFailing[1]!)],
      DAY_MS,
    );

    expect(disabled).toEqual([{ subscriptionId: failing.subscriptionId, reason: 'every delivery attempt has failed for 1 day' }]);
    expect(await subscriptionRow(failing.subscriptionId)).toMatchObject({ status: 'disabled', disabled_reason: 'every delivery attempt has failed for 1 day' });
    expect(await subscriptionRow(saved.subscriptionId)).toMatchObject({ status: 'active', disabled_reason: null });
    expect((await subscriptionRow(saved.subscriptionId)).failing_for_ms).toBeLessThan(5_000);
    await finish(failing.subscriptionId);
    await finish(saved.subscriptionId);
  });

  it('disables on 410 Gone with the reason of whichever came first, and keeps the event pending for re-enabling', async () => {
    const goneFirst = await subscribedParty();
    const tooLongFirst = await subscribedParty();
    const [goneEvent] = await store(goneFirst.partyId, ['a', 'b']);
    await store(tooLongFirst.partyId, ['a', 'b']);
    await failingSince(goneFirst.subscriptionId, 2 * DAY_MS);
    await failingSince(tooLongFirst.subscriptionId, 2 * DAY_MS);
    const claimed = await claimAll();
    const claimedGone = claimed.of(goneFirst.subscriptionId);
    const claimedTooLong = claimed.of(tooLongFirst.subscriptionId);
    const goneAttempt = claimedGone.find((claimed) => claimed.eventId === goneEvent)!;
    const otherAttempt = claimedGone.find((claimed) => claimed.eventId !== goneEvent)!;

    const disabled = await deliveries.recordAttempts(
      [finished(goneAttempt, GONE, 410), failure(claimedTooLong[0]!), failure(otherAttempt), finished(claimedTooLong[1]!, GONE, 410)],
      DAY_MS,
    );

    expect(disabled).toEqual(
      expect.arrayContaining([
        { subscriptionId: goneFirst.subscriptionId, reason: 'the receiver answered 410 Gone' },
        { subscriptionId: tooLongFirst.subscriptionId, reason: 'every delivery attempt has failed for 1 day' },
      ]),
    );
    expect(disabled).toHaveLength(2);
    expect(await deliveryRow(goneEvent!)).toMatchObject({ status: 'pending', attempt_count: 1, lease_token: null, attempts: 1 });
    expect((await deliveryRow(goneEvent!))!.due_in_ms).toBeLessThanOrEqual(0);
    // A disabled subscription's events are not claimed.
    expect(await claim(goneFirst.subscriptionId)).toEqual([]);
    // Disabled already: a later batch reports nothing new.
    expect(await deliveries.recordAttempts([finished(claimedTooLong[0]!, GONE, 410)], DAY_MS)).toEqual([]);
    await finish(goneFirst.subscriptionId);
    await finish(tooLongFirst.subscriptionId);
  });

  it('records nothing for a subscription deleted during the attempt', async () => {
    const { partyId, subscriptionId } = await subscribedParty();
    const [eventId] = await store(partyId, ['a']);
    const [claimed] = await claim(subscriptionId);
    await subscriptions.delete(partyId, subscriptionId);

    await expect(deliveries.recordAttempts([finished(claimed!, DELIVERED)], DAY_MS)).resolves.toEqual([]);
    expect(await deliveryRow(eventId!)).toBeUndefined();
  });

  it('lets concurrent claimers share the due deliveries without claiming one twice', async () => {
    const { partyId, subscriptionId } = await subscribedParty();
    const stored = await store(
      partyId,
      Array.from({ length: 60 }, (_, n) => `request-${n}`),
    );

    const claims = await Promise.all([claim(subscriptionId, 10), claim(subscriptionId, 10), claim(subscriptionId, 10), claim(subscriptionId, 10)]);
    const claimedIds = claims.flat().map((claimed) => claimed.eventId);

    expect(new Set(claimedIds).size).toBe(claimedIds.length);
    expect(claimedIds.length).toBeGreaterThanOrEqual(10);
    expect(claimedIds.every((id) => stored.includes(id))).toBe(true);
    await finish(subscriptionId);
  });

  it('claims as cheaply after thousands of deliveries whose old versions VACUUM has not removed yet', async () => {
    const { partyId, subscriptionId } = await subscribedParty();
    const requests = (label: string, count: number) => Array.from({ length: count }, (_, n) => `${label}-${n}`);
    await store(partyId, requests('before', 100));
    const before = await claimBuffers();
    await finish(subscriptionId);

    // Stored 30 a statement with the hand-over, each recorded delivered, as the worker does.
    for (let n = 0; n < 100; n++) {
      const batch = requests(`history-${n}`, 30).map((request) => incomingEvent(partyId, request));
      const { claimed } = await events.recordAll(batch, { limit: 64, leaseMs: LEASE_MS });
      await deliveries.recordAttempts(
        claimed.map((delivery) => finished(delivery, DELIVERED)),
        DAY_MS,
      );
    }
    await store(partyId, requests('after', 100));
    expect(await claimBuffers()).toBeLessThan(before * 1.5);
    await finish(subscriptionId);
  });

  it("checks the order rule on each due delivery's own request, also with statistics taken while nothing was pending", async () => {
    const { partyId, subscriptionId } = await subscribedParty();
    // A delivered history and nothing pending when the table was analyzed: what autovacuum's ANALYZE
    // may leave behind a burst. Its sequence numbers are negative, below those of the stored events.
    await pool.query(
      `INSERT INTO "${schema}".delivery (event_id, subscription_id, sequence, event_type, request_identifier, occurred_at, sealed_data, status, delivered_at)
       SELECT gen_random_uuid(), $1, -n, 'AdmissionResponse', 'history-' || n, now(), '\\x00', 'delivered', now() FROM generate_series(1, 5000) n`,
      [subscriptionId],
    );
    await pool.query(`ANALYZE "${schema}".delivery`);
    const due = 300;
    await store(
      partyId,
      Array.from({ length: due }, (_, n) => `request-${n}`),
    );

    // Each due delivery's look-up reads a few pages; reading every pending entry for each would be `due` times as many.
    expect(await claimBuffers()).toBeLessThan(due * 20);
    await finish(subscriptionId);
  });

  describe('sealed Tasks and secrets', () => {
    it('claims with the Task and the secret opened', async () => {
      const { partyId, subscriptionId } = await subscribedParty();
      const [eventId] = await store(partyId, ['a']);
      expect(await claim(subscriptionId)).toEqual([expect.objectContaining({ eventId, data: { resourceType: 'Task' }, secret: 'whsec_c2VjcmV0' })]);
      await finish(subscriptionId);
    });

    it('does not attempt a delivery whose Task was copied from another row, and still claims the others', async () => {
      const { partyId, subscriptionId } = await subscribedParty();
      const [copied, intact, source] = await store(partyId, ['a', 'b', 'c']);
      await pool.query(`UPDATE "${schema}".delivery SET sealed_data = (SELECT sealed_data FROM "${schema}".delivery WHERE event_id = $2) WHERE event_id = $1`, [
        copied,
        source,
      ]);

      const { claimed, unreadable } = await deliveries.claimDue(100, LEASE_MS);
      expect(
        claimed
          .filter((delivery) => delivery.subscriptionId === subscriptionId)
          .map((delivery) => delivery.eventId)
          .sort(),
      ).toEqual([intact, source].sort());
      expect(unreadable).toEqual([
        { eventId: copied, subscriptionId, reason: expect.stringMatching(/does not authenticate under data key [0-9a-f-]{36} for delivery:data$/) },
      ]);
      // Leased like the others: claimed again only once its lease has run out.
      expect((await deliveryRow(copied!))?.lease_token).not.toBeNull();
      await finish(subscriptionId);
    });
  });
});
