// The delivery log paged and filtered, the subscription's last error, and webhooks withheld at
// delivery time from a party disabled meanwhile (docs/webhooks.md, "Delivery log and manual retry",
// "Authorization at delivery time"), end to end: the whole stack in-process, driven through the
// gateway, parties disabled with the real admin command line.
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { testEnvironment, waitFor, WebhookReceiver } from '@bedrequest/testing';
import { startE2eStack, type E2eStack } from './e2e-stack';

const CLINIC = '510000411';
const LEAVING_IK = '260000411';
const LEAVING_BASE = 'https://leaving.example/fhir';

interface LogEntry {
  eventId: string;
  sequence: number;
  status: string;
  withheld?: { at: string; reason: string } | null;
  attempts: { statusCode: number | null; error: string | null }[];
}
interface Log {
  items: LogEntry[];
  next?: string;
}
type Subscription = { id: string; secret: string; status: string; lastError?: { at: string; statusCode: number | null; error: string | null } | null };

describe('the delivery log and webhooks withheld at delivery time, through the gateway', () => {
  let stack: E2eStack;
  let pool: Pool;
  let referrer: string;
  let clinic: string;
  const receiver = new WebhookReceiver();
  const leavingReceiver = new WebhookReceiver();

  beforeAll(async () => {
    // One retry 5 s after a failed attempt, then given up: long enough to disable a party before it.
    stack = await startE2eStack({ WEBHOOK_RETRY_SCHEDULE: '5s', WEBHOOK_PARTY_POLL_MS: '200' });
    await stack.registerClinic(CLINIC, 'Reha-Klinik Am Deich', ['2300']);
    await stack.createReferrer('log-hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    await stack.createClinicUser('deich', CLINIC);
    referrer = await stack.login('log-hospital');
    clinic = await stack.login('deich');
    pool = new Pool({ connectionString: stack.env.DATABASE_URL ?? testEnvironment().databaseUrl, max: 1 });
    await receiver.start();
    await leavingReceiver.start();
  }, 120_000);

  afterAll(async () => {
    await pool?.end();
    await receiver.stop();
    await leavingReceiver.stop();
    await stack?.stop();
  });

  /** A request of `token`'s party to the clinic, its Task's id once the clinic has it. */
  const request = async (token: string, base: string, requesterIk: string) => {
    const identifier = `${base}/ServiceRequest/${randomUUID()}`;
    const bundle = admissionRequestBundle({ requestIdentifier: identifier, requesterIk, performerIks: [CLINIC], notes: ['Z. n. Hüft-TEP rechts'] });
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token, body: bundle, contentType: 'application/fhir+json' })).status).toBe(202);
    const taskId = await waitFor(
      async () => {
        const found = await stack.api<{ entry?: { resource: { id: string } }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, {
          token,
        });
        return found.body.entry?.[0]?.resource.id;
      },
      { what: 'the Task' },
    );
    return { identifier, taskId };
  };
  /** The clinic's answer: an AdmissionResponse for the referrer. */
  const answer = async (taskId: string, note = 'Aufnahme am Montag möglich, Röntgenbild mitbringen') =>
    expect((await stack.api('POST', `/api/v1/clinic/tasks/${taskId}/answer`, { token: clinic, body: { businessStatus: 'accepted', note } })).status).toBe(200);
  const log = (id: string, query = '') => stack.api<Log>('GET', `/api/v1/subscriptions/${id}/deliveries${query}`, { token: referrer });

  it('pages newest first by cursor, stable while events arrive, filters by status and time, and shows the last error; no Task in it', async () => {
    const subscription = (
      await stack.api<Subscription>('POST', '/api/v1/subscriptions', { token: referrer, body: { eventType: 'AdmissionResponse', callbackUrl: receiver.url } })
    ).body;
    expect(subscription.lastError).toBeNull();
    const tasks: { identifier: string; taskId: string }[] = [];
    for (let n = 0; n < 4; n++) tasks.push(await request(referrer, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK));
    // The first request's webhook is refused every time: given up after its retry.
    receiver.answer = (webhook) => ({ status: JSON.stringify(webhook.body.data).includes(tasks[0]!.taskId) ? 503 : 204 });
    await answer(tasks[0]!.taskId);
    const [first] = await waitFor(
      async () => {
        const { items } = (await log(subscription.id, '?status=failed')).body;
        return items.length > 0 && items;
      },
      { timeoutMs: 20_000, what: 'the given-up event' },
    );
    const between = new Date(Date.now() + 1);
    await new Promise((resolve) => setTimeout(resolve, 20));
    await answer(tasks[1]!.taskId);
    await answer(tasks[2]!.taskId);
    await waitFor(async () => (await log(subscription.id, '?status=delivered')).body.items.length === 2, { what: 'two delivered' });

    const page1 = await log(subscription.id, '?limit=2');
    expect(page1.status).toBe(200);
    expect(page1.body.items.map((item) => item.sequence)).toEqual([3, 2]);
    expect(page1.body.next).toMatch(/^\?limit=2&cursor=/);
    // An event stored between two pages comes above them: the next page is unchanged.
    await answer(tasks[3]!.taskId);
    await waitFor(async () => (await log(subscription.id, '?limit=1')).body.items[0]?.sequence === 4, { what: 'the fourth event' });
    const page2 = await log(subscription.id, page1.body.next);
    expect([page2.body.items.map((item) => item.sequence), page2.body.next]).toEqual([[1], undefined]);
    expect(page2.body.items[0]).toMatchObject({ eventId: first!.eventId, status: 'failed', withheld: null });
    expect(page2.body.items[0]!.attempts.map((attempt) => [attempt.statusCode, attempt.error])).toEqual([
      [503, 'the receiver answered HTTP 503'],
      [503, 'the receiver answered HTTP 503'],
    ]);
    // `limit` alone, and no parameter, as before.
    expect((await log(subscription.id)).body).toEqual({ items: expect.any(Array) });
    expect((await log(subscription.id)).body.items.map((item) => item.sequence)).toEqual([4, 3, 2, 1]);

    const since = await log(subscription.id, `?since=${encodeURIComponent(between.toISOString())}&status=delivered,pending`);
    expect(since.body.items.map((item) => item.sequence)).toEqual([4, 3, 2]);

    const shown = (await stack.api<Subscription>('GET', `/api/v1/subscriptions/${subscription.id}`, { token: referrer })).body;
    expect(shown.lastError).toEqual({ at: expect.any(String), statusCode: 503, error: 'the receiver answered HTTP 503' });
    const listed = (await stack.api<{ items: Subscription[] }>('GET', '/api/v1/subscriptions', { token: referrer })).body.items;
    expect(listed.find((item) => item.id === subscription.id)?.lastError).toEqual(shown.lastError);

    // Ids, times, statuses and errors only: nothing of a Task or its notes.
    const text = JSON.stringify([page1.body, page2.body, since.body, await log(subscription.id)]);
    for (const word of ['Röntgenbild', 'Hüft-TEP', 'resourceType', 'businessStatus', tasks[0]!.identifier]) {
      expect({ word, found: text.includes(word) }).toEqual({ word, found: false });
    }

    for (const [query, message] of [
      ['?cursor=seq', "cursor must be a cursor as the log's next writes it"],
      ['?status=lost', 'status must be one or more of pending, delivered, failed, withheld, comma-separated'],
      ['?since=gestern', 'since must be an ISO 8601 time with Z or an offset (e.g. 2026-12-07T08:00:00Z)'],
      ['?limit=0', 'limit must be a number from 1 to 1000'],
    ] as const) {
      expect(await log(subscription.id, query)).toMatchObject({ status: 400, body: { error: 'invalid_request', message } });
    }
  }, 90_000);

  it("withholds a disabled party's retry already scheduled and its events arriving after the disable, and says why", async () => {
    const partyId = await stack.createParty('referrer', 'Klinikum Abschied', [LEAVING_IK], LEAVING_BASE);
    await stack.createPerson(partyId, 'leaving-admin');
    const leaving = await stack.login('leaving-admin');
    const subscription = (
      await stack.api<Subscription>('POST', '/api/v1/subscriptions', {
        token: leaving,
        body: { eventType: 'AdmissionResponse', callbackUrl: leavingReceiver.url },
      })
    ).body;
    leavingReceiver.secret = subscription.secret;
    const before = await request(leaving, LEAVING_BASE, LEAVING_IK);
    const after = await request(leaving, LEAVING_BASE, LEAVING_IK);
    leavingReceiver.answer = () => ({ status: 503 });
    await answer(before.taskId);
    await waitFor(() => leavingReceiver.received.length === 1, { what: 'the first attempt' });

    await stack.admin('party', 'disable', '--id', partyId);
    // The receiver would take them now; the notifier learns of the disable within its poll (200 ms here).
    leavingReceiver.answer = () => ({ status: 204 });
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    await answer(after.taskId);

    const schema = stack.env.NOTIFIER_DB_SCHEMA!;
    const rows = await waitFor(
      async () => {
        const { rows } = await pool.query<{ sequence: number; status: string; withheld_reason: string | null; attempts: number }>(
          `SELECT d.sequence, d.status, d.withheld_reason, (SELECT count(*)::int FROM "${schema}".delivery_attempt a WHERE a.event_id = d.event_id) AS attempts
             FROM "${schema}".delivery d WHERE d.subscription_id = $1 ORDER BY d.sequence`,
          [subscription.id],
        );
        return rows.length === 2 && rows.every((row) => row.status !== 'pending') && rows;
      },
      { timeoutMs: 20_000, what: 'both events settled' },
    );
    expect(rows).toEqual([
      { sequence: 1, status: 'withheld', withheld_reason: 'party-disabled', attempts: 1 },
      { sequence: 2, status: 'withheld', withheld_reason: 'party-disabled', attempts: 0 },
    ]);
    expect(leavingReceiver.received.map((webhook) => webhook.status)).toEqual([503]);
    // The party's access token is refused now, so its log is read above, from the notifier's schema.
    expect((await stack.api('GET', `/api/v1/subscriptions/${subscription.id}/deliveries`, { token: leaving })).status).toBe(401);
  }, 90_000);
});
