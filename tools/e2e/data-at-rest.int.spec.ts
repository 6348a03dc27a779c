// Encryption at rest in every service (issue 14, done means 1), end to end: the whole stack
// in-process on a database of its own, driven through the gateway (request, documents, an answer
// with a note, the selection with full data, a signed webhook), then the whole database dumped with
// pg_dump, as a copy of it would hold the data.
import { randomUUID } from 'node:crypto';
import { admissionRequestBundle, documentBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { WebhookReceiver, dumpDatabase, formsOf, ownDatabase, waitFor, type OwnDatabase } from '@bedrequest/testing';
import { startTestStack, type TestStack } from './stack-harness';

const CLINIC = '510000201';

describe('patient data at rest, through the gateway', () => {
  let database: OwnDatabase;
  let stack: TestStack;
  let referrer: string;
  let clinic: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    database = await ownDatabase('at_rest');
    stack = await startTestStack({ DATABASE_URL: database.url });
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
    await database?.drop();
  });

  it("keeps none of the patient's data, the documents, the notes or the webhook secret in clear anywhere in the database, and still delivers and serves them", async () => {
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


    // A document, then the selection with the patient's complete data: intake stores both.
    const letter = `Entlassbrief: Zustand nach Hüft-TEP, Wundheilung regelrecht (${randomUUID()})`;
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: documentBundle({ requestIdentifier: identifier, documents: [{ contentType: 'text/plain', text: letter }] }) })).status).toBe(202);
    const selection = admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC], orderDetail: 'selected-provider', patient: 'complete' });
    expect(JSON.stringify(selection)).toContain('Musterfrau');
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: selection, contentType: 'application/fhir+json' })).status).toBe(202);
    await waitFor(async () => {
      const search = await stack.api<{ entry?: { resource: { status: string } }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: referrer });
      return search.body.entry?.[0]?.resource.status === 'in-progress';
    }, { what: 'the selection' });
    // What intake sealed still opens for the clinic: the complete bundle and the document.
    const sent = await stack.api<{ items: { version: number; bundle: unknown }[] }>('GET', `/api/v1/clinic/tasks/${tasks[0]!.resource.id}/versions`, { token: clinic });
    expect(sent.status).toBe(200);
    expect(JSON.stringify(sent.body.items.at(-1)!.bundle)).toContain('Musterfrau');
    const list = await stack.api<{ items: { id: string; patient: { dataLevel: string; gender?: string } }[] }>('GET', '/api/v1/clinic/tasks', { token: clinic });
    expect(list.body.items.find((item) => item.id === tasks[0]!.resource.id)?.patient).toMatchObject({ dataLevel: 'complete', gender: 'female' });

    const dump = await dumpDatabase(database.url);
    // Every service's schema is in it (each keeps its own), with the rows of this flow.
    for (const schema of [stack.env.AUTH_DB_SCHEMA!, stack.env.INTAKE_DB_SCHEMA!, stack.env.NOTIFIER_DB_SCHEMA!, stack.env.ROUTING_DB_SCHEMA!]) expect(dump).toContain(`CREATE SCHEMA ${schema};`);
    expect(dump).toContain(webhook!.id);
    // The searchable fields stay in clear: the request's identifier is in intake's schema.
    expect(dump).toContain(identifier);
    const secrets = [
      subscription.body.secret,
      subscription.body.secret.slice('whsec_'.length),
      note,
      'Röntgenbild',
      'Hüft-TEP',
      'Z. n. Hüft-TEP rechts',
      letter,
      'Wundheilung regelrecht',
      'Musterfrau',
      'Erika',
      '1956-01-01',
      'Invalidenstraße 117',
      '+49 30 1234567',
      'Schenkelhalsfraktur',
      'Benigne essentielle Hypertonie',
    ];
    for (const secret of secrets) {
      for (const form of formsOf(secret)) expect({ form, found: dump.includes(form) }).toEqual({ form, found: false });
    }
  });
});
