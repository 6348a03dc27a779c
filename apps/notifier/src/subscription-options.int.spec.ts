import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { HeartbeatWebhook, IdOnlyTask } from '@bedrequest/contracts';
import { WebhookReceiver, waitFor } from '@bedrequest/testing';
import { requestIdentifier } from './testing/notifier-test-kit';
import { notifierUnderTest } from './testing/notifier-under-test';
import type { SubscriptionView } from './subscriptions/subscription.service';

const OVERLAP_MS = 3_000;

/**
 * The subscription options of docs/webhooks.md against a notifier on the real RabbitMQ and
 * PostgreSQL: the id-only body form, heartbeats and the secret's rotation with its overlap. The
 * heartbeat minimum and the overlap are short here so that the test sees them pass.
 */
describe('subscription options: payload form, heartbeats, secret rotation', () => {
  const notifier = notifierUnderTest({
    WEBHOOK_HEARTBEAT_MIN: '1s',
    WEBHOOK_HEARTBEAT_CHECK_INTERVAL: '200ms',
    WEBHOOK_SECRET_OVERLAP: `${OVERLAP_MS}ms`,
  });
  let receiver: WebhookReceiver;
  beforeEach(async () => {
    receiver = new WebhookReceiver();
    await receiver.start();
  });
  afterEach(() => receiver.stop());

  const subscribe = async (options: Record<string, unknown> = {}) => {
    const party = `referrer-${randomUUID()}`;
    const { status, body } = await notifier.api.call<SubscriptionView>(party, 'POST', '', {
      eventType: 'AdmissionResponse',
      callbackUrl: receiver.url,
      ...options,
    });
    expect(status).toBe(201);
    receiver.secret = body.secret;
    return { party, subscription: body };
  };

  it('sends an id-only subscription the Task without notes, answers events?since= alike, keeps the form on a PUT without payload', async () => {
    const { party, subscription } = await subscribe({ payload: 'id-only' });
    expect(subscription).toMatchObject({ payload: 'id-only', heartbeatSeconds: null, previousSecretExpiresAt: null });
    const identifier = requestIdentifier();

    const eventId = await notifier.publish({ partyId: party, requestIdentifier: identifier, notes: ['Patientin hat eine Penicillinallergie'] });
    await waitFor(() => receiver.accepted().length === 1, { what: 'the id-only webhook' });

    const [webhook] = receiver.accepted();
    expect(webhook!.verified).toBe(true);
    expect(webhook!.body).toEqual({ id: eventId, type: 'AdmissionResponse', timestamp: expect.any(String), sequence: 1, data: expect.any(Object) });
    const task = IdOnlyTask.parse(webhook!.body.data);
    expect(task.basedOn[0]!.identifier.value).toBe(identifier);
    expect(task.businessStatus?.coding[0]?.code).toBe('accepted');
    expect(JSON.stringify(webhook!.body)).not.toContain('Penicillin');
    expect((await notifier.api.eventsSince(party, subscription.id, 0)).body.items).toEqual([webhook!.body]);

    const kept = await notifier.api.call<SubscriptionView>(party, 'PUT', `/${subscription.id}`, { callbackUrl: receiver.url });
    expect(kept.body.payload).toBe('id-only');
    const full = await notifier.api.call<SubscriptionView>(party, 'PUT', `/${subscription.id}`, { callbackUrl: receiver.url, payload: 'full' });
    expect(full.body).toMatchObject({ id: subscription.id, secret: subscription.secret, payload: 'full' });
    await notifier.publish({ partyId: party, requestIdentifier: identifier, notes: ['Zweite Notiz'] });
    await waitFor(() => receiver.accepted().length === 2, { what: 'the full webhook' });
    expect((receiver.accepted()[1]!.body.data as { note: { text: string }[] }).note[0]!.text).toBe('Zweite Notiz');
    // Gap recovery answers in the subscription's form as it is now: both events in full.
    expect((await notifier.api.eventsSince(party, subscription.id, 0)).body.items.map((item) => 'note' in (item.data as object))).toEqual([true, true]);
  });

  it('sends signed heartbeats with the latest sequence number while nothing is delivered; none once turned off', async () => {
    const { party, subscription } = await subscribe({ heartbeatSeconds: 1 });
    expect(subscription.heartbeatSeconds).toBe(1);
    await waitFor(() => receiver.accepted().length >= 1, { what: 'a heartbeat', timeoutMs: 5_000 });
    const [first] = receiver.accepted();
    expect(first!.verified).toBe(true);
    expect(HeartbeatWebhook.parse(first!.body)).toEqual({
      id: first!.id,
      type: 'Heartbeat',
      timestamp: expect.any(String),
      data: { subscriptionId: subscription.id, eventType: 'AdmissionResponse', lastSequence: 0 },
    });

    await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });
    await waitFor(
      () => receiver.accepted().some((webhook) => webhook.body.type === 'Heartbeat' && (webhook.body.data as { lastSequence: number }).lastSequence === 1),
      {
        what: 'a heartbeat after the event',
        timeoutMs: 5_000,
      },
    );
    const types = receiver.accepted().map((webhook) => webhook.body.type);
    expect(types.indexOf('AdmissionResponse')).toBeGreaterThan(0);
    // A heartbeat is no event: the delivery log and gap recovery hold the one event only.
    expect((await notifier.api.eventsSince(party, subscription.id, 0)).body.items.map((item) => item.sequence)).toEqual([1]);
    expect(await notifier.api.deliveries(party, subscription.id)).toHaveLength(1);

    const off = await notifier.api.call<SubscriptionView>(party, 'PUT', `/${subscription.id}`, { callbackUrl: receiver.url, heartbeatSeconds: null });
    expect(off.body.heartbeatSeconds).toBeNull();
    await new Promise((resolve) => setTimeout(resolve, 300));
    const count = receiver.received.length;
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    expect(receiver.received.length).toBe(count);
  });

  it.each([[0], [0.5], [86_401], ['60']])('refuses heartbeatSeconds %j with 400', async (heartbeatSeconds) => {
    const { status, body } = await notifier.api.call(`referrer-${randomUUID()}`, 'POST', '', {
      eventType: 'AdmissionResponse',
      callbackUrl: receiver.url,
      heartbeatSeconds,
    });
    expect([status, (body as { error: string }).error]).toEqual([400, 'invalid_request']);
  });

  it('rotates the secret: both signatures (new first) during the overlap, shown by GET; then the new one alone', async () => {
    const { party, subscription } = await subscribe();
    const rotated = await notifier.api.call<SubscriptionView>(party, 'POST', `/${subscription.id}/rotate-secret`);
    expect(rotated.status).toBe(200);
    expect(rotated.body).toMatchObject({ id: subscription.id, previousSecretExpiresAt: expect.any(String) });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    expect(rotated.body.secret).not.toBe(subscription.secret);
    const until = Date.parse(rotated.body.previousSecretExpiresAt!);
    expect(Math.abs(until - (Date.now() + OVERLAP_MS))).toBeLessThan(1_000);
    expect(await notifier.api.get(party, subscription.id)).toEqual(rotated.body);

    await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });
    await waitFor(() => receiver.received.length === 1, { what: 'the webhook during the overlap' });
    const during = receiver.received[0]!;
    const signatures = String(during.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    const raw = JSON.stringify(during.body);
    const verifies = (secret: string, signature: string) => {
      try {
        new Webhook(secret).verify(raw, { ...(during.headers as Record<string, string>), 'webhook-signature': signature });
        return true;
      } catch {
        return false;
      }
    };
    expect([verifies(rotated.body.secret, signatures[0]!), verifies(subscription.secret, signatures[1]!)]).toEqual([true, true]);

    await waitFor(async () => (await notifier.api.get(party, subscription.id)).previousSecretExpiresAt === null, {
      what: 'the end of the overlap',
      timeoutMs: OVERLAP_MS + 3_000,
    });
    await notifier.publish({ partyId: party, requestIdentifier: requestIdentifier() });
    await waitFor(() => receiver.received.length === 2, { what: 'the webhook after the overlap' });
    const after = String(receiver.received[1]!.headers['webhook-signature']).split(' ');
    expect(after).toHaveLength(1);
    receiver.secret = rotated.body.secret;
    expect((await notifier.api.call(`referrer-${randomUUID()}`, 'POST', `/${subscription.id}/rotate-secret`)).status).toBe(404);
  });
});
