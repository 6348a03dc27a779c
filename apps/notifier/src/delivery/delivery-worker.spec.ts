import { Registry } from 'prom-client';
import { silentLogger, waitFor } from '@bedrequest/testing';
import type { IncomingEvent, RecordOutcome } from '../events/event.repository';
import type { ClaimResult, ClaimedDelivery } from './claimed-delivery';
import { deliveryMetrics } from './delivery-metrics';
import { DeliveryWorker } from './delivery-worker';
import { RetryPolicy } from './retry-policy';
import type { SendResult } from './webhook-sender';

interface Pending<T> {
  promise: Promise<T>;
  resolve: (value: T) => void;
  reject: (error: unknown) => void;
}

function pending<T>(): Pending<T> {
  const settle: Partial<Pending<T>> = {};
  settle.promise = new Promise<T>((resolve, reject) => Object.assign(settle, { resolve, reject }));
  return settle as Pending<T>;
}

const delivery = (n: number, requestIdentifier = `request-${n}`): ClaimedDelivery => ({
  eventId: `event-${n}`,
  subscriptionId: 'subscription-1',
  partyId: 'party-1',
  requestIdentifier,
  sequence: n,
  eventType: 'AdmissionResponse',
  occurredAt: new Date('2025-03-06T12:00:00.000Z'),
  data: { resourceType: 'Task' },
  attemptCount: 0,
  leaseToken: `lease-${n}`,
  callbackUrl: 'http://127.0.0.1:9/hook',
  secret: 'whsec_c2VjcmV0',
  payload: 'full',
});

const event = (n: number, requestIdentifier = `request-${n}`): IncomingEvent => ({
  messageId: `message-${n}`,
  messageType: 'admission.response.v1',
  eventId: `event-${n}`,
  eventType: 'AdmissionResponse',
  partyId: 'referrer-1',
  requestIdentifier,
  occurredAt: new Date('2025-03-06T12:00:00.000Z'),
  data: { resourceType: 'Task' },
});

const stored = (sequence: number, handedOver: boolean, waitsForEarlier = false): RecordOutcome => ({
  kind: 'stored',
  subscriptionId: 'subscription-1',
  sequence,
  handedOver,
  waitsForEarlier,
});

const DELIVERED: SendResult = { outcome: { kind: 'answered', statusCode: 204 }, durationMs: 3 };

/**
 * A worker whose statements and attempts the test settles: every claim, store and attempt waits
 * until the test resolves it, so the test decides how they interleave.
 */
function workerUnderTest(concurrency: number, disabledParties: readonly string[] = []) {
  const claims: { limit: number; result: Pending<ClaimResult> }[] = [];
  const stores: { limit: number; result: Pending<{ outcomes: RecordOutcome[] } & ClaimResult> }[] = [];
  const attempts: { eventId: string; result: Pending<SendResult> }[] = [];
  /** The event ids of every attempt recorded, and of every claim given back. */
  const recorded: string[] = [];
  const released: string[] = [];
  const withheld: string[] = [];
  const sut = new DeliveryWorker({
    repository: {
      claimDue: (limit) => {
        const result = pending<ClaimResult>();
        claims.push({ limit, result });
        return result.promise;
      },
      recordAttempts: async (finished) => {
        recorded.push(...finished.map(({ claim }) => claim.eventId));
        return [];
      },
      releaseClaims: async (claims) => {
        released.push(...claims.map((claim) => claim.eventId));
      },
    },
    events: {
      recordAll: (_events, handOff) => {
        const result = pending<{ outcomes: RecordOutcome[] } & ClaimResult>();
        stores.push({ limit: handOff?.limit ?? 0, result });
        return result.promise;
      },
    },
    sender: {
      send: (_url, request) => {
        const result = pending<SendResult>();
        attempts.push({ eventId: (JSON.parse(request.body) as { id: string }).id, result });
        return result.promise;
      },
    },
    policy: new RetryPolicy([]),
    metrics: deliveryMetrics(new Registry()),
    logger: silentLogger(),
    timeoutMs: 1_000,
    concurrency,
    pollIntervalMs: 600_000,
    disableAfterMs: 86_400_000,
    withholding: {
      reasonFor: (claimed) => (disabledParties.includes(claimed.partyId) ? 'party-disabled' : undefined),
      deliveries: {
        withhold: async (claim, reason) => {
          withheld.push(`${claim.eventId} ${reason}`);
          return true;
        },
      },
    },
  });
  /** Lets wake-ups and settled statements run (the worker wakes on the next turn of the event loop). */
  const settle = () => new Promise((resolve) => setImmediate(resolve));
  /** Answers every attempt in flight and stops the worker. */
  const finish = async () => {
    for (const attempt of attempts) attempt.result.resolve(DELIVERED);
    for (const claim of claims) claim.result.resolve({ claimed: [], unreadable: [] });
    await sut.stop();
  };
  return { sut, claims, stores, attempts, recorded, released, withheld, settle, finish };
}

