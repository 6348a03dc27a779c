// Encryption at rest in every service (docs/data-protection.md, "Encryption at rest"), end to end:
// the whole stack in-process on a database of its own, driven through the gateway (request,
// documents, an answer with a note, the selection with full data, a signed webhook), then the whole
// database dumped with pg_dump, as a copy of it would hold the data.
import { FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { WebhookReceiver, dumpDatabase, formsOf, ownDatabase, waitFor, type OwnDatabase } from '@bedrequest/testing';
import { runPatientFlow } from './patient-flow';
import { startE2eStack, type E2eStack } from './e2e-stack';

const CLINIC = '510000201';

describe('patient data at rest, through the gateway', () => {
  let database: OwnDatabase;
  let stack: E2eStack;
  let referrer: string;
  let clinic: string;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    database = await ownDatabase('at_rest');
    stack = await startE2eStack({ DATABASE_URL: database.url });
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
    const flow = await runPatientFlow(stack, { referrer, clinic, clinicIk: CLINIC, receiver });

    // Delivered, signed with the secret, with the note: the notifier opens what it sealed.
    const [webhook] = await waitFor(() => receiver.accepted().length > 0 && receiver.accepted(), { timeoutMs: 15_000, what: 'the webhook' });
    expect(webhook!.verified).toBe(true);
    expect(JSON.stringify(webhook!.body.data)).toContain(JSON.stringify(flow.note));
    const events = await stack.api<{ items: { id: string; data: unknown }[] }>('GET', `/api/v1/subscriptions/${flow.subscription.id}/events?since=0`, {
      token: referrer,
    });
    expect(events.body.items.map((event) => [event.id, JSON.stringify(event.data).includes(JSON.stringify(flow.note))])).toEqual([[webhook!.id, true]]);
    expect((await stack.api<{ secret: string }>('GET', `/api/v1/subscriptions/${flow.subscription.id}`, { token: referrer })).body.secret).toBe(
      flow.subscription.secret,
    );
    // What intake sealed still opens for the clinic: the complete bundle and the document.
    const sent = await stack.api<{ items: { version: number; bundle: unknown }[] }>('GET', `/api/v1/clinic/tasks/${flow.taskId}/versions`, { token: clinic });
    expect(sent.status).toBe(200);
    expect(JSON.stringify(sent.body.items.at(-1)!.bundle)).toContain('Musterfrau');
    const documents = await stack.api('GET', `/api/v1/clinic/tasks/${flow.taskId}/documents`, { token: clinic });
    expect(JSON.stringify(documents.body)).toContain(Buffer.from(flow.letter).toString('base64'));
    const list = await stack.api<{ items: { id: string; patient: { dataLevel: string; gender?: string } }[] }>('GET', '/api/v1/clinic/tasks', {
      token: clinic,
    });
    expect(list.body.items.find((item) => item.id === flow.taskId)?.patient).toMatchObject({ dataLevel: 'complete', gender: 'female' });

    const dump = await dumpDatabase(database.url);
    // Every service's schema is in it (each keeps its own), with the rows of this flow.
    for (const schema of [stack.env.AUTH_DB_SCHEMA!, stack.env.INTAKE_DB_SCHEMA!, stack.env.NOTIFIER_DB_SCHEMA!, stack.env.ROUTING_DB_SCHEMA!]) {
      expect(dump).toContain(`CREATE SCHEMA ${schema};`);
    }
    expect(dump).toContain(webhook!.id);
    // The searchable fields stay in clear: the request's identifier is in intake's schema.
    expect(dump).toContain(flow.identifier);
    for (const secret of flow.secrets) {
      for (const form of formsOf(secret)) expect({ form, found: dump.includes(form) }).toEqual({ form, found: false });
    }
  });
});
