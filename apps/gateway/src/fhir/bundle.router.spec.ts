import express from 'express';
import request from 'supertest';
import { createEnvelope, IntakeVerdictV1, VerdictRefusal, type ClinicRecord, type Envelope, type MessageDefinition } from '@bedrequest/contracts';
import { ClinicDirectoryUnavailableError } from '@bedrequest/clinic-directory';
import { DEFAULT_PROFILE_BASE } from '@bedrequest/fhir-model';
import { admissionRequestBundle, documentBundle, FIXTURE_FHIR_BASE, FIXTURE_PERFORMER_IKS, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { BrokerUnavailableError, PublishRejectedError } from '@bedrequest/messaging';
import { captureLogger, type CapturedLogger } from '@bedrequest/testing';
import type { Principal } from '@bedrequest/tokens';
import { errorHandler } from '../http-errors';
import { bundleRoute } from './bundle.router';

const referrer: Principal = { partyId: 'referrer-1', userId: 'referrer-1', role: 'referrer', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const REQUEST = `${FIXTURE_FHIR_BASE}/ServiceRequest/0b8e6c58-0d2b-4c4e-9d0c-6a1f7f5e2a10`;
const TASK_SEARCH = `/api/v2/fhir/Task?based-on=${encodeURIComponent(REQUEST)}`;
const VERDICT_TIMEOUT_MS = 1_000;

interface Published {
  definition: MessageDefinition;
  payload: Record<string, unknown>;
  meta: { correlationId: string };
  replyTimeoutMs: number;
}

/** What the broker does with the next publish: intake's verdict, no verdict in time, or a failure. */
type BrokerBehaviour = { reply?: IntakeVerdictV1 } | { fail: Error };

const clinic = (ik: string): ClinicRecord => ({ ik, name: `Klinik ${ik}`, departments: [{ code: '2300', specialty: 'orthopedics', display: 'orthopaedics' }] });

/**
 * `POST /api/v2/fhir/Bundle` with in-process stand-ins for its two collaborators: the broker (intake's
 * verdict comes back as the reply) and the clinic directory. The whole path through the real broker
 * and intake is tested in tools/e2e/request-flow.int.spec.ts.
 */
describe('POST /api/v2/fhir/Bundle', () => {
  let published: Published[];
  let broker: BrokerBehaviour;
  let participating: readonly string[];
  let directoryDown: boolean;
  let logger: CapturedLogger;

  beforeEach(() => {
    logger = captureLogger('info');
    published = [];
    broker = { reply: { outcome: 'accepted', issues: [], requestIdentifier: REQUEST } };
    participating = FIXTURE_PERFORMER_IKS;
    directoryDown = false;
  });

  const gateway = (principal: Principal = referrer) =>
    express()
      .use((_req, res, next) => {
        res.locals.principal = principal;
        next();
      })
      .post(
        '/api/v2/fhir/Bundle',
        ...bundleRoute({
          broker: {
            publishAndAwaitReply: async (definition, payload, meta, replyTimeoutMs) => {
              published.push({ definition, payload: payload as Record<string, unknown>, meta, replyTimeoutMs });
              if ('fail' in broker) throw broker.fail;
              const envelope = createEnvelope(definition, payload, meta);
              const reply: Envelope | undefined = broker.reply && createEnvelope(IntakeVerdictV1, broker.reply, meta);
              return { envelope, reply };
            },
          },
          clinics: {
            lookup: async (iks) => {
              if (directoryDown) throw new ClinicDirectoryUnavailableError('routing is not reachable');
              return new Map(iks.filter((ik) => participating.includes(ik)).map((ik) => [ik, clinic(ik)]));
            },
          },
          profileBase: DEFAULT_PROFILE_BASE,
          verdictTimeoutMs: VERDICT_TIMEOUT_MS,
        }),
      )
      .use(errorHandler(logger.logger));
  const post = (body: unknown, principal?: Principal) =>
    request(gateway(principal))
      .post('/api/v2/fhir/Bundle')
      .set('content-type', 'application/fhir+json')
      .set('x-correlation-id', 'corr-1')
      .send(JSON.stringify(body));

  describe('a valid AdmissionRequestBundle', () => {
    it('is published with what intake needs and answered 202 with Location, Content-Location and an informational OperationOutcome', async () => {
      const bundle = admissionRequestBundle({ requestIdentifier: REQUEST });

      const response = await post(bundle);

      expect(response.status).toBe(202);
      expect(response.headers['content-type']).toMatch(/^application\/fhir\+json/);
      expect(response.headers.location).toBe(TASK_SEARCH);
      expect(response.headers['content-location']).toBe(TASK_SEARCH);
      expect(response.body).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'information', code: 'informational' }] });
      expect(published).toHaveLength(1);
      expect(published[0]).toMatchObject({
        definition: { routingKey: 'admission.bundle.submitted.v1' },
        meta: { correlationId: 'corr-1' },
        replyTimeoutMs: VERDICT_TIMEOUT_MS,
        payload: {
          submitter: { partyId: 'referrer-1', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE },
          bundle,
          request: { identifier: REQUEST, requesterIk: FIXTURE_REQUESTER_IK, intent: 'proposal', performerIks: [...FIXTURE_PERFORMER_IKS] },
        },
      });
    });

    it("names the address the referrer connected from, for the change's AuditEvent, and not one the caller claims", async () => {
      const response = await request(gateway())
        .post('/api/v2/fhir/Bundle')
        .set('content-type', 'application/fhir+json')
        .set('x-forwarded-for', '203.0.113.9')
        .send(JSON.stringify(admissionRequestBundle({ requestIdentifier: REQUEST })));

      expect(response.status).toBe(202);
      expect(published[0]?.payload.submitter).toEqual({
        partyId: 'referrer-1',
        userId: 'referrer-1',
        ikNumbers: [FIXTURE_REQUESTER_IK],
        fhirBase: FIXTURE_FHIR_BASE,
        clientAddress: expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$|^::1$/),
      });
    });

    it("names the person of the party who sent it (the token's act), beside the party that owns the request", async () => {
      const colleague: Principal = { ...referrer, userId: 'referrer-1-erika', userName: 'Erika Muster' };

      const response = await post(admissionRequestBundle({ requestIdentifier: REQUEST }), colleague);

      expect(response.status).toBe(202);
      expect(published[0]?.payload.submitter).toMatchObject({ partyId: 'referrer-1', userId: 'referrer-1-erika', userName: 'Erika Muster' });
    });

    it('names the person without a display name when the token has none', async () => {
      const response = await post(admissionRequestBundle({ requestIdentifier: REQUEST }), { ...referrer, userId: 'referrer-1-max' });

      expect(response.status).toBe(202);
      expect(published[0]?.payload.submitter).toMatchObject({ partyId: 'referrer-1', userId: 'referrer-1-max' });
      expect(published[0]?.payload.submitter).not.toHaveProperty('userName');
    });

    it('is accepted as application/json too', async () => {
      const response = await request(gateway())
        .post('/api/v2/fhir/Bundle')
        .set('content-type', 'application/json')
        .send(JSON.stringify(admissionRequestBundle({ requestIdentifier: REQUEST })));

      expect(response.status).toBe(202);
    });

    it.each([
      ['intake did not answer in time: the bundle is queued', undefined],
      ['intake found it identical to the latest version', { outcome: 'unchanged', issues: [] } as IntakeVerdictV1],
    ])('is answered 202 with the Location when %s', async (_, reply) => {
      broker = { reply };

      const response = await post(admissionRequestBundle({ requestIdentifier: REQUEST }));

      expect(response.status).toBe(202);
      expect(response.headers.location).toBe(TASK_SEARCH);
      expect(response.body).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'information' }] });
    });

    it.each([
      [409, 'conflict', 'conflict', 'the request is revoked'],
      [400, 'invalid', 'required', 'a selection needs complete patient data'],
      [404, 'not-found', 'not-found', 'no such request'],
      [403, 'forbidden', 'forbidden', "another referrer's request"],
    ] as const)("is answered %i with intake's issues when intake refuses it (%s)", async (status, refusal, code, diagnostics) => {
      broker = { reply: { outcome: 'rejected', refusal, issues: [{ code, diagnostics, expression: 'Bundle.entry[0].resource' }] } };

      const response = await post(admissionRequestBundle({ requestIdentifier: REQUEST }));

      expect(response.status).toBe(status);
      expect(response.headers.location).toBeUndefined();
      expect(response.body).toEqual({
        resourceType: 'OperationOutcome',
        issue: [{ severity: 'error', code, diagnostics, expression: ['Bundle.entry[0].resource'] }],
      });
    });
  });

  describe("the answer to intake's refusal", () => {
    const statusOf = { invalid: 400, forbidden: 403, 'not-found': 404, conflict: 409, 'precondition-failed': 412 } as const;

    it.each(VerdictRefusal.options)('follows the refusal (%s): docs/decisions.md, "Errors"', async (refusal) => {
      broker = { reply: { outcome: 'rejected', refusal, issues: [{ code: 'conflict', diagnostics: 'refused' }] } };

      const response = await post(admissionRequestBundle({ requestIdentifier: REQUEST }));

      expect(response.status).toBe(statusOf[refusal]);
    });
  });

  describe('refuses without publishing', () => {
    it('a body that is not JSON: 415', async () => {
      const response = await request(gateway()).post('/api/v2/fhir/Bundle').set('content-type', 'text/plain').send('{}');

      expect(response.status).toBe(415);
      expect(response.headers['content-type']).toMatch(/^application\/fhir\+json/);
      expect(response.body).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'not-supported' }] });
      expect(published).toEqual([]);
    });

    it('malformed JSON: 400 with an OperationOutcome', async () => {
      const response = await request(gateway()).post('/api/v2/fhir/Bundle').set('content-type', 'application/fhir+json').send('{"resourceType":');

      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'invalid' }] });
      expect(published).toEqual([]);
    });

    it('a body over 10 MiB: 413', async () => {
      const bundle = admissionRequestBundle({ requestIdentifier: REQUEST, notes: ['x'.repeat(10 * 1024 * 1024)] });

      const response = await post(bundle);

      expect(response.status).toBe(413);
      expect(published).toEqual([]);
    });

    it('a bundle whose meta.profile names neither kind: 400 at Bundle.meta.profile', async () => {
      const bundle = { ...admissionRequestBundle({ requestIdentifier: REQUEST }), meta: { profile: ['https://elsewhere.example/StructureDefinition/Bundle'] } };

      const response = await post(bundle);

      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'invalid', expression: ['Bundle.meta.profile'] }] });
      expect(published).toEqual([]);
    });

    it.each([
      ['a date without a time', '2026-12-09'],
      ['a time without an offset', '2026-12-09T16:00:00'],
      ['more than 90 days ahead', new Date(Date.now() + 91 * 86_400_000).toISOString()],
    ])('an answer deadline that is %s: 400 naming its valueDateTime, nothing published', async (_, valueDateTime) => {
      const bundle = admissionRequestBundle({ requestIdentifier: REQUEST });
      const serviceRequest = bundle.entry?.find((entry) => entry.resource?.resourceType === 'ServiceRequest')?.resource as { extension?: unknown[] };
      serviceRequest.extension = [{ url: `${DEFAULT_PROFILE_BASE}/fhir/StructureDefinition/answer-deadline`, valueDateTime }];

      const response = await post(bundle);

      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        resourceType: 'OperationOutcome',
        issue: [{ code: 'value', expression: ['Bundle.entry[0].resource.extension[0].valueDateTime'] }],
      });
      expect(published).toEqual([]);
    });

    it('a valid answer deadline is sent to intake with the request', async () => {
      const bundle = admissionRequestBundle({ requestIdentifier: REQUEST });
      const serviceRequest = bundle.entry?.find((entry) => entry.resource?.resourceType === 'ServiceRequest')?.resource as { extension?: unknown[] };
      const valueDateTime = new Date(Date.now() + 2 * 86_400_000).toISOString().replace(/\.\d{3}Z$/, '+00:00');
      serviceRequest.extension = [{ url: `${DEFAULT_PROFILE_BASE}/fhir/StructureDefinition/answer-deadline`, valueDateTime }];

      expect((await post(bundle)).status).toBe(202);
      expect(published[0]?.payload).toMatchObject({ request: { answerDeadline: valueDateTime } });
    });

    it('an invalid bundle: 400 with every issue and its FHIRPath expression', async () => {
      const bundle = admissionRequestBundle({ requestIdentifier: REQUEST });
      bundle.timestamp = 'yesterday';
      delete bundle.identifier;

      const response = await post(bundle);

      expect(response.status).toBe(400);
      const issues = (response.body as { issue: { severity: string; code: string; diagnostics: string; expression?: string[] }[] }).issue;
      expect(issues.length).toBeGreaterThanOrEqual(2);
      for (const issue of issues) {
        expect(issue).toMatchObject({ severity: 'error', diagnostics: expect.any(String), expression: [expect.stringMatching(/^Bundle/)] });
      }
      expect(issues.flatMap((issue) => issue.expression)).toEqual(expect.arrayContaining(['Bundle.timestamp', 'Bundle.identifier']));
      expect(published).toEqual([]);
    });

    it("logs the refusal once, with its issue codes and expressions and none of the bundle's values", async () => {
      const bundle = admissionRequestBundle({ requestIdentifier: REQUEST, patient: 'complete' });
      const entries = bundle.entry as unknown as { resource: Record<string, unknown> }[];
      const patientIndex = entries.findIndex((entry) => entry.resource.resourceType === 'Patient');
      entries[patientIndex]!.resource.gender = 'Erika Musterfrau';
      bundle.timestamp = 'Musterfrau, Erika';

      const response = await post(bundle);

      expect(response.status).toBe(400);
      const refusals = logger
        .text()
        .split('\n')
        .filter((line) => line.includes('"request refused"'))
        .map((line) => JSON.parse(line) as Record<string, unknown>);
      expect(refusals).toHaveLength(1);
      expect(refusals[0]).toMatchObject({ level: 30, status: 400, method: 'POST', path: '/api/v2/fhir/Bundle' });
      expect(refusals[0]!.issues).toEqual(
        expect.arrayContaining([
          { code: expect.any(String), expression: 'Bundle.timestamp' },
          { code: expect.any(String), expression: `Bundle.entry[${patientIndex}].resource.gender` },
        ]),
      );
      expect(logger.text()).not.toMatch(/Musterfrau|Erika/);
    });

    it.each([
      ["the requester IK is not one of the referrer's", { requesterIk: '260000009' }],
      ["the identifier does not begin with the referrer's FHIR base", { fhirBase: 'https://other-hospital.example/fhir' }],
      // The base is compared by whole path segments: …/fhir does not own …/fhir2/….
      [
        "the identifier only begins with the referrer's FHIR base as text, not by path segments",
        { requestIdentifier: `${FIXTURE_FHIR_BASE}2/ServiceRequest/1` },
      ],
    ])('403 when %s', async (_, options) => {
      const response = await post(admissionRequestBundle(options));

      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'forbidden' }] });
      expect(published).toEqual([]);
    });

    it('403 for a referrer without a registered FHIR base', async () => {
      const response = await post(admissionRequestBundle({ requestIdentifier: REQUEST }), { ...referrer, fhirBase: undefined });

      expect(response.status).toBe(403);
      expect(published).toEqual([]);
    });

    it('a performer that is not a participating clinic: 400 at Bundle.entry[i].resource.performer[j]', async () => {
      participating = [FIXTURE_PERFORMER_IKS[0]];

      const response = await post(admissionRequestBundle({ requestIdentifier: REQUEST }));

      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        resourceType: 'OperationOutcome',
        issue: [
          {
            severity: 'error',
            code: 'invalid',
            diagnostics: expect.stringContaining(FIXTURE_PERFORMER_IKS[1]),
            expression: ['Bundle.entry[0].resource.performer[1]'],
          },
        ],
      });
      expect(published).toEqual([]);
    });
  });

  describe('answers 503 with Retry-After', () => {
    it('when the clinic registry is unavailable', async () => {
      directoryDown = true;

      const response = await post(admissionRequestBundle({ requestIdentifier: REQUEST }));

      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.body).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ severity: 'error', code: 'transient' }] });
      expect(published).toEqual([]);
    });

    it.each([
      ['the broker is not connected', new BrokerUnavailableError('no connection')],
      ['the broker did not confirm the message', new PublishRejectedError('nack')],
    ])('when %s', async (_, error) => {
      broker = { fail: error };

      const response = await post(admissionRequestBundle({ requestIdentifier: REQUEST }));

      expect(response.status).toBe(503);
      expect(response.headers['retry-after']).toBe('5');
      expect(response.headers.location).toBeUndefined();
      expect(response.body).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'transient' }] });
    });
  });

  describe('a DocumentBundle', () => {
    it("is published with its request identifier and answered 202 with the Location of the request's Tasks", async () => {
      const bundle = documentBundle({ requestIdentifier: REQUEST });

      const response = await post(bundle, { ...referrer, userId: 'referrer-1-erika', userName: 'Erika Muster' });

      expect(response.status).toBe(202);
      expect(response.headers.location).toBe(TASK_SEARCH);
      expect(published).toHaveLength(1);
      expect(published[0]).toMatchObject({
        definition: { routingKey: 'document.bundle.submitted.v1' },
        payload: {
          submitter: {
            partyId: 'referrer-1',
            userId: 'referrer-1-erika',
            userName: 'Erika Muster',
            clientAddress: expect.stringMatching(/127\.0\.0\.1$|^::1$/),
          },
          bundle,
          requestIdentifier: REQUEST,
        },
      });
    });

    it("for a request outside the referrer's FHIR base is refused with 403", async () => {
      const response = await post(documentBundle({ requestIdentifier: 'https://other-hospital.example/fhir/ServiceRequest/1' }));

      expect(response.status).toBe(403);
      expect(response.body).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'forbidden' }] });
      expect(published).toEqual([]);
    });

    it('that names no request for one of its documents is refused with 400', async () => {
      const bundle = documentBundle({ requestIdentifier: REQUEST });
      bundle.entry = bundle.entry?.slice(0, 1);

      const response = await post(bundle);

      expect(response.status).toBe(400);
      expect(published).toEqual([]);
    });
  });
});
