import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { signedWebhook } from './webhook-message';

const secret = `whsec_${Buffer.from('0123456789abcdef0123456789abcdef').toString('base64')}`;
const event = {
  id: '5f3c1a9e-2b7d-4c1e-9a53-8e2f1d6b7c40',
  type: 'AdmissionResponse',
  occurredAt: new Date('2025-03-01T12:00:00.123Z'),
  sequence: 7,
  data: { resourceType: 'Task', id: 'task-1' },
};

describe('signedWebhook', () => {
  const attemptTime = new Date();
  const { body, headers } = signedWebhook(event, secret, attemptTime);

  it('sends the body of docs/decisions.md with the event id as webhook-id', () => {
    expect(JSON.parse(body)).toEqual({ id: event.id, type: 'AdmissionResponse', timestamp: '2025-03-01T12:00:00.123Z', sequence: 7, data: event.data });
    expect(headers).toMatchObject({
      'content-type': 'application/json',
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(attemptTime.getTime() / 1000)),
    });
  });

  it('signs so that the standardwebhooks library verifies it with the subscription secret', () => {
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
  });

  it('signs "{id}.{timestamp}.{body}" with HMAC-SHA256 keyed with the decoded secret (the raw recipe of docs/webhooks.md)', () => {
    const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
    const expected = createHmac('sha256', key).update(`${headers['webhook-id']}.${headers['webhook-timestamp']}.${body}`).digest('base64');
    expect(headers['webhook-signature']).toBe(`v1,${expected}`);
  });

  it('fails verification with another secret or a changed body', () => {
    expect(() => new Webhook(`whsec_${Buffer.from('another secret of 24 bytes!').toString('base64')}`).verify(body, headers)).toThrow();
    expect(() => new Webhook(secret).verify(body.replace('task-1', 'task-2'), headers)).toThrow();
  });
});
