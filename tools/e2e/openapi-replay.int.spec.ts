// The OpenAPI document against the running service (docs/api.md), through the whole stack
// in-process (tools/e2e/stack-harness.ts). Every call of every end-to-end test is checked against
// the document by callApi (openapi-contract.ts); this file shows that the check fails on what the
// document does not declare, calls every documented operation once (OPTIONS and HEAD included), and
// checks a delivered webhook against the document's `webhooks` section. End-to-end tests live
// outside the apps, so no app imports another.
import { randomUUID } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { admissionRequestBundle, documentBundle, FIXTURE_FHIR_BASE, FIXTURE_PERFORMER_IKS, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { WebhookReceiver, waitFor } from '@bedrequest/testing';
import { openApiDocument, type OpenApiDocument } from '../../apps/gateway/src/openapi/openapi-document';
import { fetchExchange, type ApiCallOptions } from './api-client';
import { OpenApiContract, openApiContract } from './openapi-contract';
import { clientAssertion, clientTokenForm, testClientKey } from './client-assertion';
import { clinicDay } from './clinic-day';
import { passwordOf, startE2eStack, type E2eStack } from './e2e-stack';

const CLINIC_IK = FIXTURE_PERFORMER_IKS[0];
const METHODS = ['get', 'head', 'post', 'put', 'delete', 'patch', 'options'] as const;

/** A copy of the document to break on purpose: the check must then refuse what the service answers. */
const tamperedDocument = (): OpenApiDocument => openApiDocument({ serverUrl: 'http://gateway.invalid' });
type Schemas = Record<string, { properties?: Record<string, unknown>; required?: string[] }>;

describe('the OpenAPI document, replayed against the running service', () => {
  let stack: E2eStack;
  let referrer: string;
  let clinic: string;
  let refreshToken: string;
  const receiver = new WebhookReceiver();
  let subscriptionId: string;
  let taskId: string;
  let requestIdentifier: string;

  const api = (method: string, path: string, options: ApiCallOptions = {}) => stack.api<Record<string, unknown>>(method, path, options);
  const suffix = randomUUID().slice(0, 8);

  beforeAll(async () => {
    stack = await startE2eStack();
    for (const ik of FIXTURE_PERFORMER_IKS) await stack.registerClinic(ik, `Rehaklinik ${ik}`, ['2300']);
    await stack.createReferrer(`replay-hospital-${suffix}`, [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    await stack.createClinicUser(`replay-clinic-${suffix}`, CLINIC_IK);
    const login = await api('POST', '/api/v1/token/login', {
      body: { username: `replay-hospital-${suffix}`, password: passwordOf(`replay-hospital-${suffix}`) },
    });
    referrer = String(login.body.accessToken);
    refreshToken = String(login.body.refreshToken);
    clinic = await stack.login(`replay-clinic-${suffix}`);

    const subscription = await api('POST', '/api/v1/subscriptions', {
      token: referrer,
      body: { eventType: 'AdmissionResponse', callbackUrl: await receiver.start() },
    });
    expect(subscription.status).toBe(201);
    subscriptionId = String(subscription.body.id);
    receiver.secret = String(subscription.body.secret);

    requestIdentifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    expect((await api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: admissionRequestBundle({ requestIdentifier }) })).status).toBe(202);
    expect(
      (await api('POST', '/api/v2/fhir/Bundle', { token: referrer, contentType: 'application/json', body: documentBundle({ requestIdentifier }) })).status,
    ).toBe(202);
    taskId = await waitFor(
      async () => {
        const search = await stack.api<{ entry?: { resource: { id: string; owner: { identifier: { value: string } } } }[] }>(
          'GET',
          `/api/v2/fhir/Task?based-on=${encodeURIComponent(requestIdentifier)}&owner=${CLINIC_IK}`,
          { token: referrer },
        );
        return search.body.entry?.[0]?.resource.id;
      },
      { what: "the clinic's Task" },
    );
    expect(
      (await api('POST', `/api/v1/clinic/tasks/${taskId}/answer`, { token: clinic, body: { businessStatus: 'query', note: 'Bitte Befund nachreichen' } }))
        .status,
    ).toBe(200);
    await waitFor(() => receiver.accepted().length > 0, { what: 'the AdmissionResponse webhook' });
  }, 180_000);

  afterAll(async () => {
    await receiver.stop();
    await stack?.stop();
  });

  describe('the check', () => {
    it('fails on a status the document does not declare for the operation', async () => {
      const document = tamperedDocument();
      delete document.paths!['/api/v2/fhir/Task/{id}']!.get!.responses!['404'];
      const unknownTask = await fetchExchange(stack.gatewayUrl, 'GET', `/api/v2/fhir/Task/${randomUUID()}`, { token: referrer });

      expect(unknownTask.status).toBe(404);
      expect(() => new OpenApiContract(document).check(unknownTask)).toThrow(
        /declares no 404 for GET \/api\/v2\/fhir\/Task\/\{id\} \(it declares 200, 400, 401, 403, 405, 406, 429, 503\)/,
      );
      expect(() => openApiContract().check(unknownTask)).not.toThrow();
    });

    it('fails on a body of another shape: a field the document does not list, a value of another type, another content type', async () => {
      const index = await fetchExchange(stack.gatewayUrl, 'GET', '/');
      const unlisted = tamperedDocument();
      const schemas = unlisted.components!.schemas as Schemas;
      delete schemas['ServiceIndex']!.properties!['documentation'];
      schemas['ServiceIndex']!.required = schemas['ServiceIndex']!.required!.filter((name) => name !== 'documentation');
      const retyped = tamperedDocument();
      (retyped.components!.schemas as Schemas)['ServiceIndex']!.properties!['version'] = { type: 'integer' };
      const otherType = tamperedDocument();
      const answer = otherType.paths!['/']!.get!.responses!['200'] as { content: Record<string, unknown> };
      answer.content = { 'application/fhir+json': answer.content['application/json'] };

      expect(() => new OpenApiContract(unlisted).check(index)).toThrow(/must NOT have additional properties \(documentation\)/);
      expect(() => new OpenApiContract(retyped).check(index)).toThrow(/\/version must be integer/);
      expect(() => new OpenApiContract(otherType).check(index)).toThrow(/the content type application\/json is not declared/);
      expect(() => openApiContract().check(index)).not.toThrow();
    });

    it('fails on a missing header the document requires, an undocumented path and a method the path does not take', async () => {
      const document = tamperedDocument();
      const accepted = document.paths!['/api/v2/fhir/Bundle']!.post!.responses!['202'] as { headers: Record<string, unknown> };
      accepted.headers['X-Never-Sent'] = { required: true, schema: { type: 'string' } };
      const bundle = await fetchExchange(stack.gatewayUrl, 'POST', '/api/v2/fhir/Bundle', {
        token: referrer,
        body: admissionRequestBundle({ requestIdentifier }),
      });
      expect(bundle.status).toBe(202);
      expect(() => new OpenApiContract(document).check(bundle)).toThrow(/the header X-Never-Sent the document requires is missing/);

      const undocumented = tamperedDocument();
      delete undocumented.paths!['/api/v1/kliniken'];
      const clinics = await fetchExchange(stack.gatewayUrl, 'GET', '/api/v1/kliniken', { token: referrer });
      expect(() => new OpenApiContract(undocumented).check(clinics)).toThrow(
        /no path of the document matches \/api\/v1\/kliniken, so only 401, 403, 404, 429 may answer it/,
      );

      const without405 = tamperedDocument();
      const clinicList = without405.paths!['/api/v1/kliniken']!;
      for (const operation of [clinicList.get, clinicList.head]) delete operation!.responses!['405'];
      const deletion = await fetchExchange(stack.gatewayUrl, 'DELETE', '/api/v1/kliniken', { token: referrer });
      expect(deletion.status).toBe(405);
      expect(() => new OpenApiContract(without405).check(deletion)).toThrow(
        /\/api\/v1\/kliniken has no DELETE operation: only a 405 its operations declare may answer it/,
      );
      expect(() => openApiContract().check(deletion)).not.toThrow();
    });
  });

  describe('every documented operation', () => {
    /** The document's paths with their parameters filled in with what this stack has. */
    const filled = (template: string) =>
      template
        .replace('{taskId}', taskId)
        .replace('/documents/{n}', '/documents/0')
        .replace('/api/v2/fhir/Task/{id}', `/api/v2/fhir/Task/${taskId}`)
        .replace('/StructureDefinition/{id}', '/StructureDefinition/AdmissionRequestBundle')
        .replace('/CodeSystem/{id}', '/CodeSystem/specialty')
        .replace('{id}', subscriptionId);
    const tokenFor = (path: string) => (path.startsWith('/api/v1/clinic/') ? clinic : referrer);
    const documented = () => Object.entries(openApiDocument({ serverUrl: 'http://gateway.invalid' }).paths ?? {});

    it('answers OPTIONS with 204 and exactly the methods the document lists for the path, without a token', async () => {
      for (const [template, item] of documented()) {
        const eventId = receiver.accepted()[0]!.id;
        const response = await api('OPTIONS', filled(template).replace('{eventId}', eventId));
        const listed = METHODS.filter((method) => method in item)
          .map((method) => method.toUpperCase())
          .sort()
          .join(', ');

        expect({ template, status: response.status, allow: response.headers.get('allow') }).toEqual({ template, status: 204, allow: listed });
      }
    });

    it('answers each documented GET, POST, PUT and DELETE with a success it declares', async () => {
      const eventId = receiver.accepted()[0]!.id;
      const today = clinicDay(0);
      const other = `replay-other-${suffix}`;
      await stack.createReferrer(other, [FIXTURE_REQUESTER_IK], 'https://other-hospital.example/fhir');
      const otherToken = await stack.login(other);
      const otherSubscription = await api('POST', '/api/v1/subscriptions', {
        token: otherToken,
        body: { eventType: 'AdmissionResponse', callbackUrl: receiver.url },
      });
      // The caller's second subscription, to the other event type (docs/webhooks.md, "AdmissionOverdue"):
      // its answers and its replay checked against the document like the first one's.
      const overdueSubscription = await api('POST', '/api/v1/subscriptions', {
        token: referrer,
        body: { eventType: 'AdmissionOverdue', callbackUrl: 'http://127.0.0.1:9/overdue' },
      });
      expect([overdueSubscription.status, overdueSubscription.body.eventType]).toEqual([201, 'AdmissionOverdue']);
      const overduePath = `/api/v1/subscriptions/${String(overdueSubscription.body.id)}`;
      // A party with an administrator, for its people's routes (docs/api.md, "Party and people").
      const team = await stack.createParty('clinic', 'Replay Team', [CLINIC_IK]);
      const administrator = `replay-admin-${suffix}`;
      await stack.admin('user', 'create', '--party', team, '--username', administrator, '--password', passwordOf(administrator), '--admin');
      const teamAdmin = await stack.login(administrator);
      const colleague = await stack.createPerson(team, `replay-colleague-${suffix}`);
      // A system client of the team, for the token endpoint of SMART Backend Services (docs/parties.md).
      const clientKey = testClientKey('ES384');
      const jwksFile = join(tmpdir(), `replay-jwks-${suffix}.json`);
      await writeFile(jwksFile, JSON.stringify({ keys: [clientKey.jwk] }));
      const clientId = (await stack.admin('client', 'create', '--party', team, '--name', 'Replay KIS', '--jwks-file', jwksFile)).split('\n')[0]!.trim();
      const discovery = await api('GET', '/api/v2/fhir/.well-known/smart-configuration', {});
      const tokenEndpoint = String(discovery.body.token_endpoint);
      // A draft of the hospital's own, for its routes by id (docs/api.md, "The hospital's own data").
      const draft = await api('POST', '/api/v1/referrer/drafts', { token: referrer, body: { label: 'Entwurf', content: { patient: { family: 'Muster' } } } });
      expect(draft.status).toBe(201);
      const draftPath = `/api/v1/referrer/drafts/${String(draft.body.id)}`;
      const calls: [string, string, ApiCallOptions][] = [
        ['GET', '/', {}],
        ['GET', '/api/openapi.json', {}],
        ['GET', '/api/v1/token/status', {}],
        ['POST', '/api/v1/token/refresh', { body: { refreshToken } }],
        ['POST', '/api/v1/token/revoke', { body: { refreshToken } }],
        ['GET', '/api/v1/kliniken', { token: clinic }],
        ['GET', '/api/v1/subscriptions', { token: referrer }],
        ['GET', `/api/v1/subscriptions/${subscriptionId}`, { token: referrer }],
        ['PUT', `/api/v1/subscriptions/${subscriptionId}`, { token: referrer, body: { callbackUrl: receiver.url } }],
        ['GET', `/api/v1/subscriptions/${subscriptionId}/deliveries?limit=10`, { token: referrer }],
        ['POST', `/api/v1/subscriptions/${subscriptionId}/deliveries/${eventId}/retry`, { token: referrer }],
        ['GET', `/api/v1/subscriptions/${subscriptionId}/events?since=0&limit=10`, { token: referrer }],
        ['GET', `${overduePath}/events?since=0`, { token: referrer }],
        // The other subscription's secret: the receiver above keeps verifying with its own.
        ['POST', `${overduePath}/rotate-secret`, { token: referrer }],
        ['POST', '/api/v1/subscriptions', { token: referrer, body: { eventType: 'AdmissionOverdue', callbackUrl: 'http://127.0.0.1:9/overdue' } }],
        ['DELETE', `/api/v1/subscriptions/${String(otherSubscription.body.id)}`, { token: otherToken }],
        ['GET', '/api/v1/clinic/tasks?state=new,answered&_count=5', { token: clinic }],
        ['GET', `/api/v1/clinic/tasks/${taskId}/versions?_sort=-version&_count=1`, { token: clinic }],
        ['GET', `/api/v1/clinic/tasks/${taskId}/bundle`, { token: clinic }],
        ['GET', `/api/v1/clinic/tasks/${taskId}/documents?_count=20&_offset=0`, { token: clinic }],
        ['GET', `/api/v1/clinic/tasks/${taskId}/documents/0`, { token: clinic }],
        ['GET', `/api/v1/clinic/tasks/${taskId}/history?_count=5`, { token: clinic }],
        ['GET', `/api/v1/clinic/tasks/${taskId}/referrer`, { token: clinic }],
        ['PUT', `/api/v1/clinic/tasks/${taskId}/assignee`, { token: clinic, body: {} }],
        ['GET', `/api/v1/clinic/tasks/${taskId}/workspace`, { token: clinic }],
        ['DELETE', `/api/v1/clinic/tasks/${taskId}/assignee`, { token: clinic }],
        ['POST', `/api/v1/clinic/tasks/${taskId}/internal-notes`, { token: clinic, body: { text: 'Rückruf beim Sozialdienst morgen' } }],
        ['GET', `/api/v1/clinic/tasks/${taskId}/internal-notes`, { token: clinic }],
        ['POST', `/api/v1/clinic/tasks/${taskId}/seen`, { token: clinic, body: { version: 1 } }],
        ['GET', `/api/v1/clinic/workspace?tasks=${taskId}`, { token: clinic }],
        ['PUT', '/api/v1/clinic/capacity', { token: clinic, body: { department: '2300', date: today, freeBeds: 2 } }],
        ['GET', `/api/v1/clinic/capacity?from=${today}&to=${today}`, { token: clinic }],
        ['PUT', '/api/v1/clinic/capacity/auto-answer', { token: clinic, body: { enabled: false } }],
        ['GET', '/api/v1/clinic/capacity/auto-answer', { token: clinic }],
        ['PUT', '/api/v1/clinic/capacity/visibility', { token: clinic, body: { shownToReferrers: true } }],
        ['GET', '/api/v1/clinic/capacity/visibility', { token: clinic }],
        ['GET', `/api/v1/kliniken/free-beds?date=${today}`, { token: referrer }],
        ['PUT', '/api/v1/referrer/case-numbers', { token: referrer, body: { identifier: requestIdentifier, caseNumber: 'FN-2026/0815' } }],
        ['POST', '/api/v1/referrer/case-numbers/_search', { token: referrer, body: { caseNumber: 'fn-2026/0815' } }],
        ['PUT', '/api/v1/referrer/ready-for-transfer', { token: referrer, body: { identifier: requestIdentifier, readyAt: '2026-12-01T09:15:00+01:00' } }],
        ['POST', '/api/v1/referrer/ready-for-transfer/_read', { token: referrer, body: { identifier: requestIdentifier } }],
        ['GET', '/api/v1/referrer/drafts', { token: referrer }],
        ['GET', '/api/v1/referrer/settings', { token: referrer }],
        ['PUT', '/api/v1/referrer/settings', { token: referrer, body: { answerDeadline: { workingDays: 2, holidays: 'DE-BW' } } }],
        ['GET', draftPath, { token: referrer }],
        ['PUT', draftPath, { token: referrer, body: { content: { patient: { family: 'Musterfrau' } } } }],
        ['DELETE', draftPath, { token: referrer }],
        ['GET', '/api/v1/party', { token: teamAdmin }],
        ['GET', '/api/v1/party/users', { token: teamAdmin }],
        ['PUT', '/api/v1/party/users/me/notifications', { token: teamAdmin, body: { email: false } }],
        ['GET', '/api/v1/party/users/me/notifications', { token: teamAdmin }],
        ['POST', '/api/v1/party/users', { token: teamAdmin, body: { username: `replay-added-${suffix}`, password: passwordOf(`replay-added-${suffix}`) } }],
        ['POST', `/api/v1/party/users/${colleague}/disable`, { token: teamAdmin }],
        ['GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(requestIdentifier)}&_count=1`, { token: clinic }],
        ['GET', `/api/v2/fhir/Task/${taskId}`, { token: referrer }],
        ['GET', `/api/v2/fhir/ServiceRequest?identifier=${encodeURIComponent(requestIdentifier)}`, { token: referrer }],
        ['GET', `/api/v2/fhir/AuditEvent?entity=${encodeURIComponent(requestIdentifier)}&_count=5`, { token: referrer }],
        ['GET', '/api/v2/fhir/metadata', {}],
        [
          'POST',
          '/api/v1/token/oauth2',
          { body: clientTokenForm(clientAssertion(clientId, tokenEndpoint, clientKey), 'system/Task.rs'), contentType: 'application/x-www-form-urlencoded' },
        ],
        ['GET', '/api/v2/fhir/StructureDefinition', {}],
        ['GET', '/api/v2/fhir/StructureDefinition/DocumentBundle', {}],
        ['GET', '/api/v2/fhir/CodeSystem', {}],
        ['GET', '/api/v2/fhir/CodeSystem/admission-response-status', {}],
      ];
      for (const [method, path, options] of calls) {
        const { status } = await api(method, path, options);
        expect({ method, path, status: status >= 200 && status < 300 }).toEqual({ method, path, status: true });
      }
      // The record for the payer, verified without a token (docs/api.md, "The record for the payer"): the CSV is text, sent back as it came.
      const record = await api('GET', `/api/v1/referrer/records/${taskId}?format=csv`, { token: referrer });
      expect([record.status, typeof record.body]).toEqual([200, 'string']);
      const verified = await api('POST', '/api/v1/records/verify', { body: String(record.body), contentType: 'application/octet-stream' });
      expect([verified.status, verified.body.valid]).toEqual([200, true]);
      // Only a selected clinic withdraws its acceptance (tools/e2e/clinic-withdraws-acceptance.int.spec.ts); this Task's is refused.
      const withdrawal = await api('POST', `/api/v1/clinic/tasks/${taskId}/withdraw-acceptance`, { token: clinic, body: { reason: 'Bett belegt' } });
      expect([withdrawal.status, withdrawal.body.error]).toEqual([409, 'conflict']);
      const documents = await api('GET', `/api/v1/clinic/tasks/${taskId}/documents`, { token: clinic });
      expect([(documents.body.items as unknown[]).length, documents.body.total, documents.body.next]).toEqual([1, 1, undefined]);
      // A request of its own to erase, so that the others stay for the tests after this one (404
      // until intake has stored it, should its verdict come after the POST's answer).
      const erasable = `${requestIdentifier}-erasable`;
      expect((await api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: admissionRequestBundle({ requestIdentifier: erasable }) })).status).toBe(202);
      await waitFor(
        async () =>
          (await api('DELETE', `/api/v2/fhir/ServiceRequest?identifier=${encodeURIComponent(erasable)}`, { token: referrer })).status === 202 || undefined,
        {
          what: 'the erasure of a request of its own',
        },
      );
    });

    it('answers HEAD wherever the document lists it, with GET’s status and no body', async () => {
      for (const [template, item] of documented()) {
        if (!('head' in item)) continue;
        const path = filled(template);
        const head = await api('HEAD', path, { token: tokenFor(path) });
        const get = await api('GET', path, { token: tokenFor(path) });
        expect({ template, head: head.status, body: head.body }).toEqual({ template, head: get.status, body: undefined });
      }
    });

    it('has been called once each at least (this file runs its tests in order)', () => {
      expect(openApiContract().unexercisedOperations()).toEqual([]);
    });
  });

  describe('the AdmissionResponse webhook', () => {
    it('comes as the document’s webhooks section describes it: the headers, and the body with its Task', () => {
      const [webhook] = receiver.accepted();

      expect(webhook?.verified).toBe(true);
      expect(() => openApiContract().checkWebhook('AdmissionResponse', webhook!.headers, webhook!.body)).not.toThrow();
      expect(webhook!.body).toMatchObject({ type: 'AdmissionResponse', sequence: 1, data: { resourceType: 'Task', id: taskId, status: 'on-hold' } });
    });

    it('matches the AdmissionOverdue webhook’s description too, with its own type only (its body differs in type alone)', () => {
      const [webhook] = receiver.accepted();
      const overdue = { ...webhook!.body, type: 'AdmissionOverdue' };

      expect(() => openApiContract().checkWebhook('AdmissionOverdue', webhook!.headers, overdue)).not.toThrow();
      expect(() => openApiContract().checkWebhook('AdmissionOverdue', webhook!.headers, webhook!.body)).toThrow(
        /\/type must be equal to one of the allowed values/,
      );
    });

    it('fails the check without a signature, or with a Task that is not one', () => {
      const [webhook] = receiver.accepted();
      const unsigned = { ...webhook!.headers };
      delete unsigned['webhook-signature'];
      const data = webhook!.body.data as Record<string, unknown>;

      expect(() => openApiContract().checkWebhook('AdmissionResponse', unsigned, webhook!.body)).toThrow(/the header webhook-signature is missing/);
      expect(() => openApiContract().checkWebhook('AdmissionResponse', webhook!.headers, { ...webhook!.body, data: { ...data, status: 'done' } })).toThrow(
        /\/data\/status must be equal to one of the allowed values/,
      );
    });
  });
});
