// A subscription's options (docs/webhooks.md, "Subscription options") through the whole stack
// in-process: an id-only subscription gets a clinic's answer without its note and reads the Task with
// its own token; heartbeats reach a quiet receiver with the latest sequence number; a rotated secret
// signs beside the old one for the overlap, then alone. Every answer is checked against the OpenAPI
// document (api-client.ts); the short heartbeat minimum and overlap are this stack's settings.
import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_PERFORMER_IKS, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { WebhookReceiver, waitFor, type ReceivedWebhook } from '@bedrequest/testing';
import { startE2eStack, type E2eStack } from './e2e-stack';
import { openApiContract } from './openapi-contract';

const CLINIC_IK = FIXTURE_PERFORMER_IKS[0];
const NOTE = 'Patientin benötigt Sauerstoff, bitte Einzelzimmer';
const OVERLAP_MS = 4_000;

interface Subscription {
  id: string;
  secret: string;
  payload: string;
  heartbeatSeconds: number | null;
  previousSecretExpiresAt: string | null;
}

describe('subscription options through the whole stack', () => {
  let stack: E2eStack;
  let referrer: string;
  let clinic: string;
  const receiver = new WebhookReceiver();
  let subscription: Subscription;
  const suffix = randomUUID().slice(0, 8);

  beforeAll(async () => {
    stack = await startE2eStack({ WEBHOOK_HEARTBEAT_MIN: '1s', WEBHOOK_HEARTBEAT_CHECK_INTERVAL: '250ms', WEBHOOK_SECRET_OVERLAP: `${OVERLAP_MS}ms` });
    await stack.registerClinic(CLINIC_IK, 'Rehaklinik Options', ['2300']);
    await stack.createReferrer(`options-hospital-${suffix}`, [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    await stack.createClinicUser(`options-clinic-${suffix}`, CLINIC_IK);
    referrer = await stack.login(`options-hospital-${suffix}`);
    clinic = await stack.login(`options-clinic-${suffix}`);
    const created = await stack.api<Subscription>('POST', '/api/v1/subscriptions', {
      token: referrer,
      body: { eventType: 'AdmissionResponse', callbackUrl: await receiver.start(), payload: 'id-only' },
    });
    expect(created.status).toBe(201);
    subscription = created.body;
    receiver.secret = subscription.secret;
  }, 180_000);

  afterAll(async () => {
    await receiver.stop();
    await stack?.stop();
  });

  const events = () => receiver.received.filter((webhook) => webhook.body.type === 'AdmissionResponse');
  const heartbeats = () => receiver.received.filter((webhook) => webhook.body.type === 'Heartbeat');
  const put = (body: Record<string, unknown>) =>
    stack.api<Subscription>('PUT', `/api/v1/subscriptions/${subscription.id}`, { token: referrer, body: { callbackUrl: receiver.url, ...body } });

  /** A request to the clinic, answered `query` with NOTE; resolves with the Task's id. */
  async function answeredRequest(): Promise<string> {
    const requestIdentifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    expect(
      (await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: admissionRequestBundle({ requestIdentifier, performerIks: [CLINIC_IK] }) }))
        .status,
    ).toBe(202);
    const taskId = await waitFor(
      async () =>
        (
          await stack.api<{ entry?: { resource: { id: string } }[] }>(
            'GET',
            `/api/v2/fhir/Task?based-on=${encodeURIComponent(requestIdentifier)}&owner=${CLINIC_IK}`,
            { token: referrer },
          )
        ).body.entry?.[0]?.resource.id,
      { what: "the clinic's Task" },
    );
    const answer = await stack.api('POST', `/api/v1/clinic/tasks/${taskId}/answer`, { token: clinic, body: { businessStatus: 'query', note: NOTE } });
    expect(answer.status).toBe(200);
    return taskId;
  }

  it('sends an id-only subscription the Task without its note; the receiver reads the Task with its own token; events?since= answers alike', async () => {
    expect(subscription).toMatchObject({ payload: 'id-only', heartbeatSeconds: null, previousSecretExpiresAt: null });
    const taskId = await answeredRequest();
    const webhook = await waitFor(() => events()[0], { what: 'the id-only webhook' });

    expect(webhook.verified).toBe(true);
    expect(webhook.body).toMatchObject({ type: 'AdmissionResponse', sequence: 1 });
    expect(Object.keys(webhook.body.data as object).sort()).toEqual(['basedOn', 'businessStatus', 'id', 'lastModified', 'owner', 'resourceType']);
    expect(webhook.body.data).toMatchObject({ id: taskId, owner: { identifier: { value: CLINIC_IK } }, businessStatus: { coding: [{ code: 'query' }] } });
    expect(JSON.stringify(webhook.body)).not.toContain('Sauerstoff');
    expect(() => openApiContract().checkWebhook('AdmissionResponse', webhook.headers, webhook.body)).not.toThrow();
    const task = await stack.api<{ note?: { text: string }[] }>('GET', `/api/v2/fhir/Task/${taskId}`, { token: referrer });
    expect(task.body.note?.map((note) => note.text)).toContain(NOTE);
    const since = await stack.api<{ items: unknown[] }>('GET', `/api/v1/subscriptions/${subscription.id}/events?since=0`, { token: referrer });
    expect(since.body.items).toEqual([webhook.body]);

    // A PUT without payload keeps it; the GET shows it.
    expect((await put({})).body.payload).toBe('id-only');
    expect((await stack.api<Subscription>('GET', `/api/v1/subscriptions/${subscription.id}`, { token: referrer })).body.payload).toBe('id-only');
  });

  it('sends signed heartbeats with the latest sequence number to a quiet subscription, and none once turned off', async () => {
    const on = await put({ heartbeatSeconds: 1 });
    expect([on.status, on.body.heartbeatSeconds]).toEqual([200, 1]);
    const heartbeat = await waitFor(() => heartbeats()[0], { what: 'a heartbeat' });

    expect(heartbeat.verified).toBe(true);
    expect(heartbeat.body).toEqual({
      id: heartbeat.id,
      type: 'Heartbeat',
      timestamp: expect.any(String),
      data: { subscriptionId: subscription.id, eventType: 'AdmissionResponse', lastSequence: 1 },
    });
    expect(() => openApiContract().checkWebhook('Heartbeat', heartbeat.headers, heartbeat.body)).not.toThrow();
    expect(() => openApiContract().checkWebhook('Heartbeat', heartbeat.headers, { ...heartbeat.body, sequence: 2 })).toThrow(
      /additional properties \(sequence\)/,
    );
    expect(
      await stack.api('PUT', `/api/v1/subscriptions/${subscription.id}`, { token: referrer, body: { callbackUrl: receiver.url, heartbeatSeconds: 0 } }),
    ).toMatchObject({ status: 400, body: { error: 'invalid_request' } });

    const off = await put({ heartbeatSeconds: null });
    expect(off.body.heartbeatSeconds).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 500));
    const count = heartbeats().length;
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    expect(heartbeats()).toHaveLength(count);
  });

  it('rotates the secret: the answer has the new one, webhooks carry both signatures (new first) until previousSecretExpiresAt, then the new one alone', async () => {
    const rotated = await stack.api<Subscription>('POST', `/api/v1/subscriptions/${subscription.id}/rotate-secret`, { token: referrer });
    expect(rotated.status).toBe(200);
    expect(rotated.body.secret).not.toBe(subscription.secret);
    expect(Date.parse(rotated.body.previousSecretExpiresAt!)).toBeGreaterThan(Date.now());
    // The receiver still verifies with the old secret: every webhook of the overlap carries its signature too.
    const before = events().length;
    await answeredRequest();
    const during = await waitFor(() => events()[before], { what: 'the webhook during the overlap' });
    expect(during.verified).toBe(true);
    expect(() => openApiContract().checkWebhook('AdmissionResponse', during.headers, during.body)).not.toThrow();
    expect(
      signaturesOf(during).map((signature) => [verifies(during, rotated.body.secret, signature), verifies(during, subscription.secret, signature)]),
    ).toEqual([
      [true, false],
      [false, true],
    ]);

    await waitFor(
      async () => (await stack.api<Subscription>('GET', `/api/v1/subscriptions/${subscription.id}`, { token: referrer })).body.previousSecretExpiresAt === null,
      { what: 'the end of the overlap', timeoutMs: OVERLAP_MS + 5_000 },
    );
    await answeredRequest();
    const after = await waitFor(() => events()[before + 1], { what: 'the webhook after the overlap' });
    expect(after.verified).toBe(false);
    expect(signaturesOf(after).map((signature) => verifies(after, rotated.body.secret, signature))).toEqual([true]);
  });
});

function signaturesOf(webhook: ReceivedWebhook): string[] {
  return String(webhook.headers['webhook-signature']).split(' ');
}

/** The one signature checked with the secret, over the body as received (re-serialised: the notifier sends JSON.stringify's text). */
function verifies(webhook: ReceivedWebhook, secret: string, signature: string): boolean {
  try {
    new Webhook(secret).verify(JSON.stringify(webhook.body), { ...(webhook.headers as Record<string, string>), 'webhook-signature': signature });
    return true;
  } catch {
    return false;
  }
}
