import express from 'express';
import request from 'supertest';
import type { Bundle, CapabilityStatement, CodeSystem, OperationOutcome, StructureDefinition } from '@medplum/fhirtypes';
import { fhirSystems, TASK_SEARCH_PARAMETERS } from '@bedrequest/fhir-model';
import { expectValidFhir } from '@bedrequest/testing';
import { metadataRouter } from './metadata.router';

const PROFILE_BASE = 'https://profiles.example';
const systems = fhirSystems(PROFILE_BASE);

/**
 * The router as start.ts mounts it: at /api/v2/fhir, before a token guard, here a stand-in that
 * answers 401 to whatever reaches it.
 */
const app = express()
  .use('/api/v2/fhir', metadataRouter({ profileBase: PROFILE_BASE, version: '4.5.6', publicApiUrl: 'https://api.example.org/' }))
  .use('/api/v2/fhir', (_req, res) => {
    res.status(401).json({ guarded: true });
  });

const get = (path: string) => request(app).get(`/api/v2/fhir${path}`);
const lastSegment = (url: string) => url.slice(url.lastIndexOf('/') + 1);

describe('GET /api/v2/fhir/metadata', () => {
  it('answers the CapabilityStatement without a token, as application/fhir+json, valid FHIR R4', async () => {
    const res = await get('/metadata');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/fhir+json; charset=utf-8');
    const statement = res.body as CapabilityStatement;
    expectValidFhir(statement, 'GET /api/v2/fhir/metadata');
    expect(statement).toMatchObject({ resourceType: 'CapabilityStatement', kind: 'instance', fhirVersion: '4.0.1', software: { version: '4.5.6' } });
    expect(statement.implementation?.url).toBe(`${new URL(res.request.url).origin}/api/v2/fhir`);
    const task = statement.rest?.[0]?.resource?.find((resource) => resource.type === 'Task');
    expect(task?.searchParam?.map((parameter) => parameter.name)).toEqual(expect.arrayContaining(TASK_SEARCH_PARAMETERS.map(({ name }) => name)));
  });

  it('is the same statement on every call of one running server (its date is the start)', async () => {
    const [first, second] = await Promise.all([get('/metadata').set('host', 'fhir.example:8080'), get('/metadata').set('host', 'fhir.example:8080')]);
    expect(first.body.implementation.url).toBe('http://fhir.example:8080/api/v2/fhir');
    expect(second.body).toEqual(first.body);
  });

  it.each(['json', 'application/json', 'application/fhir+json', 'application/fhir%2Bjson', 'application/fhir+json;fhirVersion=4.0'])(
    'takes _format=%s',
    async (format) => {
      const res = await get(`/metadata?_format=${format}`);
      expect(res.status).toBe(200);
      expect(res.body.resourceType).toBe('CapabilityStatement');
    },
  );

  it('refuses another _format with 406, and any other parameter with 400 naming it', async () => {
    const xml = await get('/metadata?_format=xml');
    expect(xml.status).toBe(406);
    expectValidFhir(xml.body, 'GET /metadata?_format=xml');
    expect((xml.body as OperationOutcome).issue).toEqual([expect.objectContaining({ code: 'not-supported', expression: ['_format'] })]);
    expect((await get('/metadata?_format=json&_format=application/fhir%2Bxml')).status).toBe(406);

    const unknown = await get('/metadata?mode=terminology&foo=1');
    expect(unknown.status).toBe(400);
    expect((unknown.body as OperationOutcome).issue?.map((issue) => issue.expression)).toEqual([['mode'], ['foo']]);
  });

  it('quotes at most a short excerpt of an over-long parameter name', async () => {
    const res = await get(`/metadata?${'x'.repeat(5000)}=1`);
    expect(res.status).toBe(400);
    expect(res.text.length).toBeLessThan(500);
  });

  it('names no implementation URL when the Host header is not a plain host', async () => {
    const res = await get('/metadata').set('host', 'evil.example/phish?');
    expect(res.status).toBe(200);
    expect(res.body.implementation).toEqual({ description: expect.any(String) });
    expectValidFhir(res.body, 'GET /metadata with a forged Host');
  });
});

