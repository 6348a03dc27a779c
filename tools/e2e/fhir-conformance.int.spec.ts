// Every kind of resource the service returns, checked by a FHIR R4 validator from outside the project
// (@medplum/core over HL7's R4 definitions; `callApi` runs it on every FHIR JSON answer of every
// end-to-end test). This file makes sure each kind occurs at least once: the CapabilityStatement and
// the conformance resources, searchsets (full, subsetted, count only, empty), a Task, a stored
// AdmissionRequestBundle and DocumentBundle as a clinic reads them, and the OperationOutcome of a
// 202 and of every error status a FHIR endpoint answers.
import { admissionRequestBundle, documentBundle, FIXTURE_FHIR_BASE, FIXTURE_PERFORMER_IKS, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { fhirValidationIssues, waitFor } from '@bedrequest/testing';
import { validatedFhirAnswers } from './api-client';
import { startE2eStack, type E2eStack } from './e2e-stack';

interface SearchSet {
  entry?: { resource: { id: string; owner: { identifier: { value: string } } } }[];
}

describe('every FHIR answer of the service passes an outside R4 validator', () => {
  let stack: E2eStack;
  let referrer: string;
  let clinic: string;
  let identifier: string;
  let taskId: string;

  beforeAll(async () => {
    // A low rate limit, so that a 429 is cheap to provoke.
    stack = await startE2eStack({ RATE_LIMIT_PER_SECOND: '20' });
    for (const ik of FIXTURE_PERFORMER_IKS) await stack.registerClinic(ik, `Rehaklinik ${ik}`, ['2300']);
    await stack.createReferrer('conformance-hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    await stack.createClinicUser('conformance-clinic', FIXTURE_PERFORMER_IKS[0]);
    referrer = await stack.login('conformance-hospital');
    clinic = await stack.login('conformance-clinic');
    identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    const posted = await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: admissionRequestBundle({ requestIdentifier: identifier }) });
    expect(posted.status).toBe(202);
    const documents = await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: documentBundle({ requestIdentifier: identifier }) });
    expect(documents.status).toBe(202);
    taskId = await waitFor(
      async () => {
        const { body } = await stack.api<SearchSet>('GET', '/api/v2/fhir/Task', { token: clinic });
        return body.entry?.find((entry) => entry.resource.owner.identifier.value === FIXTURE_PERFORMER_IKS[0])?.resource.id;
      },
      { what: "the clinic's Task" },
    );
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('the validator is not a formality: it refuses a broken OperationOutcome and a Task with an unknown element', () => {
    expect(
      fhirValidationIssues({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'invalid', diagnostics: 'x', expression: 'Bundle' }] })
        .length,
    ).toBeGreaterThan(0);
    expect(fhirValidationIssues({ resourceType: 'Task', status: 'requested', intent: 'order', colour: 'blue' }).length).toBeGreaterThan(0);
  });

  it('accepts the conformance resources, the Task answers and the stored bundles', async () => {
    const before = validatedFhirAnswers.count;
    const reads = [
      ['/api/v2/fhir/metadata', undefined],
      ['/api/v2/fhir/StructureDefinition', undefined],
      ['/api/v2/fhir/StructureDefinition/AdmissionRequestBundle', undefined],
      ['/api/v2/fhir/CodeSystem', undefined],
      ['/api/v2/fhir/CodeSystem/admission-response-status', undefined],
      [`/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, referrer],
      ['/api/v2/fhir/Task?_elements=status,owner', referrer],
      ['/api/v2/fhir/Task?_summary=count', referrer],
      ['/api/v2/fhir/Task?_total=none&_count=1', referrer],
      ['/api/v2/fhir/Task?status=cancelled', referrer],
      [`/api/v2/fhir/Task/${taskId}`, clinic],
      [`/api/v2/fhir/Task/${taskId}?_elements=businessStatus`, clinic],
      [`/api/v1/clinic/tasks/${taskId}/bundle`, clinic],
      [`/api/v1/clinic/tasks/${taskId}/documents/0`, clinic],
    ] as const;
    for (const [path, token] of reads) expect([path, (await stack.api('GET', path, { token })).status]).toEqual([path, 200]);
    const documents = await stack.api<{ items: unknown[] }>('GET', `/api/v1/clinic/tasks/${taskId}/documents`, { token: clinic });
    expect(documents.status).toBe(200);
    // The documents come in a JSON list (not FHIR JSON as a whole): each DocumentBundle on its own.
    expect(documents.body.items).toHaveLength(1);
    for (const bundle of documents.body.items) expect(fhirValidationIssues(bundle).filter((issue) => issue.severity === 'error')).toEqual([]);
    expect(validatedFhirAnswers.count - before).toBe(reads.length);
  });

  it('accepts the OperationOutcome of every error status a FHIR endpoint answers', async () => {
    const before = validatedFhirAnswers.count;
    const revoked = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    const expectations: [string, () => Promise<{ status: number }>, number][] = [
      ['invalid bundle', () => stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: { resourceType: 'Bundle', foo: 1 } }), 400],
      ['unknown search parameter', () => stack.api('GET', '/api/v2/fhir/Task?colour=blue', { token: referrer }), 400],
      ['no token', () => stack.api('GET', '/api/v2/fhir/Task'), 401],
      ['clinic token on bundles', () => stack.api('POST', '/api/v2/fhir/Bundle', { token: clinic, body: admissionRequestBundle() }), 403],
      ['unknown Task', () => stack.api('GET', `/api/v2/fhir/Task/${crypto.randomUUID()}`, { token: referrer }), 404],
      ['unknown FHIR path', () => stack.api('GET', '/api/v2/fhir/Patient', { token: referrer }), 404],
      ['wrong method', () => stack.api('DELETE', '/api/v2/fhir/Task', { token: referrer }), 405],
      ['unsupported format', () => stack.api('GET', '/api/v2/fhir/Task?_format=xml', { token: referrer }), 406],
      [
        'revoking an unknown request',
        () => stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: admissionRequestBundle({ requestIdentifier: revoked, status: 'revoked' }) }),
        409,
      ],
      [
        'bundle over 10 MiB',
        () => stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: `{"resourceType":"Bundle","pad":"${'x'.repeat(10 * 1024 * 1024)}"}` }),
        413,
      ],
      ['wrong content type', () => stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: '<Bundle/>', contentType: 'application/xml' }), 415],
    ];
    for (const [what, call, status] of expectations) expect([what, (await call()).status]).toEqual([what, status]);
    // 429: more calls in one second than the limit allows. A busy machine can spread one burst of
    // 40 over two of the limiter's one-second windows, so bursts are sent until one is refused.
    const answered: { status: number }[] = [];
    await waitFor(
      async () => {
        const burst = await Promise.all(Array.from({ length: 40 }, () => stack.api('GET', '/api/v2/fhir/Task?_summary=count', { token: clinic })));
        answered.push(...burst);
        return burst.some((answer) => answer.status === 429);
      },
      { timeoutMs: 30_000, intervalMs: 0, what: 'a 429 for a burst of 40 calls over a limit of 20 per second' },
    );
    expect(validatedFhirAnswers.count - before).toBe(expectations.length + answered.length);
  });
});
