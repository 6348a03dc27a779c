import { waitFor } from '@bedrequest/testing';
import type { FaultFixture } from '../support/fault-fixture';
import { reportFigures, seconds } from '../support/figures';
import { bundleSource, postBundle } from '../support/load';
import { OutageReceiver, type ArrivedWebhook } from '../support/webhook-receiver';

/**
 * Webhook receiver down for 2 minutes, then up (docs/webhooks.md, "Retry schedule"). Proved: every
 * event arrives, signed, with its id, in order per request. The stack runs with a short retry schedule (WEBHOOK_RETRY_SCHEDULE, see
 * side-by-side.faults.spec.ts) so that the first attempt after the receiver is back comes within
 * seconds; the receiver itself is down the full two minutes.
 */
export const OUTAGE_MS = 120_000;
/** 1 s, 2 s, 5 s, then every 10 s: 21 attempts over 208 s, well past the outage. */
export const WEBHOOK_RETRY_SCHEDULE = ['1s', '2s', '5s', ...Array<string>(20).fill('10s')].join(',');

const REQUESTS = 20;
/** The answering clinic's answers to each request, in this order. */
const ANSWERS = ['query', 'more-data-required', 'accepted'] as const;
const REFERRER = { username: 'webhook-referrer', password: 'webhook-referrer-password', ik: '269900002', fhirBase: 'https://webhook-hospital.example/fhir' };
const ANSWERING = { ik: '519900021', username: 'webhook-clinic', password: 'webhook-clinic-password' };
/** Offers cardiology only: routing declines orthopaedic requests for it on its own (one more event per request). */
const DECLINING = { ik: '519900022' };

interface StoredEvent {
  id: string;
  sequence: number;
  data: { basedOn?: { identifier?: { value?: string } }[] };
}

