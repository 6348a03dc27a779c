// A referrer reads back what it sent (docs/api.md, "Reading a request back":
// GET /api/v2/fhir/ServiceRequest?identifier=<uri>): the latest version of its request as a searchset,
// the ServiceRequest as the match with its version and status, the other resources as includes; for
// every person of the owning party and nobody else, recorded in the audit trail. The whole stack
// in-process, every answer checked against the OpenAPI document and the outside FHIR validator
// (api-client.ts).
import { randomUUID } from 'node:crypto';
import type { AuditEvent, Bundle, BundleEntry, OperationOutcome, Resource, ServiceRequest } from '@medplum/fhirtypes';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { startE2eStack, type E2eStack } from './e2e-stack';

const CLINIC = '510000601';

/** A searchset, or the OperationOutcome of a refusal. */
type SearchAnswer = Partial<Omit<Bundle, 'resourceType'>> & Partial<Omit<OperationOutcome, 'resourceType'>> & { resourceType: string };

describe('a referrer reads back the request it sent', () => {
  let stack: E2eStack;
  let anna: string;
  let bernd: string;
  let annaId: string;
  let berndId: string;
  let other: string;
  let clinic: string;

  beforeAll(async () => {
    stack = await startE2eStack();
    await stack.registerClinic(CLINIC, 'Rehaklinik Am See', ['2300']);
    const hospital = await stack.createParty('referrer', 'Akutklinik Mitte, Sozialdienst', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    annaId = await stack.createPerson(hospital, 'anna.sozialdienst', 'Anna Sozialdienst');
    berndId = await stack.createPerson(hospital, 'bernd.sozialdienst', 'Bernd Sozialdienst');
    await stack.createReferrer('other-hospital', [FIXTURE_REQUESTER_IK], 'https://other-hospital.example/fhir');
    await stack.createClinicUser('am-see', CLINIC);
    anna = await stack.login('anna.sozialdienst');
    bernd = await stack.login('bernd.sozialdienst');
    other = await stack.login('other-hospital');
    clinic = await stack.login('am-see');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const newIdentifier = () => `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
  const read = (query: string, token: string) => stack.api<SearchAnswer>('GET', `/api/v2/fhir/ServiceRequest?${query}`, { token });
  const readBack = (identifier: string, token: string) => read(`identifier=${encodeURIComponent(identifier)}`, token);
  const send = async (bundle: Bundle) => expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: anna, body: bundle })).status).toBe(202);
  /** The read once intake holds `version` of the request (a POST's 202 may come before intake stored it). */
  const readVersion = (identifier: string, version: string, token = anna) =>
    waitFor(
      async () => {
        const answer = await readBack(identifier, token);
        return (answer.body.entry?.[0]?.resource as ServiceRequest | undefined)?.meta?.versionId === version ? answer : undefined;
      },
      { what: `version ${version} of the request` },
    );
  const resourcesOf = (bundle: SearchAnswer) => (bundle.entry ?? []).map((entry) => entry.resource as Resource);

  it('answers the latest version: the ServiceRequest as the match with its version, when it came and its status, the rest as includes, as sent', async () => {
    const identifier = newIdentifier();
    await send(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC], occurrenceDate: '2027-02-01' }));
    await readVersion(identifier, '1');
    const before = Date.now();
    const supplement = admissionRequestBundle({
      requestIdentifier: identifier,
      performerIks: [CLINIC],
      occurrenceDate: '2027-03-15',
      notes: ['Aufnahme erst nach der Wundkontrolle'],
      transmissionNumber: 'supplement-1',
    });
    await send(supplement);

    const answer = await readVersion(identifier, '2');

    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('content-type')).toBe('application/fhir+json; charset=utf-8');
    const [sentRequest, ...sentOthers] = supplement.entry as (BundleEntry & { resource: Resource })[];
    const match = answer.body.entry?.[0];
    expect(match?.search).toEqual({ mode: 'match' });
    expect(match?.fullUrl).toBe(sentRequest?.fullUrl);
    const request = match?.resource as ServiceRequest;
    expect(request).toEqual({ ...sentRequest?.resource, meta: { versionId: '2', lastUpdated: expect.any(String) }, status: 'active' });
    expect(request.occurrenceDateTime).toBe('2027-03-15');
    expect(request.note).toEqual([{ text: 'Aufnahme erst nach der Wundkontrolle' }]);
    const received = Date.parse(request.meta?.lastUpdated ?? '');
    expect(received).toBeGreaterThanOrEqual(before - 1000);
    expect(received).toBeLessThanOrEqual(Date.now());
    expect(answer.body).toMatchObject({
      resourceType: 'Bundle',
      type: 'searchset',
      total: 1,
      link: [{ relation: 'self', url: `${stack.gatewayUrl}/api/v2/fhir/ServiceRequest?identifier=${encodeURIComponent(identifier)}` }],
    });
    expect(answer.body.entry?.slice(1)).toEqual(sentOthers.map((entry) => ({ fullUrl: entry.fullUrl, resource: entry.resource, search: { mode: 'include' } })));
    expect(resourcesOf(answer.body).map((resource) => resource.resourceType)).toEqual(
      expect.arrayContaining(['Patient', 'Condition', 'Coverage', 'Encounter', 'Observation']),
    );

    // Another person of the party reads it too, also with the identifier as a FHIR token.
    const colleague = await read(`identifier=${encodeURIComponent(`urn:ietf:rfc:3986|${identifier}`)}`, bernd);
    expect(colleague.status).toBe(200);
    expect(resourcesOf(colleague.body)).toEqual(resourcesOf(answer.body));
  });

  it("answers an empty searchset for another party's request and an unknown one, and a clinic 403", async () => {
    const identifier = newIdentifier();
    await send(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC] }));
    await readVersion(identifier, '1');

    for (const [who, token] of [
      ['another referrer', other],
      ['the owner, for an unknown identifier', anna],
    ] as const) {
      const answer = await readBack(who === 'another referrer' ? identifier : newIdentifier(), token);
      expect({ who, status: answer.status, cacheControl: answer.headers.get('cache-control') }).toEqual({ who, status: 200, cacheControl: 'no-store' });
      expect({ who, body: answer.body }).toEqual({
        who,
        body: {
          resourceType: 'Bundle',
          type: 'searchset',
          total: 0,
          link: [{ relation: 'self', url: expect.stringContaining('/api/v2/fhir/ServiceRequest?identifier=') }],
        },
      });
    }
    const byClinic = await readBack(identifier, clinic);
    expect(byClinic.status).toBe(403);
    expect(byClinic.body.issue?.[0]?.code).toBe('forbidden');
  });

  it.each([
    ['no identifier', '', 'identifier'],
    ['an identifier that is no URI', 'identifier=not%20a%20uri', 'identifier'],
    ['an identifier given twice', `identifier=${encodeURIComponent(`${FIXTURE_FHIR_BASE}/ServiceRequest/1`)}&identifier=urn%3Ax`, 'identifier'],
    ['another parameter', `identifier=${encodeURIComponent(`${FIXTURE_FHIR_BASE}/ServiceRequest/1`)}&_count=1`, '_count'],
    ['a modifier', 'identifier:text=Reha', 'identifier:text'],
  ])('refuses %s with 400 naming it', async (_what, query, named) => {
    const answer = await read(query, anna);
    expect(answer.status).toBe(400);
    expect(answer.body.resourceType).toBe('OperationOutcome');
    expect(answer.body.issue?.map((issue) => issue.expression?.[0])).toContain(named);
  });

  it('shows a revoked request revoked, and an erased one as 410', async () => {
    const identifier = newIdentifier();
    await send(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC] }));
    await readVersion(identifier, '1');
    await send(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC], status: 'revoked', transmissionNumber: 'revocation' }));

    const revoked = await readVersion(identifier, '2');
    expect((revoked.body.entry?.[0]?.resource as ServiceRequest).status).toBe('revoked');

    expect((await stack.api('DELETE', `/api/v2/fhir/ServiceRequest?identifier=${encodeURIComponent(identifier)}`, { token: anna })).status).toBe(202);
    const erased = await readBack(identifier, bernd);
    expect(erased.status).toBe(410);
    expect(erased.headers.get('cache-control')).toBe('no-store');
    expect(erased.body.issue?.[0]).toMatchObject({
      code: 'deleted',
      diagnostics: expect.stringMatching(/^the patient data of this request was erased on \d{4}-/),
    });
    // Another party still learns nothing: not even that it was erased.
    expect((await readBack(identifier, other)).body).toMatchObject({ total: 0 });
  });

  it("records every read in the audit trail, which the party's people see, with the person and the version read", async () => {
    const identifier = newIdentifier();
    await send(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC] }));
    await readVersion(identifier, '1');
    await readBack(identifier, bernd);
    await readBack(identifier, other);

    const trail = await stack.api<Bundle<AuditEvent>>('GET', `/api/v2/fhir/AuditEvent?entity=${encodeURIComponent(identifier)}&_count=100`, { token: bernd });
    expect(trail.status).toBe(200);
    const reads = (trail.body.entry ?? [])
      .map((entry) => entry.resource as AuditEvent)
      .filter((event) => event.subtype?.[0]?.code === 'search-type' && event.entity?.some((entity) => entity.query !== undefined));
    // Every read of anna's until version 1 showed (at least one), then bernd's; the other party's read found nothing and is not recorded.
    const people = reads.map((event) => event.agent[0]?.altId);
    expect(people.at(-1)).toBe(berndId);
    expect(new Set(people)).toEqual(new Set([annaId, berndId]));
    for (const event of reads) {
      expect(event).toMatchObject({
        action: 'E',
        agent: [{ role: [{ text: 'referrer' }], who: { identifier: { value: FIXTURE_REQUESTER_IK } } }],
        entity: [
          { what: { type: 'ServiceRequest', identifier: { value: identifier } }, detail: [{ type: 'version', valueString: '1' }] },
          { query: Buffer.from(`identifier=${encodeURIComponent(identifier)}`).toString('base64') },
        ],
      });
    }
  });
});
