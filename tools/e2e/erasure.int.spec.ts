// Erasure of a request's patient data at the referrer's demand (docs/api.md, "Erasure";
// docs/data-protection.md, "Retention and erasure"), end to end: the whole stack in-process on a
// database of its own, driven through the gateway, then, once every service followed, the whole
// database dumped with pg_dump.
import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { WebhookReceiver, dumpDatabase, formsOf, ownDatabase, waitFor, type OwnDatabase } from '@bedrequest/testing';
import { runPatientFlow } from './patient-flow';
import { startE2eStack, type E2eStack } from './e2e-stack';

const CLINIC = '510000301';

interface TaskSearch {
  total?: number;
  entry?: { resource: { id: string; status: string; businessStatus?: unknown; note?: unknown } }[];
}

describe('erasure at the referrer’s demand, through the gateway', () => {
  let database: OwnDatabase;
  let stack: E2eStack;
  let referrer: string;
  let otherReferrer: string;
  let clinic: string;
  let pool: Pool;
  const receiver = new WebhookReceiver();

  beforeAll(async () => {
    database = await ownDatabase('erasure');
    // Retries every 2 s: the webhook refused before the erasure is due again within the test, unless
    // the erasure gave it up.
    stack = await startE2eStack({ DATABASE_URL: database.url, WEBHOOK_RETRY_SCHEDULE: Array(20).fill('2s').join(',') });
    await stack.registerClinic(CLINIC, 'Reha-Klinik Am Forst', ['2300']);
    await stack.createReferrer('hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    await stack.createReferrer('other-hospital', ['260000009'], 'https://other.example/fhir');
    await stack.createClinicUser('forst', CLINIC);
    referrer = await stack.login('hospital');
    otherReferrer = await stack.login('other-hospital');
    clinic = await stack.login('forst');
    pool = new Pool({ connectionString: database.url, max: 1 });
    await receiver.start();
  }, 120_000);

  afterAll(async () => {
    await pool?.end();
    await receiver.stop();
    await stack?.stop();
    await database?.drop();
  });

  const taskSearch = (identifier: string) => stack.api<TaskSearch>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: referrer });
  const erase = (identifier: string, token = referrer) =>
    stack.api<{ issue: { severity: string; diagnostics: string }[] }>('DELETE', `/api/v2/fhir/ServiceRequest?identifier=${encodeURIComponent(identifier)}`, {
      token,
    });

  it('erases the patient data from every service, answers the tombstone, and is idempotent', async () => {
    const schema = stack.env.INTAKE_DB_SCHEMA!;
    // The referrer's webhook refuses for now: the clinic's answer stays a pending event.
    receiver.answer = () => ({ status: 503 });
    const { identifier, taskId, subscription, note, secrets } = await runPatientFlow(stack, { referrer, clinic, clinicIk: CLINIC, receiver });

    // What intake sealed for the request: none of these values may be left in the schema.
    const sealed = (
      await pool.query<{ hex: string }>(
        `SELECT encode(v, 'hex') AS hex FROM (
           SELECT sealed_bundle AS v FROM "${schema}".request_version WHERE request_id = r.id UNION ALL SELECT sealed_summary FROM "${schema}".request_version WHERE request_id = r.id
           UNION ALL SELECT sealed_bundle FROM "${schema}".request_document WHERE request_id = r.id UNION ALL SELECT sealed_notes FROM "${schema}".clinic_task WHERE request_id = r.id
           UNION ALL SELECT sealed_verdict FROM "${schema}".inbox_message WHERE request_identifier = r.identifier) s
         WHERE v IS NOT NULL`
          .replaceAll('request_id = r.id', `request_id = (SELECT id FROM "${schema}".admission_request WHERE identifier = $1)`)
          .replace('request_identifier = r.identifier', 'request_identifier = $1'),
        [identifier],
      )
    ).rows.map((row) => row.hex);
    expect(sealed.length).toBeGreaterThanOrEqual(6);
    expect(JSON.stringify((await taskSearch(identifier)).body)).toContain(JSON.stringify(note));

    // Another referrer does not find it; nothing changes.
    expect((await erase(identifier, otherReferrer)).status).toBe(404);
    expect((await taskSearch(identifier)).body.entry?.[0]?.resource.note).toBeDefined();

    const [refused] = await waitFor(() => receiver.received.length > 0 && receiver.received, { timeoutMs: 15_000, what: 'the refused webhook' });
    const feed = () =>
      stack.api<{ items: { id: string; data: { note?: unknown } }[] }>('GET', `/api/v1/subscriptions/${subscription.id}/events?since=0`, { token: referrer });
    expect((await feed()).body.items.find((item) => item.id === refused!.id)?.data.note).toBeDefined();

    const erased = await erase(identifier);
    expect(erased.status).toBe(202);
    expect(erased.body.issue[0]).toMatchObject({ severity: 'information' });

    // The notifier follows: the event keeps its Task without the note, and is not sent any more.
    await waitFor(async () => (await feed()).body.items.find((item) => item.id === refused!.id)?.data.note === undefined, {
      timeoutMs: 15_000,
      what: 'the notifier’s erasure',
    });
    // The receiver would take it now, but it does not come again, by schedule or by a manual retry:
    // the notifier attempts only a pending delivery whose next attempt has come and that no attempt
    // under way holds (its claim rule), and this one is none of those, nor made so by the retry.
    receiver.answer = () => ({ status: 204 });
    const retry = await stack.api<{ error: string }>('POST', `/api/v1/subscriptions/${subscription.id}/deliveries/${refused!.id}/retry`, { token: referrer });
    expect([retry.status, retry.body.error]).toEqual([409, 'conflict']);
    const { rows: delivery } = await pool.query<{ status: string; next_attempt_at: Date | null; leased_until: Date | null }>(
      `SELECT status, next_attempt_at, leased_until FROM "${stack.env.NOTIFIER_DB_SCHEMA!}".delivery WHERE event_id = $1`,
      [refused!.id],
    );
    expect(delivery).toEqual([{ status: 'withheld', next_attempt_at: null, leased_until: null }]);
    // The delivery log says why it was not sent.
    const withheld = await stack.api<{ items: { eventId: string; withheld: { reason: string } | null }[] }>(
      'GET',
      `/api/v1/subscriptions/${subscription.id}/deliveries?status=withheld`,
      { token: referrer },
    );
    expect(withheld.body.items.map((item) => [item.eventId, item.withheld?.reason])).toEqual([[refused!.id, 'request-erased']]);
    expect(receiver.accepted().filter((webhook) => webhook.id === refused!.id)).toEqual([]);
    // Routing follows too: it records the erasure, keeps no bed held for the request, and its
    // notification log keeps neither department nor date of it.
    const routing = stack.env.ROUTING_DB_SCHEMA!;
    await waitFor(async () => (await pool.query(`SELECT 1 FROM "${routing}".request_erasure WHERE request_identifier = $1`, [identifier])).rowCount === 1, {
      timeoutMs: 15_000,
      what: 'routing’s erasure',
    });
    expect((await pool.query(`SELECT 1 FROM "${routing}".bed_hold WHERE request_identifier = $1`, [identifier])).rowCount).toBe(0);
    expect(
      (
        await pool.query(
          `SELECT 1 FROM "${routing}".clinic_notification WHERE request_identifier = $1 AND (department_code IS NOT NULL OR admission_date IS NOT NULL)`,
          [identifier],
        )
      ).rowCount,
    ).toBe(0);

    // Nothing of the patient is left anywhere in the database: not in clear, not sealed.
    const dump = await dumpDatabase(database.url);
    expect(dump).toContain(identifier);
    for (const value of sealed) expect({ sealedValueLeft: dump.includes(value.slice(0, 200)) }).toEqual({ sealedValueLeft: false });
    for (const text of secrets) {
      for (const form of formsOf(text)) expect({ form, found: dump.includes(form) }).toEqual({ form, found: false });
    }

    // The tombstone: the Task is still searched and read, with its states, without the notes.
    const tombstone = await taskSearch(identifier);
    expect(tombstone.status).toBe(200);
    expect(tombstone.body.entry?.map((entry) => [entry.resource.id, entry.resource.status, entry.resource.note])).toEqual([[taskId, 'in-progress', undefined]]);
    expect((await stack.api('GET', `/api/v2/fhir/Task/${taskId}`, { token: clinic })).status).toBe(200);
    // The clinic lists it as erased; what it read of the request is gone (410, saying since when).
    const list = await stack.api<{ items: { id: string; erasedAt?: string; patient: unknown; request: unknown; mainDiagnosis?: unknown }[] }>(
      'GET',
      '/api/v1/clinic/tasks',
      { token: clinic },
    );
    const row = list.body.items.find((item) => item.id === taskId);
    expect(row).toMatchObject({ erasedAt: expect.any(String), patient: { dataLevel: 'erased' }, request: { status: 'active', intent: 'order' } });
    expect(row?.mainDiagnosis).toBeUndefined();
    for (const read of ['bundle', 'documents', 'versions']) {
      const gone = await stack.api<{ error: string; message: string }>('GET', `/api/v1/clinic/tasks/${taskId}/${read}`, { token: clinic });
      expect([read, gone.status, gone.body.error]).toEqual([read, 410, 'gone']);
      expect(gone.body.message).toContain(row!.erasedAt!);
    }

    // The erasure is in the audit trail.
    const audit = await stack.api<{ entry?: { resource: { subtype: { code: string }[] } }[] }>(
      'GET',
      `/api/v2/fhir/AuditEvent?entity=${encodeURIComponent(identifier)}`,
      { token: referrer },
    );
    expect(audit.body.entry?.filter((entry) => entry.resource.subtype[0]?.code === 'delete')).toHaveLength(1);

    // Idempotent; a bundle for the erased request is refused.
    const again = await erase(identifier);
    expect(again.status).toBe(202);
    const more = await stack.api('POST', '/api/v2/fhir/Bundle', {
      token: referrer,
      body: admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC], notes: ['noch ein Befund'] }),
      contentType: 'application/fhir+json',
    });
    expect(more.status).toBe(409);
  }, 60_000);

  it('refuses a missing identifier and an unknown request', async () => {
    expect((await stack.api('DELETE', '/api/v2/fhir/ServiceRequest', { token: referrer })).status).toBe(400);
    expect((await erase(`${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`)).status).toBe(404);
    expect((await erase(`${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`, clinic)).status).toBe(403);
  });
});