describe('the conformance resources the statement lists', () => {
  let statement: CapabilityStatement;
  beforeAll(async () => {
    statement = (await get('/metadata')).body as CapabilityStatement;
  });

  it('every supported profile is readable at its canonical id, without a token', async () => {
    const profiles = statement.rest?.[0]?.resource?.find((resource) => resource.type === 'Bundle')?.supportedProfile ?? [];
    expect(profiles).toEqual([systems.admissionRequestBundleProfile, systems.documentBundleProfile]);
    for (const url of profiles) {
      const res = await get(`/StructureDefinition/${lastSegment(url)}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toBe('application/fhir+json; charset=utf-8');
      expect((res.body as StructureDefinition).url).toBe(url);
      expectValidFhir(res.body, `GET /StructureDefinition/${lastSegment(url)}`);
    }
  });

  it('every code system of the interface is readable at its canonical id, without a token', async () => {
    const codeSystemUrls = [systems.serviceTypeSystem, systems.specialtySystem, systems.orderDetailSystem, systems.admissionResponseStatusSystem];
    for (const url of codeSystemUrls) {
      const res = await get(`/CodeSystem/${lastSegment(url)}`);
      expect(res.status).toBe(200);
      expect((res.body as CodeSystem).url).toBe(url);
      expect(statement.rest?.[0]?.resource?.find((resource) => resource.type === 'CodeSystem')?.documentation).toContain(url);
      expectValidFhir(res.body, `GET /CodeSystem/${lastSegment(url)}`);
    }
  });

  it.each(['StructureDefinition', 'CodeSystem'])('GET /%s without parameters is a searchset of all of them, with absolute fullUrls', async (type) => {
    const res = await get(`/${type}`);
    expect(res.status).toBe(200);
    const bundle = res.body as Bundle;
    expectValidFhir(bundle, `GET /${type}`);
    const base = `${new URL(res.request.url).origin}/api/v2/fhir`;
    const total = { StructureDefinition: 5, CodeSystem: 4 }[type];
    expect(bundle).toMatchObject({ type: 'searchset', total, link: [{ relation: 'self', url: `${base}/${type}` }] });
    for (const entry of bundle.entry ?? []) {
      expect(entry.fullUrl).toBe(`${base}/${type}/${entry.resource?.id}`);
      expect(entry.resource?.resourceType).toBe(type);
    }
  });

  it('an unknown id is 404 with an OperationOutcome that does not quote it', async () => {
    const res = await get(`/StructureDefinition/${'Nope'.repeat(1000)}`);
    expect(res.status).toBe(404);
    expectValidFhir(res.body, 'GET /StructureDefinition/<unknown>');
    expect(res.body.issue[0]).toMatchObject({
      code: 'not-found',
      diagnostics: 'no StructureDefinition with this id; there are: AdmissionRequestBundle, DocumentBundle, answer-deadline, answer-overdue, asked-by-rule',
    });
  });

  it('a search with a parameter is 400 naming it', async () => {
    const res = await get('/CodeSystem?url=x');
    expect(res.status).toBe(400);
    expect(res.body.issue[0].expression).toEqual(['url']);
  });
});

describe('everything else under /api/v2/fhir', () => {
  it.each([
    ['GET', '/Task'],
    ['GET', '/Task/123'],
    ['POST', '/Bundle'],
    ['POST', '/metadata'],
    ['PUT', '/StructureDefinition/AdmissionRequestBundle'],
    ['GET', '/ValueSet/specialty'],
  ])('%s %s passes on to the token guard', async (method, path) => {
    const res = await request(app)[method.toLowerCase() as 'get' | 'post' | 'put'](`/api/v2/fhir${path}`);
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ guarded: true });
  });
});

describe('GET /api/v2/fhir/.well-known/smart-configuration', () => {
  it('announces, without a token, the token endpoint under the public address, private_key_jwt with RS384 and ES384, the grant and the scopes', async () => {
    const res = await get('/.well-known/smart-configuration');
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(res.body).toEqual({
      token_endpoint: 'https://api.example.org/api/v1/token/oauth2',
      grant_types_supported: ['client_credentials'],
      token_endpoint_auth_methods_supported: ['private_key_jwt'],
      token_endpoint_auth_signing_alg_values_supported: ['RS384', 'ES384'],
      scopes_supported: expect.arrayContaining(['system/Bundle.c', 'system/Task.rs', 'system/AuditEvent.rs', 'api:subscriptions', 'api:clinic']),
      capabilities: ['client-confidential-asymmetric', 'permission-v2'],
    });
  });

  it("is said in the CapabilityStatement's security section too: SMART-on-FHIR, the token endpoint in oauth-uris, the method, algorithms and scopes", async () => {
    const security = ((await get('/metadata')).body as CapabilityStatement).rest?.[0]?.security;
    expect(security?.service?.flatMap((service) => service.coding?.map((coding) => coding.code))).toEqual(['OAuth', 'SMART-on-FHIR']);
    expect(security?.extension?.[0]?.extension).toEqual([{ url: 'token', valueUri: 'https://api.example.org/api/v1/token/oauth2' }]);
    expect(security?.description).toContain('`private_key_jwt`');
    expect(security?.description).toContain('RS384 or ES384');
    expect(security?.description).toContain('`system/Task.rs`');
  });
});
