// The CapabilityStatement as a FHIR client meets it first (docs/api.md, "Capabilities"), against
// the whole stack in-process (tools/e2e/stack-harness.ts): fetched without a token, then every
// promise in it is tried on the running service (the token endpoints it names, the Task search
// parameters it lists, a bundle of each profile it supports, the profiles and code systems it
// refers to). End-to-end tests live outside the apps, so no app imports another.
import { randomUUID } from 'node:crypto';
import type { Bundle, CapabilityStatement, CapabilityStatementRestResource, CodeSystem, OperationOutcome, StructureDefinition } from '@medplum/fhirtypes';
import { admissionRequestBundle, documentBundle, FIXTURE_FHIR_BASE, FIXTURE_PERFORMER_IKS, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { expectValidFhir, waitFor } from '@bedrequest/testing';
import { passwordOf, startE2eStack, type ApiResponse, type E2eStack } from './e2e-stack';

/** A profile base of this test's own: the configured PROFILE_BASE must shape every canonical URL. */
const PROFILE_BASE = 'https://conformance-e2e.example';

/**
 * A value each Task search parameter takes. A parameter the statement lists without a value here
 * fails the test: add one, so that the running search is asked with it.
 */
const EXAMPLE_VALUES: Record<string, string> = {
  'based-on': `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`,
  owner: FIXTURE_PERFORMER_IKS[0],
  'business-status': 'accepted',
  status: 'requested',
  _lastUpdated: 'ge2026-01-01',
  overdue: 'true',
  _count: '10',
  _total: 'none',
  _summary: 'count',
  _elements: 'status',
};

const lastSegment = (url: string) => url.slice(url.lastIndexOf('/') + 1);
const FHIR_JSON = /^application\/fhir\+json(;|$)/;

describe('the CapabilityStatement, and what it promises, on the running service', () => {
  let stack: E2eStack;
  let statement: CapabilityStatement;
  let referrer: string;

  const fhir = <T>(path: string, token?: string) => stack.api<T>('GET', `/api/v2/fhir${path}`, token ? { token } : {});
  const resourceOf = (type: string): CapabilityStatementRestResource => {
    const found = statement.rest?.[0]?.resource?.find((resource) => resource.type === type);
    if (!found) throw new Error(`the statement lists no ${type}`);
    return found;
  };
  const expectFhirAnswer = (res: ApiResponse, status: number, what: string) => {
    expect({ what, status: res.status }).toEqual({ what, status });
    expect(res.headers.get('content-type')).toMatch(FHIR_JSON);
    expectValidFhir(res.body, what);
  };

  beforeAll(async () => {
    stack = await startE2eStack({ PROFILE_BASE });
    for (const ik of FIXTURE_PERFORMER_IKS) await stack.registerClinic(ik, `Klinik ${ik}`, ['2300']);
    await stack.createReferrer('conformance-hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    const res = await fhir<CapabilityStatement>('/metadata');
    expectFhirAnswer(res, 200, 'GET /api/v2/fhir/metadata without a token');
    statement = res.body;
    referrer = await stack.login('conformance-hospital');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('describes this server: FHIR 4.0.1 in JSON, at the base it was reached at', () => {
    expect(statement).toMatchObject({
      resourceType: 'CapabilityStatement',
      status: 'active',
      kind: 'instance',
      fhirVersion: '4.0.1',
      format: ['application/fhir+json', 'json'],
      implementation: { url: `${stack.gatewayUrl}/api/v2/fhir` },
      software: { version: expect.stringMatching(/\S/) },
    });
    expect(statement.rest?.[0]?.mode).toBe('server');
  });

  it('names the token endpoints a client then logs in and renews its token at, and the token the FHIR endpoints then take', async () => {
    const security = statement.rest?.[0]?.security;
    expect(security?.service?.[0]?.coding?.[0]).toMatchObject({ system: 'http://terminology.hl7.org/CodeSystem/restful-security-service', code: 'OAuth' });
    const [login, refresh] = [...(security?.description ?? '').matchAll(/`POST (\/[^`\s]+)`/g)].map((match) => match[1] ?? '');
    expect([login, refresh]).toEqual(['/api/v1/token/login', '/api/v1/token/refresh']);

    const loggedIn = await stack.api<{ accessToken: string; refreshToken: string }>('POST', login ?? '', {
      body: { username: 'conformance-hospital', password: passwordOf('conformance-hospital') },
    });
    expect(loggedIn.status).toBe(200);
    const renewed = await stack.api<{ tokenType: string; accessToken: string }>('POST', refresh ?? '', { body: { refreshToken: loggedIn.body.refreshToken } });
    expect(renewed.status).toBe(200);
    expect(renewed.body.tokenType).toBe('Bearer');

    // What the security section says: the FHIR endpoints need the bearer token, metadata does not.
    expectFhirAnswer(await fhir('/Task'), 401, 'GET /Task without a token');
    expectFhirAnswer(await fhir('/Task', renewed.body.accessToken), 200, 'GET /Task with the renewed token');
  });

  it('every Task search parameter it lists is one the running search takes', async () => {
    const listed = (resourceOf('Task').searchParam ?? []).map((parameter) => parameter.name);
    expect(listed).toEqual(expect.arrayContaining(['based-on', 'owner', 'business-status', 'status', '_lastUpdated', '_count']));
    for (const name of listed) {
      const value = EXAMPLE_VALUES[name];
      if (value === undefined) throw new Error(`no example value for the listed search parameter ${name}: add one to EXAMPLE_VALUES`);
      const res = await fhir<Bundle>(`/Task?${new URLSearchParams({ [name]: value })}`, referrer);
      expectFhirAnswer(res, 200, `GET /Task?${name}=${value}`);
      expect(res.body.type).toBe('searchset');
    }
    // And one it does not list is refused, naming it.
    const unlisted = await fhir<OperationOutcome>('/Task?subject=Patient/1', referrer);
    expectFhirAnswer(unlisted, 400, 'GET /Task?subject=...');
    expect(unlisted.body.issue?.[0]?.expression).toEqual(['subject']);
  });

  it('the Bundle intake accepts a bundle of each profile it supports', async () => {
    const requestIdentifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const examples = [
      admissionRequestBundle({ profileBase: PROFILE_BASE, requestIdentifier }),
      documentBundle({ profileBase: PROFILE_BASE, requestIdentifier }),
    ];
    const supported = resourceOf('Bundle').supportedProfile ?? [];
    expect(supported).toEqual([`${PROFILE_BASE}/fhir/StructureDefinition/AdmissionRequestBundle`, `${PROFILE_BASE}/fhir/StructureDefinition/DocumentBundle`]);
    expect(resourceOf('Bundle').interaction?.map((interaction) => interaction.code)).toEqual(['create']);

    for (const profile of supported) {
      const example = examples.find((bundle) => bundle.meta?.profile?.includes(profile));
      if (!example) throw new Error(`no example bundle claims ${profile}`);
      const res = await stack.api<OperationOutcome>('POST', '/api/v2/fhir/Bundle', { token: referrer, body: example });
      expectFhirAnswer(res, 202, `POST /Bundle claiming ${profile}`);
      // A document belongs to a request intake knows: wait until the request's Tasks show.
      await waitFor(async () => ((await fhir<Bundle>(`/Task?based-on=${encodeURIComponent(requestIdentifier)}`, referrer)).body.total ?? 0) > 0, {
        what: 'the Tasks of the request',
      });
    }
  });

  it('the ServiceRequest search it lists reads back a request of the referrer, and the delete erases it, by identifier', async () => {
    const serviceRequest = resourceOf('ServiceRequest');
    expect(serviceRequest.interaction?.map((interaction) => interaction.code)).toEqual(['delete', 'search-type']);
    expect(serviceRequest.conditionalDelete).toBe('single');
    const requestIdentifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    expectFhirAnswer(
      await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: admissionRequestBundle({ profileBase: PROFILE_BASE, requestIdentifier }) }),
      202,
      'POST /Bundle',
    );
    await waitFor(async () => ((await fhir<Bundle>(`/Task?based-on=${encodeURIComponent(requestIdentifier)}`, referrer)).body.total ?? 0) > 0, {
      what: 'the Tasks of the request',
    });

    const readBack = await fhir<Bundle>(`/ServiceRequest?${new URLSearchParams({ identifier: requestIdentifier })}`, referrer);
    expectFhirAnswer(readBack, 200, 'GET /ServiceRequest?identifier=...');
    expect(readBack.body.total).toBe(1);
    const erase = (identifier: string) =>
      stack.api<OperationOutcome>('DELETE', `/api/v2/fhir/ServiceRequest?${new URLSearchParams({ identifier })}`, { token: referrer });
    const erased = await erase(requestIdentifier);
    expectFhirAnswer(erased, 202, 'DELETE /ServiceRequest?identifier=...');
    expect(erased.body.issue?.[0]?.severity).toBe('information');
    expectFhirAnswer(await erase(`${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`), 404, 'DELETE /ServiceRequest of an unknown identifier');
    // The tombstone: the Tasks are still searched.
    expectFhirAnswer(await fhir(`/Task?based-on=${encodeURIComponent(requestIdentifier)}`, referrer), 200, 'GET /Task of the erased request');
  });

  it('every profile and code system it refers to is served at its canonical id, without a token', async () => {
    const profiles = resourceOf('Bundle').supportedProfile ?? [];
    for (const url of profiles) {
      const res = await fhir<StructureDefinition>(`/StructureDefinition/${lastSegment(url)}`);
      expectFhirAnswer(res, 200, `GET /StructureDefinition/${lastSegment(url)}`);
      expect(res.body).toMatchObject({ url, type: 'Bundle', derivation: 'constraint' });
    }

    const codeSystems = await fhir<Bundle>('/CodeSystem');
    expectFhirAnswer(codeSystems, 200, 'GET /CodeSystem');
    const urls = (codeSystems.body.entry ?? []).map((entry) => (entry.resource as CodeSystem).url ?? '');
    expect(urls.map(lastSegment).sort()).toEqual(['admission-response-status', 'bedrequest-service-type', 'order-detail-type', 'specialty']);
    for (const url of urls) {
      expect(url.startsWith(`${PROFILE_BASE}/fhir/CodeSystem/`)).toBe(true);
      expect(resourceOf('CodeSystem').documentation).toContain(url);
      const res = await fhir<CodeSystem>(`/CodeSystem/${lastSegment(url)}`);
      expectFhirAnswer(res, 200, `GET /CodeSystem/${lastSegment(url)}`);
      expect(res.body).toMatchObject({ url, status: 'active', content: 'complete' });
    }

    const structureDefinitions = await fhir<Bundle>('/StructureDefinition');
    expectFhirAnswer(structureDefinitions, 200, 'GET /StructureDefinition');
    // Beside the profiles, the extensions of "Answer deadlines" (docs/api.md), each at its canonical id too.
    const extensions = ['answer-deadline', 'answer-overdue', 'asked-by-rule'].map((id) => `${PROFILE_BASE}/fhir/StructureDefinition/${id}`);
    expect((structureDefinitions.body.entry ?? []).map((entry) => (entry.resource as StructureDefinition).url)).toEqual([...profiles, ...extensions]);
    expect(resourceOf('StructureDefinition').documentation).toContain(extensions[0]);
    for (const url of extensions) {
      const res = await fhir<StructureDefinition>(`/StructureDefinition/${lastSegment(url)}`);
      expectFhirAnswer(res, 200, `GET /StructureDefinition/${lastSegment(url)}`);
      expect(res.body).toMatchObject({ url, type: 'Extension', derivation: 'constraint' });
    }
  });

  it('an unknown conformance resource is 404 with an OperationOutcome', async () => {
    const res = await fhir<OperationOutcome>('/CodeSystem/icd-10-gm');
    expectFhirAnswer(res, 404, 'GET /CodeSystem/icd-10-gm');
    expect(res.body.issue?.[0]?.code).toBe('not-found');
  });
});
