import { createHmac } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import { IdOnlyTask, idOnlyTask } from '@bedrequest/contracts';
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

describe('signedWebhook during a rotation overlap', () => {
  const previous = `whsec_${Buffer.from('fedcba9876543210fedcba9876543210').toString('base64')}`;
  const stranger = `whsec_${Buffer.from('another secret of 24 bytes!').toString('base64')}`;
  const attemptTime = new Date();
  const { body, headers } = signedWebhook(event, [secret, previous], attemptTime);

  it('carries one signature per secret, space-separated, the current one first', () => {
    const one = (key: string) => signedWebhook(event, key, attemptTime).headers['webhook-signature'];
    expect(headers['webhook-signature']).toBe(`${one(secret)} ${one(previous)}`);
  });

  it('verifies with either secret (standardwebhooks accepts any one signature), not with another', () => {
    expect(new Webhook(secret).verify(body, headers)).toEqual(JSON.parse(body));
    expect(new Webhook(previous).verify(body, headers)).toEqual(JSON.parse(body));
    expect(() => new Webhook(stranger).verify(body, headers)).toThrow();
  });
});

describe('idOnlyTask', () => {
  it('keeps id, basedOn, owner, businessStatus and lastModified of the Task, nothing of its notes or other content', () => {
    const task = {
      resourceType: 'Task',
      id: '0e6f3a52-41c9-4d7b-a0f8-5d2c9e1b7a33',
      meta: { lastUpdated: '2025-03-06T12:00:00.100Z' },
      status: 'on-hold',
      intent: 'order',
      basedOn: [{ identifier: { system: 'urn:ietf:rfc:3986', value: 'https://hospital.example/fhir/ServiceRequest/1' }, display: 'x' }],
      owner: { identifier: { system: 'http://fhir.de/sid/arge-ik/iknr', value: '510000001' } },
      requester: { identifier: { system: 'http://fhir.de/sid/arge-ik/iknr', value: '260000001' } },
      authoredOn: '2025-03-06T11:00:00.000Z',
      lastModified: '2025-03-06T12:00:00.100Z',
      businessStatus: { coding: [{ system: 'https://bedrequest.example.org/fhir/CodeSystem/admission-response-status', code: 'query', display: 'Rückfrage' }] },
      note: [{ text: 'Allergie gegen Penicillin', time: '2025-03-06T12:00:00.100Z' }],
      restriction: { period: { end: '2025-03-07T10:00:00.000Z' } },
    };

    expect(IdOnlyTask.parse(idOnlyTask(task))).toEqual({
      resourceType: 'Task',
      id: task.id,
      basedOn: [{ identifier: task.basedOn[0]!.identifier }],
      owner: task.owner,
      businessStatus: task.businessStatus,
      lastModified: task.lastModified,
    });
    expect(Object.keys(idOnlyTask({ ...task, businessStatus: undefined }))).not.toContain('businessStatus');
  });
});
