import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';
import { waitFor } from '@bedrequest/testing';
import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { callApi } from './api-client';
import { buildServices, launchStack, type Stack } from '@bedrequest/stack';

/**
 * The whole path as a hospital and two clinics use it, through the services as processes of their own
 * (from dist, as `npm start` runs them), with parties made by `npm run admin` as its own process:
 * gateway → broker → intake → PostgreSQL → Task search, and the clinic API.
 */
const FHIR_BASE = 'https://flow-hospital.example/fhir';
const REFERRER_IK = '261100001';
const A = '511100001';
const B = '511100002';

interface TaskEntry {
  resource: {
    id: string;
    status: string;
    owner: { identifier: { value: string } };
    businessStatus?: { coding: { code: string }[] };
    note?: { text: string }[];
  };
}
interface OperationOutcome {
  resourceType: 'OperationOutcome';
  issue: { severity: string; code: string; diagnostics: string; expression?: string[] }[];
}

describe('an admission request through HTTP, end to end', () => {
  let stack: Stack;
  let referrerToken: string;
  let clinicToken: Record<string, string>;
  const suffix = randomUUID().slice(0, 8);

  const call = <T>(method: string, path: string, token?: string, body?: unknown, contentType?: string) =>
    callApi<T>(stack.gatewayUrl, method, path, { token, body, contentType });
  const login = async (username: string) =>
    (await call<{ accessToken: string }>('POST', '/api/v1/token/login', undefined, { username, password: `${username}-password` })).body.accessToken;
  const tasksOf = async (identifier: string, token = referrerToken) => {
    const response = await call<{ total: number; entry?: TaskEntry[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, token);
    expect(response.status).toBe(200);
    return Object.fromEntries(
      (response.body.entry ?? []).map(({ resource }) => [
        resource.owner.identifier.value,
        { id: resource.id, status: resource.status, businessStatus: resource.businessStatus?.coding[0]?.code, notes: resource.note?.map((note) => note.text) },
      ]),
    );
  };
  const post = (bundle: object, token = referrerToken) => call<OperationOutcome>('POST', '/api/v2/fhir/Bundle', token, bundle);
  const answer = (clinicIk: string, taskId: string, businessStatus: string, note?: string) =>
    call<{ status: string }>('POST', `/api/v1/clinic/tasks/${taskId}/answer`, clinicToken[clinicIk], { businessStatus, ...(note ? { note } : {}) });

  beforeAll(async () => {
    buildServices();
    stack = await launchStack({ mode: 'processes', isolate: 'flow', output: 'capture', env: { LOG_LEVEL: 'info' } });
    await stack.admin('clinic', 'upsert', '--ik', A, '--name', 'Rehaklinik A', '--departments', '2300,0300');
    await stack.admin('clinic', 'upsert', '--ik', B, '--name', 'Rehaklinik B', '--departments', '2300');
    await stack.admin(
      'user',
      'create',
      '--role',
      'referrer',
      '--username',
      `flow-referrer-${suffix}`,
      '--password',
      `flow-referrer-${suffix}-password`,
      '--ik',
      REFERRER_IK,
      '--fhir-base',
      FHIR_BASE,
    );
    await stack.admin('user', 'create', '--role', 'clinic', '--username', `flow-a-${suffix}`, '--password', `flow-a-${suffix}-password`, '--ik', A);
    await stack.admin('user', 'create', '--role', 'clinic', '--username', `flow-b-${suffix}`, '--password', `flow-b-${suffix}-password`, '--ik', B);
    referrerToken = await login(`flow-referrer-${suffix}`);
    clinicToken = { [A]: await login(`flow-a-${suffix}`), [B]: await login(`flow-b-${suffix}`) };
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('is created, answered, supplemented, selected, withdrawn and revoked, visible as Tasks throughout', async () => {
    const identifier = `${FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const bundle = (options: Parameters<typeof admissionRequestBundle>[0] = {}) =>
      admissionRequestBundle({ fhirBase: FHIR_BASE, requestIdentifier: identifier, requesterIk: REFERRER_IK, performerIks: [A, B], ...options });

    const created = await post(bundle());
    expect(created.status).toBe(202);
    expect(created.headers.get('location')).toBe(`/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`);
    let tasks = await tasksOf(identifier);
    expect(tasks).toEqual({ [A]: expect.objectContaining({ status: 'requested' }), [B]: expect.objectContaining({ status: 'requested' }) });

    expect((await answer(A, tasks[A]!.id, 'query', 'Bitte Röntgenbefund nachreichen')).body).toMatchObject({ status: 'on-hold' });
    expect((await answer(B, tasks[B]!.id, 'accepted')).body).toMatchObject({ status: 'accepted' });
    tasks = await tasksOf(identifier);
    expect(tasks[A]).toMatchObject({ status: 'on-hold', businessStatus: 'query', notes: ['Bitte Röntgenbefund nachreichen'] });

    // Supplement: back to requested, keeping the last answers.
    expect((await post(bundle({ notes: ['Röntgenbefund anbei'] }))).status).toBe(202);
    tasks = await tasksOf(identifier);
    expect(tasks[A]).toMatchObject({ status: 'requested', businessStatus: 'query' });
    expect(tasks[B]).toMatchObject({ status: 'requested', businessStatus: 'accepted' });

    // Selecting A, which has not accepted: 409 with an OperationOutcome. B is selected.
    const refused = await post(bundle({ intent: 'order', orderDetail: 'selected-provider', performerIks: [A] }));
    expect(refused.status).toBe(409);
    expect(refused.body).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'conflict' }] });
    await answer(B, tasks[B]!.id, 'accepted');
    expect((await post(bundle({ intent: 'order', orderDetail: 'selected-provider', performerIks: [B] }))).status).toBe(202);
    tasks = await tasksOf(identifier);
    expect(tasks[A]).toMatchObject({ status: 'cancelled' });
    expect(tasks[B]).toMatchObject({ status: 'in-progress' });

    // Only the selected clinic receives the complete master data.
    const read = (clinicIk: string) =>
      call<{ entry: { resource: { resourceType: string; name?: { family?: string }[] } }[] }>(
        'GET',
        `/api/v1/clinic/tasks/${tasks[clinicIk]!.id}/bundle`,
        clinicToken[clinicIk],
      );
    const family = async (clinicIk: string) =>
      (await read(clinicIk)).body.entry.find((entry) => entry.resource.resourceType === 'Patient')!.resource.name?.[0]?.family;
    expect(await family(B)).toBe('Musterfrau');
    expect(await family(A)).toBeUndefined();
    expect((await answer(A, tasks[A]!.id, 'accepted')).status).toBe(409);

    // Withdrawal, then revocation; after that every bundle is refused.
    expect((await post(bundle({ intent: 'order', orderDetail: 'selected-provider-cancelled', performerIks: [B], patient: 'complete' }))).status).toBe(202);
    expect((await tasksOf(identifier))[B]).toMatchObject({ status: 'cancelled' });
    expect((await post(bundle({ status: 'revoked' }))).status).toBe(202);
    expect(Object.values(await tasksOf(identifier)).map((task) => task.status)).toEqual(['cancelled', 'cancelled']);
    expect((await post(bundle())).status).toBe(409);
  });

  it('shows each party only what is theirs', async () => {
    const identifier = `${FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    await post(admissionRequestBundle({ fhirBase: FHIR_BASE, requestIdentifier: identifier, requesterIk: REFERRER_IK, performerIks: [A] }));
    const taskId = (await tasksOf(identifier))[A]!.id;
    expect(Object.keys(await tasksOf(identifier, clinicToken[A]))).toEqual([A]);
    expect(await tasksOf(identifier, clinicToken[B])).toEqual({});
    expect((await call('GET', `/api/v2/fhir/Task/${taskId}`, clinicToken[B])).status).toBe(404);
    expect((await call('GET', `/api/v1/clinic/tasks/${taskId}/bundle`, clinicToken[B])).status).toBe(404);
    expect((await answer(B, taskId, 'accepted')).status).toBe(404);
    expect((await call('GET', `/api/v2/fhir/Task/${taskId}`, referrerToken)).status).toBe(200);
  });

  it('refuses what it must refuse, with the status and body docs/decisions.md names', async () => {
    const valid = admissionRequestBundle({ fhirBase: FHIR_BASE, requesterIk: REFERRER_IK, performerIks: [A] });
    expect((await post(valid, '')).status).toBe(401);
    expect((await call('POST', '/api/v2/fhir/Bundle', undefined, valid)).headers.get('www-authenticate')).toMatch(/^Bearer/);
    expect((await post(valid, clinicToken[A])).status).toBe(403);

    const foreign = await post(admissionRequestBundle({ fhirBase: 'https://other-hospital.example/fhir', requesterIk: REFERRER_IK, performerIks: [A] }));
    expect(foreign.status).toBe(403);
    expect(foreign.body.issue[0]).toMatchObject({ code: 'forbidden' });
    expect((await post(admissionRequestBundle({ fhirBase: FHIR_BASE, requesterIk: '269999999', performerIks: [A] }))).status).toBe(403);

    const invalid = JSON.parse(JSON.stringify(valid)) as { entry: { resource: { resourceType: string; status?: string } }[] };
    invalid.entry.find((entry) => entry.resource.resourceType === 'ServiceRequest')!.resource.status = 'paused';
    const badRequest = await post(invalid);
    expect(badRequest.status).toBe(400);
    expect(badRequest.body.issue[0]!.expression).toEqual(['Bundle.entry[0].resource.status']);

    const unknownClinic = await post(admissionRequestBundle({ fhirBase: FHIR_BASE, requesterIk: REFERRER_IK, performerIks: ['599999999'] }));
    expect(unknownClinic.status).toBe(400);
    expect(unknownClinic.body.issue[0]!.diagnostics).toContain('599999999');

    expect((await call('POST', '/api/v2/fhir/Bundle', referrerToken, '{"resourceType": "Bundle",')).status).toBe(400);
    expect((await call('POST', '/api/v2/fhir/Bundle', referrerToken, 'x', 'text/plain')).status).toBe(415);
    const huge = { ...valid, padding: 'x'.repeat(11 * 1024 * 1024) };
    const tooLarge = await call<OperationOutcome>('POST', '/api/v2/fhir/Bundle', referrerToken, huge);
    expect(tooLarge.status).toBe(413);
    expect(tooLarge.body.resourceType).toBe('OperationOutcome');
    expect((await call<OperationOutcome>('GET', '/api/v2/fhir/Task?color=blue', referrerToken)).status).toBe(400);

    // Unknown endpoints and unreadable bodies: 4xx in the format of their path.
    expect(await call('GET', '/api/v1/nothing-here', referrerToken)).toMatchObject({ status: 404, body: { error: 'not_found' } });
    expect(await call('GET', '/api/v2/fhir/Patient', referrerToken)).toMatchObject({ status: 404, body: { resourceType: 'OperationOutcome' } });
    const taskId = randomUUID();
    expect(await call('POST', `/api/v1/clinic/tasks/${taskId}/answer`, clinicToken[A], '{"businessStatus": ', 'application/json')).toMatchObject({
      status: 400,
      body: { error: 'invalid_request' },
    });
    expect((await call('POST', `/api/v1/clinic/tasks/${taskId}/answer`, clinicToken[A], { businessStatus: 'accepted', note: 'x'.repeat(4001) })).status).toBe(
      400,
    );

    // Hostile shapes are client errors, never server errors.
    const deep = `${'{"a":'.repeat(50_000)}1${'}'.repeat(50_000)}`;
    const prototypeKey = JSON.stringify(valid).replace('"resourceType":"Bundle"', '"resourceType":"Bundle","__proto__":{"polluted":true}');
    for (const body of [deep, prototypeKey, '[]', '"Bundle"', JSON.stringify({ ...valid, entry: 'many' })]) {
      const response = await call<OperationOutcome>('POST', '/api/v2/fhir/Bundle', referrerToken, body);
      expect({ body: body.slice(0, 40), status: response.status }).toEqual({ body: body.slice(0, 40), status: 400 });
      expect(response.body.resourceType).toBe('OperationOutcome');
    }
  });

  it('pushes each clinic answer to the referrer as a signed webhook, numbered for gap recovery', async () => {
    const received: { id: string; sequence: number; data: { status: string }; verified: boolean }[] = [];
    let secret = '';
    const receiver: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString();
        let verified = true;
        try {
          new Webhook(secret).verify(body, req.headers as Record<string, string>);
        } catch {
          verified = false;
        }
        received.push({ ...(JSON.parse(body) as { id: string; sequence: number; data: { status: string } }), verified });
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
    try {
      const callbackUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
      const subscription = await call<{ id: string; secret: string }>('POST', '/api/v1/subscriptions', referrerToken, {
        eventType: 'AdmissionResponse',
        callbackUrl,
      });
      expect([200, 201]).toContain(subscription.status);
      secret = subscription.body.secret;

      const identifier = `${FHIR_BASE}/ServiceRequest/${randomUUID()}`;
      await post(admissionRequestBundle({ fhirBase: FHIR_BASE, requestIdentifier: identifier, requesterIk: REFERRER_IK, performerIks: [A, B] }));
      const tasks = await tasksOf(identifier);
      await answer(A, tasks[A]!.id, 'declined', 'Keine Kapazität');
      await answer(B, tasks[B]!.id, 'accepted');

      await waitFor(() => received.length >= 2, { timeoutMs: 15_000, what: 'two webhooks' });
      expect(received.every((event) => event.verified)).toBe(true);
      expect(received.map((event) => event.data.status).sort()).toEqual(['accepted', 'rejected']);
      const [first, second] = received.map((event) => event.sequence).sort((x, y) => x - y);
      expect(second).toBe(first! + 1);

      // A receiver that missed events fetches them by sequence number.
      const missed = await call<{ items: { id: string }[] }>('GET', `/api/v1/subscriptions/${subscription.body.id}/events?since=${first! - 1}`, referrerToken);
      expect(missed.body.items.map((event) => event.id)).toEqual(expect.arrayContaining(received.map((event) => event.id)));
    } finally {
      await new Promise((resolve) => receiver.close(resolve));
    }
  });

  it('never writes patient data into the logs', async () => {
    // The flows above sent complete patient data (selection) and free text; none of it may appear.
    const logs = stack
      .instances()
      .map((instance) => instance.output())
      .join('\n');
    expect(logs).toContain('processed');
    for (const secret of ['Musterfrau', 'Erika', '1956-01-01', '+49 30 1234567', 'Röntgenbefund']) expect(logs).not.toContain(secret);
    // A refused bundle is logged once, with what an operator can act on: its issue codes and
    // FHIRPath expressions, never the values (the refused 'paused' status above).
    const refused = logs.split('\n').filter((line) => line.includes('request refused'));
    expect(refused.filter((line) => line.includes('"code":"code-invalid","expression":"Bundle.entry[0].resource.status"'))).toHaveLength(1);
    expect(refused.join('\n')).not.toContain('paused');
  });
});
