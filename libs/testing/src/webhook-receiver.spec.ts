import { randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { WebhookBody } from '@bedrequest/contracts';
import { WebhookReceiver, requestOf } from './webhook-receiver';

const SECRET = `whsec_${Buffer.from('a test secret of 32 bytes length').toString('base64')}`;

function webhookFor(request: string, sequence = 1): { body: WebhookBody; raw: string } {
  const body: WebhookBody = {
    id: randomUUID(),
    type: 'AdmissionResponse',
    timestamp: new Date().toISOString(),
    sequence,
    data: { basedOn: [{ identifier: { value: request } }] },
  };
  return { body, raw: JSON.stringify(body) };
}

async function send(url: string, webhook: { body: WebhookBody; raw: string }, secret = SECRET): Promise<Response> {
  const now = new Date();
  return fetch(url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      'webhook-id': webhook.body.id,
      'webhook-timestamp': String(Math.floor(now.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(webhook.body.id, now, webhook.raw),
    },
    body: webhook.raw,
  });
}

describe('WebhookReceiver', () => {
  let receiver: WebhookReceiver;
  let url: string;

  beforeEach(async () => {
    receiver = new WebhookReceiver();
    receiver.secret = SECRET;
    url = await receiver.start();
  });
  afterEach(() => receiver.stop());

  it('records each webhook with its signature checked, its attempt number and the status it answered', async () => {
    const webhook = webhookFor('request-1');
    receiver.answer = (received) => (received.id === webhook.body.id && received.attempt === 1 ? { status: 503 } : { status: 204 });

    expect((await send(url, webhook)).status).toBe(503);
    expect((await send(url, webhook)).status).toBe(204);
    expect((await send(url, webhookFor('request-2'), `whsec_${Buffer.from('another secret, not the one').toString('base64')}`)).status).toBe(204);

    expect(receiver.received.map(({ id, attempt, verified, status }) => ({ id, attempt, verified, status }))).toEqual([
      { id: webhook.body.id, attempt: 1, verified: true, status: 503 },
      { id: webhook.body.id, attempt: 2, verified: true, status: 204 },
      { id: expect.any(String), attempt: 1, verified: false, status: 204 },
    ]);
    expect(receiver.accepted()).toHaveLength(2);
    expect(receiver.attemptsOf(webhook.body.id).map((received) => received.body)).toEqual([webhook.body, webhook.body]);
    expect(requestOf(receiver.received[2]!.body)).toBe('request-2');
  });

  it('answers 400 to a request that is not a webhook (a readiness probe) and records nothing', async () => {
    const probe = await fetch(new URL('/health/ready', url));
    const notJson = await fetch(url, { method: 'POST', headers: { 'webhook-id': randomUUID() }, body: 'not json' });

    expect([probe.status, notJson.status]).toEqual([400, 400]);
    expect(receiver.received).toEqual([]);
  });

  it('listens below the ephemeral port range, and comes back on the same port after an outage', async () => {
    const port = Number(new URL(url).port);
    expect(port).toBeLessThan(32_768);

    await receiver.stop();
    await expect(send(url, webhookFor('request-1'))).rejects.toThrow();
    expect(await receiver.start()).toBe(url);

    expect((await send(url, webhookFor('request-1'))).status).toBe(204);
  });

  it('tells the most answers under way at once for one request, and forgets everything on reset', async () => {
    // Every answer waits until all three have arrived: both of 'same' are under way at once.
    let arrivals = 0;
    let allArrived!: () => void;
    const heldUntil = new Promise<void>((resolve) => (allArrived = resolve));
    receiver.answer = () => {
      if (++arrivals === 3) allArrived();
      return { status: 200, heldUntil };
    };
    await Promise.all([send(url, webhookFor('same')), send(url, webhookFor('same')), send(url, webhookFor('other'))]);
    expect(receiver.maxInFlightPerRequest).toBe(2);

    receiver.reset();
    const again = webhookFor('same');
    await send(url, again);
    expect(receiver.received).toHaveLength(1);
    expect(receiver.maxInFlightPerRequest).toBe(1);
  });
});