export async function webhookOutage(faults: FaultFixture): Promise<void> {
  const receiver = await OutageReceiver.onFreeLowPort();
  let stored: StoredEvent[] = [];
  let failedAttempts = 0;
  let downFor = 0;
  let allArrivedAfter = 0;
  try {
    await faults.admin('clinic', 'upsert', '--ik', ANSWERING.ik, '--name', 'Rehaklinik Antwort', '--departments', '2300');
    await faults.admin('clinic', 'upsert', '--ik', DECLINING.ik, '--name', 'Herzklinik Absage', '--departments', '0300');
    await faults.createReferrer(REFERRER);
    await faults.admin('user', 'create', '--role', 'clinic', '--username', ANSWERING.username, '--password', ANSWERING.password, '--ik', ANSWERING.ik);
    const referrer = await faults.login(REFERRER.username, REFERRER.password);
    const clinic = await faults.login(ANSWERING.username, ANSWERING.password);
    const call = async <T>(method: string, path: string, token: string, body?: unknown) => {
      const response = await fetch(`${faults.gatewayUrl}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: response.status, body: (await response.json().catch(() => undefined)) as T };
    };

    // The receiver is not started: from the subscription on, every attempt meets a closed port.
    const subscribed = await call<{ id: string; secret: string }>('POST', '/api/v1/subscriptions', referrer.token, {
      eventType: 'AdmissionResponse',
      callbackUrl: receiver.url,
    });
    expect(subscribed.status).toBe(201);
    receiver.secret = subscribed.body.secret;
    const downAt = Date.now();

    // 20 requests to both clinics: the answering clinic answers each three times, routing declines
    // for the other one; 80 events, 4 per request.
    const bundles = bundleSource({ fhirBase: REFERRER.fhirBase, ik: REFERRER.ik }, [ANSWERING.ik, DECLINING.ik]);
    await Promise.all(
      Array.from({ length: REQUESTS }, async () => {
        const bundle = bundles.next();
        expect((await postBundle(faults.gatewayUrl, referrer.token, bundle)).status).toBe(202);
        // Under load the 202 may come before intake's verdict: the Task follows shortly.
        const taskId = await waitFor(
          async () =>
            (await call<{ entry?: { resource: { id: string } }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(bundle.identifier)}`, clinic.token))
              .body.entry?.[0]?.resource.id,
          { timeoutMs: 60_000, intervalMs: 200, what: 'the clinic’s Task' },
        );
        for (const businessStatus of ANSWERS) {
          // 200, or 202 when intake's verdict is late under load: the answer is queued, in order.
          expect([200, 202]).toContain((await call('POST', `/api/v1/clinic/tasks/${taskId}/answer`, clinic.token, { businessStatus })).status);
        }
      }),
    );
    const events = () => call<{ items: StoredEvent[] }>('GET', `/api/v1/subscriptions/${subscribed.body.id}/events?since=0&limit=1000`, referrer.token);
    await waitFor(async () => (await events()).body.items.length === REQUESTS * (ANSWERS.length + 1), {
      timeoutMs: 60_000,
      intervalMs: 500,
      what: 'every event to be stored',
    });

    await new Promise((resolve) => setTimeout(resolve, downAt + OUTAGE_MS - Date.now()));
    const log = await call<{ items: { attempts: unknown[] }[] }>('GET', `/api/v1/subscriptions/${subscribed.body.id}/deliveries?limit=1000`, referrer.token);
    failedAttempts = log.body.items.reduce((sum, delivery) => sum + delivery.attempts.length, 0);
    await receiver.up();
    const upAt = Date.now();
    downFor = upAt - downAt;

    stored = (await events()).body.items;
    const storedIds = new Set(stored.map((event) => event.id));
    await waitFor(() => storedIds.size > 0 && [...storedIds].every((id) => receiver.arrived.some((webhook) => webhook.id === id)), {
      timeoutMs: 90_000,
      intervalMs: 100,
      what: 'every event at the receiver',
    });
    allArrivedAfter = Date.now() - upAt;

    // Every event arrived, signed, with the event id as webhook-id, and nothing else arrived.
    expect(stored).toHaveLength(REQUESTS * (ANSWERS.length + 1));
    expect(stored.map((event) => event.sequence)).toEqual(stored.map((_event, index) => index + 1));
    expect(new Set(receiver.arrived.map((webhook) => webhook.id))).toEqual(storedIds);
    expect(receiver.arrived.filter((webhook) => !webhook.verified || webhook.headerId !== webhook.id)).toEqual([]);
    // Per request, the events arrived in the order they happened (their sequence), and the
    // clinic's three answers in the order it gave them.
    for (const [request, arrivals] of firstArrivalsByRequest(receiver.arrived)) {
      const sequences = arrivals.map((webhook) => webhook.sequence);
      expect({ request, sequences }).toEqual({ request, sequences: [...sequences].sort((a, b) => a - b) });
      expect(arrivals.map((webhook) => webhook.businessStatus).filter((code) => code !== 'declined')).toEqual([...ANSWERS]);
    }
  } finally {
    await receiver.down();
    const unique = new Set(receiver.arrived.map((webhook) => webhook.id)).size;
    reportFigures(
      'webhook receiver down',
      `${stored.length} events for ${REQUESTS} requests; receiver down ${seconds(downFor)}, ${failedAttempts} failed attempts meanwhile; ` +
        `after it was back: ${unique} of ${stored.length} events arrived (${receiver.arrived.length - unique} twice) within ${seconds(allArrivedAfter)}, same ids, in order per request`,
    );
  }
}

/** Each event's first arrival, grouped by request, in arrival order. */
function firstArrivalsByRequest(arrived: readonly ArrivedWebhook[]): Map<string, ArrivedWebhook[]> {
  const seen = new Set<string>();
  const byRequest = new Map<string, ArrivedWebhook[]>();
  for (const webhook of arrived) {
    if (seen.has(webhook.id)) continue;
    seen.add(webhook.id);
    byRequest.set(webhook.requestIdentifier, [...(byRequest.get(webhook.requestIdentifier) ?? []), webhook]);
  }
  return byRequest;
}