describe('DeliveryWorker', () => {
  afterEach(() => jest.useRealTimers());

  it('withholds a claimed delivery of a disabled party without an attempt, and frees its slot at once', async () => {
    const { sut, claims, attempts, recorded, withheld, settle, finish } = workerUnderTest(2, ['party-gone']);
    sut.start();
    await settle();
    claims[0]!.result.resolve({ claimed: [{ ...delivery(1), partyId: 'party-gone' }, delivery(2)], unreadable: [] });
    await settle();
    await settle();

    expect({ attempts: attempts.map((attempt) => attempt.eventId), withheld, recorded }).toEqual({
      attempts: ['event-2'],
      withheld: ['event-1 party-disabled'],
      recorded: [],
    });
    // The withheld one's slot is free again: the worker claims with it (one slot; the other is event-2's).
    expect(claims.at(-1)!.limit).toBe(1);
    await finish();
  });

  it('stops by waiting for the attempts under way, and hands back those still under way when its time is up', async () => {
    // A fake clock for the stop's budget and the recorder's window; the turns of the event loop the
    // worker wakes on stay real (settle).
    jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
    const elapse = (ms: number) => jest.advanceTimersByTimeAsync(ms);
    const { sut, claims, attempts, recorded, released, settle } = workerUnderTest(4);
    sut.start();
    await settle();
    claims[0]!.result.resolve({ claimed: [delivery(1), delivery(2)], unreadable: [] });
    await settle();
    expect(attempts.map((attempt) => attempt.eventId)).toEqual(['event-1', 'event-2']);

    const stopped = sut.stop(200);
    attempts[0]!.result.resolve(DELIVERED);
    await elapse(199);
    // The first is recorded (after the recorder's window of a few ms); the second is waited for.
    expect({ recorded, released }).toEqual({ recorded: ['event-1'], released: [] });
    await elapse(1);
    await stopped;
    expect({ recorded, released }).toEqual({ recorded: ['event-1'], released: ['event-2'] });

    // The answer that comes after the hand-back is not recorded: the claim is another worker's now.
    attempts[1]!.result.resolve(DELIVERED);
    // Far past the recorder's window: a record of it would have been written by now.
    await elapse(1_000);
    await settle();
    expect(recorded).toEqual(['event-1']);
    expect(claims).toHaveLength(1);
  });

  it('gives a batch stored while a claim is under way only the slots the claim does not hold, so no more than the concurrency are in flight', async () => {
    const { sut, claims, stores, attempts, settle, finish } = workerUnderTest(4);
    sut.start();
    await settle();
    expect(claims.map((claim) => claim.limit)).toEqual([4]);

    const handedOver = sut.storeAndHandOver([event(11), event(12)]);
    await settle();
    expect(stores.map((store) => store.limit)).toEqual([0]);

    claims[0]!.result.resolve({ claimed: [1, 2, 3, 4].map((n) => delivery(n)), unreadable: [] });
    stores[0]!.result.resolve({ outcomes: [stored(1, false), stored(2, false)], claimed: [], unreadable: [] });
    expect(await handedOver).toEqual([stored(1, false), stored(2, false)]);
    await settle();
    expect(attempts.map((attempt) => attempt.eventId)).toEqual(['event-1', 'event-2', 'event-3', 'event-4']);
    await finish();
  });

  it('hands a stored batch the free slots, sends what the statement claimed, and claims the rest as slots come free', async () => {
    const { sut, claims, stores, attempts, settle, finish } = workerUnderTest(4);
    sut.start();
    await settle();
    claims[0]!.result.resolve({ claimed: [delivery(1)], unreadable: [] });
    await settle();

    const handedOver = sut.storeAndHandOver([event(2), event(3), event(4), event(5)]);
    await settle();
    expect(stores.map((store) => store.limit)).toEqual([3]);
    stores[0]!.result.resolve({
      outcomes: [stored(2, true), stored(3, true), stored(4, true), stored(5, false)],
      claimed: [delivery(2), delivery(3), delivery(4)],
      unreadable: [],
    });
    await handedOver;
    await settle();
    expect(attempts.map((attempt) => attempt.eventId)).toEqual(['event-1', 'event-2', 'event-3', 'event-4']);
    // The event without a slot is claimed once an attempt is recorded, with the slot it left.
    expect(claims).toHaveLength(1);
    attempts[0]!.result.resolve(DELIVERED);
    await waitFor(() => claims.length === 2, { what: 'the claim after the recorded attempt' });
    expect(claims[1]!.limit).toBe(1);
    await finish();
  });

  it('gives the slots back when storing the batch fails', async () => {
    const { sut, claims, stores, settle, finish } = workerUnderTest(4);
    sut.start();
    await settle();
    claims[0]!.result.resolve({ claimed: [], unreadable: [] });
    await settle();

    const handedOver = sut.storeAndHandOver([event(1), event(2)]);
    await settle();
    stores[0]!.result.reject(new Error('the database is down'));
    await expect(handedOver).rejects.toThrow('the database is down');

    sut.wake();
    await settle();
    expect(claims.map((claim) => claim.limit)).toEqual([4, 4]);
    await finish();
  });

  it("claims an event kept back by an earlier one of its request as soon as that one's attempt is recorded", async () => {
    const { sut, claims, stores, attempts, settle, finish } = workerUnderTest(4);
    sut.start();
    await settle();
    claims[0]!.result.resolve({ claimed: [], unreadable: [] });
    await settle();

    const handedOver = sut.storeAndHandOver([event(1, 'request-a'), event(2, 'request-a')]);
    await settle();
    stores[0]!.result.resolve({ outcomes: [stored(1, true), stored(2, false, true)], claimed: [delivery(1, 'request-a')], unreadable: [] });
    await handedOver;
    await settle();
    // Woken for the event left behind: nothing is due yet, so the worker sees no backlog.
    expect(claims).toHaveLength(2);
    claims[1]!.result.resolve({ claimed: [], unreadable: [] });
    await settle();

    attempts[0]!.result.resolve(DELIVERED);
    await waitFor(() => claims.length === 3, { what: 'the claim of the next event of the request' });
    expect(claims[2]!.limit).toBe(4);
    await finish();
  });

  it("claims a request's third event once the second's attempt is recorded, without waiting for the poll", async () => {
    const { sut, claims, stores, attempts, settle, finish } = workerUnderTest(4);
    sut.start();
    await settle();
    claims[0]!.result.resolve({ claimed: [], unreadable: [] });
    await settle();

    const handedOver = sut.storeAndHandOver([event(1, 'request-a'), event(2, 'request-a'), event(3, 'request-a')]);
    await settle();
    stores[0]!.result.resolve({
      outcomes: [stored(1, true), stored(2, false, true), stored(3, false, true)],
      claimed: [delivery(1, 'request-a')],
      unreadable: [],
    });
    await handedOver;
    await settle();
    claims[1]!.result.resolve({ claimed: [], unreadable: [] });
    await settle();

    attempts[0]!.result.resolve(DELIVERED);
    await waitFor(() => claims.length === 3, { what: 'the claim of the second event' });
    claims[2]!.result.resolve({ claimed: [delivery(2, 'request-a')], unreadable: [] });
    await waitFor(() => attempts.length === 2, { what: 'the attempt of the second event' });
    attempts[1]!.result.resolve(DELIVERED);
    await waitFor(() => claims.length === 4, { what: 'the claim of the third event, right after the second was recorded' });
    claims[3]!.result.resolve({ claimed: [delivery(3, 'request-a')], unreadable: [] });
    await waitFor(() => attempts.length === 3, { what: 'the attempt of the third event' });
    attempts[2]!.result.resolve(DELIVERED);
    // The end of the chain: one more look, which finds nothing of the request, and then no more.
    await waitFor(() => claims.length === 5, { what: 'the last look after the third event' });
    claims[4]!.result.resolve({ claimed: [], unreadable: [] });
    await settle();
    await settle();
    expect(claims).toHaveLength(5);
    await finish();
  });
});
