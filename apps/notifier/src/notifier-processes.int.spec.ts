import { Pool } from 'pg';
import { declareTopology, messageCatalog } from '@bedrequest/contracts';
import { Broker } from '@bedrequest/messaging';
import { WebhookReceiver, requestOf, silentLogger, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { TestAuthority } from '@bedrequest/tokens/testing';
import { startNotifier, type RunningNotifier } from './start';
import {
  SubscriptionsApi,
  killed,
  notifierConfig,
  notifierEnvironment,
  publishResponse,
  removeTopology,
  requestIdentifier,
  startNotifierProcess,
} from './testing/notifier-test-kit';
import { subscribedParty } from './testing/notifier-under-test';

const env = testEnvironment();

describe('notifier processes', () => {
  const namespace = uniqueName('notifier');
  const topology = declareTopology(namespace);
  let client: Broker;
  let authority: TestAuthority;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    client = new Broker({ url: env.amqpUrl, topology, catalog: messageCatalog, logger: silentLogger(), prefetch: 8, deliveryLimit: 5 });
    await client.start();
    await receiver.start();
    authority = await TestAuthority.start();
  });

  afterAll(async () => {
    await client.stop();
    await receiver.stop();
    await authority.stop();
    await removeTopology(topology);
  });

  it('a notifier killed (SIGKILL) while an event waits for its retry delivers it after the restart', async () => {
    const schema = uniqueName('notifier');
    // One retry, a second after the failed first attempt: the kill comes well before it.
    const environment = notifierEnvironment({ namespace, schema, authority, settings: { WEBHOOK_RETRY_SCHEDULE: '1s' } });
    const doomed = await startNotifierProcess(environment);
    const api = new SubscriptionsApi(doomed.url, authority);
    const { party, subscription } = await subscribedParty(api, receiver);
    receiver.answer = (webhook) => (webhook.attempt === 1 ? { status: 503 } : { status: 200 });

    const eventId = await publishResponse(client, { partyId: party, requestIdentifier: requestIdentifier() });
    // The failed attempt is recorded and the retry scheduled ...
    await waitFor(async () => {
      const [delivery] = await api.deliveries(party, subscription.id);
      return delivery?.attempts.length === 1 && delivery.nextAttemptAt !== null;
    });
    // ... when the process dies without any chance to clean up.
    expect(await killed(doomed.child)).toBe('SIGKILL');
    expect(receiver.attemptsOf(eventId)).toHaveLength(1);

    const successor = await startNotifier(notifierConfig(environment));
    try {
      await waitFor(() => receiver.accepted().some((webhook) => webhook.id === eventId), { what: 'the retry after the restart' });
      const attempts = receiver.attemptsOf(eventId);
      expect(attempts.map((webhook) => [webhook.id, webhook.body.id, webhook.verified, webhook.status])).toEqual([
        [eventId, eventId, true, 503],
        [eventId, eventId, true, 200],
      ]);
      // Not earlier than the schedule said (1 s, -10 % jitter).
      expect(attempts[1]!.receivedAt - attempts[0]!.receivedAt).toBeGreaterThanOrEqual(900 - 20);
    } finally {
      await successor.stop();
    }
  });

  it('a notifier killed in the middle of an attempt: another one sends the event again once the claim runs out', async () => {
    const schema = uniqueName('notifier');
    // A claim lasts the attempt timeout (1 s here) plus 5 s to record the outcome.
    const environment = notifierEnvironment({ namespace, schema, authority, settings: { WEBHOOK_RETRY_SCHEDULE: '200ms', WEBHOOK_TIMEOUT: '1s' } });
    const doomed = await startNotifierProcess(environment);
    const api = new SubscriptionsApi(doomed.url, authority);
    const { party, subscription } = await subscribedParty(api, receiver);
    // The first attempt hangs, and the process dies while it waits for the answer.
    receiver.answer = (webhook) => (webhook.attempt === 1 ? { status: 200, delayMs: 3_000 } : { status: 200 });

    const eventId = await publishResponse(client, { partyId: party, requestIdentifier: requestIdentifier() });
    await waitFor(() => receiver.attemptsOf(eventId).length === 1, { what: 'the first attempt' });
    expect(await killed(doomed.child)).toBe('SIGKILL');

    const successor = await startNotifier(notifierConfig(environment));
    try {
      await waitFor(() => receiver.attemptsOf(eventId).length === 2, { timeoutMs: 10_000, what: 'the attempt after the claim ran out' });
      const [first, second] = receiver.attemptsOf(eventId);
      expect(second!.verified).toBe(true);
      expect(second!.receivedAt - first!.receivedAt).toBeGreaterThanOrEqual(5_000);
      const [delivery] = await waitFor(async () => {
        const log = await new SubscriptionsApi(successor.url, authority).deliveries(party, subscription.id);
        return log[0]?.status === 'delivered' && log;
      });
      // The dead process never recorded its attempt; the successor recorded its own.
      expect(delivery!.attempts.map((attempt) => attempt.statusCode)).toEqual([200]);
    } finally {
      await successor.stop();
    }
  });

  describe('two notifier instances side by side', () => {
    const schema = uniqueName('notifier');
    let instances: RunningNotifier[];
    let pool: Pool;

    beforeAll(async () => {
      const environment = notifierEnvironment({ namespace, schema, authority, settings: { WEBHOOK_RETRY_SCHEDULE: Array(10).fill('100ms').join(',') } });
      instances = [await startNotifier(notifierConfig(environment)), await startNotifier(notifierConfig(environment))];
      pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    });

    afterAll(async () => {
      await Promise.all(instances.map((instance) => instance.stop()));
      await pool.end();
    });

    it('deliver every event once, and the events of each request in the order they happened', async () => {
      receiver.reset();
      const { party, subscription } = await subscribedParty(new SubscriptionsApi(instances[0]!.url, authority), receiver);
      // Closed until every event is stored, so that all of them compete for delivery at once; then
      // some failures and slow answers, to mix retries and overlapping attempts.
      let open = false;
      receiver.answer = (webhook) => {
        if (!open) return { status: 503 };
        if (webhook.body.sequence % 4 === 0 && webhook.attempt <= 2) return { status: 500, delayMs: 5 };
        return { status: 200, delayMs: Math.floor(Math.random() * 15) };
      };

      const requests = [requestIdentifier(), requestIdentifier(), requestIdentifier()];
      const happened = new Map<string, string[]>(requests.map((request) => [request, []]));
      const start = Date.now() - 1_000;
      for (let n = 0; n < 18; n += 1) {
        const request = requests[n % requests.length]!;
        const eventId = await publishResponse(client, { partyId: party, requestIdentifier: request, occurredAt: new Date(start + n) });
        happened.get(request)!.push(eventId);
      }
      await waitFor(async () => {
        const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".delivery WHERE subscription_id = $1`, [subscription.id]);
        return rows[0].n === 18;
      });
      open = true;
      await waitFor(() => receiver.accepted().length >= 18, { timeoutMs: 30_000, what: 'every event delivered' });
      // A second delivery would come from a claim made before the last first one was recorded: once
      // every event is recorded as delivered, and a later event of the same subscription (stored after
      // all of them, claimed after) has arrived too, such an attempt would have arrived.
      await waitFor(
        async () => {
          const { rows } = await pool.query(`SELECT count(*)::int AS n FROM "${schema}".delivery WHERE subscription_id = $1 AND status = 'delivered'`, [
            subscription.id,
          ]);
          return rows[0].n === 18;
        },
        { what: 'every event recorded as delivered' },
      );
      const later = await publishResponse(client, { partyId: party, requestIdentifier: requestIdentifier() });
      await waitFor(() => receiver.accepted().some((webhook) => webhook.id === later), { what: 'a later event' });

      const accepted = receiver.accepted().filter((webhook) => webhook.id !== later);
      expect(accepted).toHaveLength(18);
      expect(new Set(accepted.map((webhook) => webhook.id)).size).toBe(18);
      expect(accepted.map((webhook) => webhook.body.sequence).sort((a, b) => a - b)).toEqual(Array.from({ length: 18 }, (_, n) => n + 1));
      for (const request of requests) {
        expect(accepted.filter((webhook) => requestOf(webhook.body) === request).map((webhook) => webhook.id)).toEqual(happened.get(request));
      }
      // Never two attempts of one request at the same time, across both processes.
      expect(receiver.maxInFlightPerRequest).toBe(1);
      // Both instances took part: the broker shared the queue's messages between them.
      for (const instance of instances) {
        const metrics = await (await fetch(`${instance.internalUrl}/metrics`)).text();
        expect(metrics).toMatch(/messages_consumed_total\{[^}]*outcome="ack"[^}]*\} [1-9]/);
      }
    });
  });
});
