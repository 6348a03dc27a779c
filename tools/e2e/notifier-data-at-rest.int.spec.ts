// Encryption at rest in the services that keep webhooks (notifier) and the clinic registry
// (routing), end to end: the whole stack in-process, driven through the gateway, then the two
// schemas dumped with pg_dump as a copy of the database would hold them. (Intake's schema is
// intake's own test.)
import { randomUUID } from 'node:crypto';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { WebhookReceiver, testEnvironment, waitFor } from '@bedrequest/testing';
import { dumpSchemas, formsOf } from '../../apps/notifier/src/testing/schema-dump';
import { startTestStack, type TestStack } from './stack-harness';

const CLINIC = '510000201';

describe('webhook data at rest, through the gateway', () => {
  let stack: TestStack;
  let referrer: string;
  let clinic: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    stack = await startTestStack();
    await stack.registerClinic(CLINIC, 'Reha-Zentrum Lindenhof', ['2300']);
    await stack.createReferrer('hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    await stack.createClinicUser('lindenhof', CLINIC);
    referrer = await stack.login('hospital');
    clinic = await stack.login('lindenhof');
    await receiver.start();
  }, 120_000);

  afterAll(async () => {
    await receiver.stop();
    await stack?.stop();
  });

  it('keeps neither the webhook secret nor the Task\'s notes in clear in the notifier\'s and routing\'s schemas, and still delivers and serves them', async () => {
    const subscription = await stack.api<{ id: string; secret: string }>('POST', '/api/v1/subscriptions', { token: referrer, body: { eventType: 'AdmissionResponse', callbackUrl: receiver.url } });
    expect(subscription.status).toBe(201);
    receiver.secret = subscription.body.secret;

    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const bundle = admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC], notes: ['Z. n. Hüft-TEP rechts, Mobilisation an Unterarmgehstützen'] });
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: bundle, contentType: 'application/fhir+json' })).status).toBe(202);
    const tasks = await waitFor(async () => {
      const search = await stack.api<{ entry?: { resource: { id: string } }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: referrer });
      return search.body.entry?.length ? search.body.entry : undefined;
    }, { what: 'the Task' });
    const note = `Aufnahme am Montag möglich; Patientin bitte mit aktuellem Röntgenbild und Medikationsplan (${randomUUID()})`;
    const answer = await stack.api('POST', `/api/v1/clinic/tasks/${tasks[0]!.resource.id}/answer`, { token: clinic, body: { businessStatus: 'accepted', note } });
    expect(answer.status).toBe(200);

    // Delivered, signed with the secret, with the note: the notifier opens what it sealed.
    const [webhook] = await waitFor(() => receiver.accepted().length > 0 && receiver.accepted(), { timeoutMs: 15_000, what: 'the webhook' });
    expect(webhook!.verified).toBe(true);
    expect(JSON.stringify(webhook!.body.data)).toContain(JSON.stringify(note));
    const events = await stack.api<{ items: { id: string; data: unknown }[] }>('GET', `/api/v1/subscriptions/${subscription.body.id}/events?since=0`, { token: referrer });
    expect(events.body.items.map((event) => [event.id, JSON.stringify(event.data).includes(JSON.stringify(note))])).toEqual([[webhook!.id, true]]);
    expect((await stack.api<{ secret: string }>('GET', `/api/v1/subscriptions/${subscription.body.id}`, { token: referrer })).body.secret).toBe(subscription.body.secret);

    const dump = await dumpSchemas(testEnvironment().databaseUrl, [stack.env.NOTIFIER_DB_SCHEMA!, stack.env.ROUTING_DB_SCHEMA!]);
    expect(dump).toContain(webhook!.id);
    const secrets = [subscription.body.secret, subscription.body.secret.slice('whsec_'.length), note, 'Röntgenbild', 'Hüft-TEP', 'Musterfrau', '1956-01-01', '+49 30 1234567'];
    for (const secret of secrets) {
      for (const form of formsOf(secret)) expect({ form, found: dump.includes(form) }).toEqual({ form, found: false });
    }
  });
});
