import { randomUUID } from 'node:crypto';
import express from 'express';
import { Pool } from 'pg';
import request from 'supertest';
import { CaseNumberInput, CaseNumberSearch, DraftInput, MAX_DRAFT_CONTENT_BYTES, MAX_REFERRER_DRAFTS, type ClinicRecord } from '@bedrequest/contracts';
import { fhirSystems } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { HttpError } from '@bedrequest/http';
import { silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { createTokenVerifier } from '@bedrequest/tokens';
import { AUDIENCE, ISSUER, accessToken, clinicClaims, localKeys, newSigningKey, referrerClaims } from '@bedrequest/tokens/testing';
import { RequestErasureRepository, RetentionJob } from '../erasure';
import { openIntakeDatabase, prismaRunner, type IntakeDatabase } from '../persistence';
import { AdmissionRequestRepository, IntakeService } from '../requests';
import { admissionCommand, testSealedFields } from '../testing';
import { ReferrerWorkspaceRepository } from './referrer-workspace.repository';
import { referrerWorkspaceRouter } from './referrer-workspace.router';
import { ReferrerWorkspaceService, type ReferrerCaller } from './referrer-workspace.service';

const env = testEnvironment();
const CLINIC = '510000001';
const clinic: ClinicRecord = { ik: CLINIC, name: CLINIC, departments: [{ code: '2300', specialty: 'x', display: 'x' }] };
const HOSPITAL = { partyId: 'referrer-own-data', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const person = (partyId: string, user: string, userName?: string): ReferrerCaller => ({
  viewer: { role: 'referrer', partyId },
  user,
  ...(userName ? { userName } : {}),
});
const ANNA = person(HOSPITAL.partyId, 'anna', 'Anna Aufnahme');
const BEN = person(HOSPITAL.partyId, 'ben');
const STRANGER = person('another-hospital', 'eve', 'Eve Fremd');
const DAY_MS = 24 * 60 * 60 * 1000;

/**
 * The hospital's own data against the real PostgreSQL (the gateway's side:
 * apps/gateway/src/referrer-api/referrer-workspace.router.spec.ts): case numbers set before the
 * request is stored, found by a keyed digest ignoring case, sealed at rest and erased with the
 * request; drafts bounded per party, sealed, and deleted after their retention.
 */
describe("a hospital's case numbers and drafts", () => {
  const schema = uniqueName('intake_referrer_ws');
  let prisma: IntakeDatabase;
  let pool: Pool;
  let intake: IntakeService;
  let repository: ReferrerWorkspaceRepository;
  let erasures: RequestErasureRepository;
  let clock: Date;
  let workspace: ReferrerWorkspaceService;

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 4 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 2 });
    const fields = await testSealedFields(prisma, schema);
    intake = new IntakeService(
      new AdmissionRequestRepository(prismaRunner(prisma), schema, fields),
      { lookup: async () => new Map([[CLINIC, clinic]]) },
      fhirSystems(),
    );
    repository = new ReferrerWorkspaceRepository(prisma, schema, fields);
    erasures = new RequestErasureRepository(prisma, schema);
    workspace = new ReferrerWorkspaceService(repository, { now: () => clock });
  });
  beforeEach(() => {
    clock = new Date();
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  const newIdentifier = () => `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
  const send = (identifier: string) => intake.handle([admissionCommand({ requestIdentifier: identifier, performerIks: [CLINIC] }, HOSPITAL)]);
  const setCaseNumber = (identifier: string, caseNumber: string | null, caller = ANNA) =>
    workspace.setCaseNumber(CaseNumberInput.parse({ identifier, caseNumber }), caller);
  const search = (query: unknown, caller = ANNA) => workspace.searchCaseNumbers(CaseNumberSearch.parse(query), caller);
  const refusal = (promise: Promise<unknown>) =>
    promise.then(
      () => 'done',
      (error: unknown) => (error instanceof HttpError ? error.code : String(error)),
    );
  /** Rows of `table` whose text form (bytea in hex) holds `text` in clear. */
  const rowsHolding = async (table: string, text: string) =>
    (await pool.query(`SELECT 1 FROM "${schema}".${table} t WHERE position($1 IN t::text) > 0`, [text])).rowCount;

  describe('case numbers', () => {
    it('keeps a case number set before the request is stored, and finds it by the number in any case and by identifier', async () => {
      const identifier = newIdentifier();
      const caseNumber = `FN-${randomUUID().slice(0, 8)}/2026`;

      const stored = await setCaseNumber(identifier, `  ${caseNumber} `);
      await send(identifier);

      expect(stored).toEqual({ identifier, caseNumber, updatedAt: clock.toISOString(), updatedByName: 'Anna Aufnahme' });
      expect((await search({ caseNumber: caseNumber.toLowerCase() })).items).toEqual([stored]);
      expect((await search({ caseNumber: ` ${caseNumber.toUpperCase()}` })).items).toEqual([stored]);
      expect((await search({ identifiers: [identifier, newIdentifier(), identifier] })).items).toEqual([stored]);
      expect((await search({ caseNumber: `${caseNumber}0` })).items).toEqual([]);
    });

    it('replaces a case number, naming who changed it, and removes it with null', async () => {
      const identifier = newIdentifier();
      await setCaseNumber(identifier, 'A-1');

      const changed = await setCaseNumber(identifier, 'A-2', BEN);
      expect(changed).toEqual({ identifier, caseNumber: 'A-2', updatedAt: clock.toISOString() });
      expect((await search({ caseNumber: 'a-1' })).items.filter((item) => item.identifier === identifier)).toEqual([]);
      expect((await search({ identifiers: [identifier] })).items).toEqual([changed]);

      expect(await setCaseNumber(identifier, null)).toEqual({ identifier, caseNumber: null, updatedAt: clock.toISOString(), updatedByName: 'Anna Aufnahme' });
      expect((await search({ identifiers: [identifier] })).items).toEqual([]);
    });

    it("never shows another party's case numbers, even for the same identifier and number", async () => {
      const identifier = newIdentifier();
      const caseNumber = `FN ${randomUUID().slice(0, 8)}`;
      await setCaseNumber(identifier, caseNumber);
      await setCaseNumber(identifier, `${caseNumber}-x`, STRANGER);

      expect((await search({ caseNumber }, STRANGER)).items).toEqual([]);
      expect((await search({ identifiers: [identifier] }, STRANGER)).items.map((item) => item.caseNumber)).toEqual([`${caseNumber}-x`]);
      expect((await search({ identifiers: [identifier] })).items.map((item) => item.caseNumber)).toEqual([caseNumber]);
    });

    it('stores the number sealed: neither the number nor its author in clear, and a keyed digest', async () => {
      const identifier = newIdentifier();
      const caseNumber = `Klartext-${randomUUID().slice(0, 8)}`;
      await setCaseNumber(identifier, caseNumber);

      const { rows } = await pool.query<{ sealed: Buffer; digest: string }>(
        `SELECT sealed_case_number AS sealed, case_number_digest AS digest FROM "${schema}".referrer_case_number WHERE identifier = $1`,
        [identifier],
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]!.sealed.toString('latin1')).not.toContain(caseNumber);
      expect(rows[0]!.digest).toMatch(/^hmac-sha256:[0-9a-f]{64}$/);
      expect(await rowsHolding('referrer_case_number', caseNumber)).toBe(0);
      expect(await rowsHolding('referrer_case_number', 'Anna Aufnahme')).toBe(0);
    });

    it("is deleted with the request's patient data, the other party's for the same identifier kept, and taken no more after", async () => {
      const identifier = newIdentifier();
      await send(identifier);
      await setCaseNumber(identifier, 'FN-ERASE-1');
      await setCaseNumber(identifier, 'FN-OTHER-1', STRANGER);

      await erasures.erase(
        { identifier, by: { role: 'referrer', partyId: HOSPITAL.partyId } },
        { agent: { kind: 'service', service: 'test' }, reason: 'requested', correlationId: 'test' },
      );

      expect((await search({ identifiers: [identifier] })).items).toEqual([]);
      expect((await search({ caseNumber: 'fn-erase-1' })).items).toEqual([]);
      expect((await search({ identifiers: [identifier] }, STRANGER)).items.map((item) => item.caseNumber)).toEqual(['FN-OTHER-1']);
      expect(await refusal(setCaseNumber(identifier, 'FN-ERASE-2'))).toBe('gone');
    });
  });

  describe('drafts', () => {
    const draft = (label?: string) =>
      DraftInput.parse({ ...(label ? { label } : {}), content: { patient: { name: `Erika ${randomUUID()}` }, clinics: [CLINIC] } });

    it('saves, lists newest first without content, reads, replaces and deletes a draft of the party', async () => {
      const party = person(`hospital-${randomUUID()}`, 'carla', 'Carla Case');
      const first = await workspace.createDraft(draft('Frau M., Hüft-TEP'), party);
      clock = new Date(clock.getTime() + 1_000);
      const second = await workspace.createDraft(draft(), person(party.viewer.partyId, 'dora'));

      expect(first).toEqual({
        id: expect.any(String),
        label: 'Frau M., Hüft-TEP',
        content: expect.any(Object),
        savedAt: expect.any(String),
        savedByName: 'Carla Case',
      });
      expect((await workspace.listDrafts(party)).items).toEqual([
        { id: second.id, savedAt: second.savedAt },
        { id: first.id, label: 'Frau M., Hüft-TEP', savedAt: first.savedAt, savedByName: 'Carla Case' },
      ]);
      expect(await workspace.readDraft(first.id, party)).toEqual(first);

      clock = new Date(clock.getTime() + 1_000);
      const replaced = await workspace.updateDraft(first.id, draft('Frau M., neu'), person(party.viewer.partyId, 'dora'));
      expect(replaced).toMatchObject({ id: first.id, label: 'Frau M., neu', savedAt: clock.toISOString() });
      expect(replaced.savedByName).toBeUndefined();
      expect((await workspace.listDrafts(party)).items.map((item) => item.id)).toEqual([first.id, second.id]);

      await workspace.deleteDraft(first.id, party);
      expect(await refusal(workspace.readDraft(first.id, party))).toBe('not_found');
      expect((await workspace.listDrafts(party)).items.map((item) => item.id)).toEqual([second.id]);
    });

    it("answers not found for another party's draft and for an id that is none, and lists none of it", async () => {
      const mine = await workspace.createDraft(draft('meiner'), ANNA);

      for (const attempt of [
        workspace.readDraft(mine.id, STRANGER),
        workspace.updateDraft(mine.id, draft('gestohlen'), STRANGER),
        workspace.deleteDraft(mine.id, STRANGER),
        workspace.readDraft('not-a-draft', ANNA),
        workspace.readDraft(randomUUID(), ANNA),
      ]) {
        expect(await refusal(attempt)).toBe('not_found');
      }
      expect((await workspace.listDrafts(STRANGER)).items.map((item) => item.id)).not.toContain(mine.id);
      expect(await workspace.readDraft(mine.id, ANNA)).toMatchObject({ label: 'meiner' });
    });

    it('seals label and content: neither is in the table in clear', async () => {
      const secret = `Erika Musterpatientin ${randomUUID()}`;
      const saved = await workspace.createDraft(DraftInput.parse({ label: `Label ${secret}`, content: { name: secret } }), ANNA);

      expect(await rowsHolding('referrer_draft', secret)).toBe(0);
      expect((await workspace.readDraft(saved.id, ANNA)).content).toEqual({ name: secret });
    });

    it(`keeps at most ${MAX_REFERRER_DRAFTS} drafts per party, also when saved at once`, async () => {
      const party = person(`hospital-${randomUUID()}`, 'fritz');
      const outcomes = await Promise.all(Array.from({ length: MAX_REFERRER_DRAFTS + 3 }, () => refusal(workspace.createDraft(draft(), party))));

      expect(outcomes.filter((outcome) => outcome === 'done')).toHaveLength(MAX_REFERRER_DRAFTS);
      expect(outcomes.filter((outcome) => outcome === 'conflict')).toHaveLength(3);
      expect((await workspace.listDrafts(party)).items).toHaveLength(MAX_REFERRER_DRAFTS);
      expect((await workspace.createDraft(draft(), ANNA)).id).toEqual(expect.any(String));
    });

    it('takes content up to 256 KiB as JSON and refuses more', async () => {
      const filler = (bytes: number) => ({ text: 'x'.repeat(bytes - JSON.stringify({ text: '' }).length) });
      const largest = await workspace.createDraft(DraftInput.parse({ content: filler(MAX_DRAFT_CONTENT_BYTES) }), ANNA);

      expect(JSON.stringify((await workspace.readDraft(largest.id, ANNA)).content)).toHaveLength(MAX_DRAFT_CONTENT_BYTES);
      expect(() => HttpError.parseInput(DraftInput, { content: filler(MAX_DRAFT_CONTENT_BYTES + 1) })).toThrow('content: must be at most 256 KiB as JSON');
      expect(() => HttpError.parseInput(DraftInput, { content: ['not', 'an', 'object'] })).toThrow(/^content: /);
    });

    it('are deleted by the retention job once their last save is older than the retention', async () => {
      const party = person(`hospital-${randomUUID()}`, 'greta');
      clock = new Date(Date.now() - 31 * DAY_MS);
      const old = await workspace.createDraft(draft('alt'), party);
      const resaved = await workspace.createDraft(draft('wieder gespeichert'), party);
      clock = new Date(Date.now() - 29 * DAY_MS);
      const recent = await workspace.createDraft(draft('neu'), party);
      clock = new Date();
      await workspace.updateDraft(resaved.id, draft('wieder gespeichert'), party);

      const job = new RetentionJob(erasures, { selectedDays: 90, erasureDelayDays: 30 }, silentLogger(), {
        drafts: { days: 30, deleteSavedBefore: (before) => repository.deleteDraftsSavedBefore(before) },
      });
      await job.run();

      expect((await workspace.listDrafts(party)).items.map((item) => item.id).sort()).toEqual([recent.id, resaved.id].sort());
      expect(await refusal(workspace.readDraft(old.id, party))).toBe('not_found');
    });
  });
  describe("intake's internal API, with the forwarded token", () => {
    const app = async () => {
      const key = await newSigningKey();
      const verifier = createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE });
      const tokens = {
        anna: await accessToken(key, { sub: HOSPITAL.partyId, claims: { ...referrerClaims, act: { sub: 'anna', name: 'Anna Aufnahme' } } }),
        clinic: await accessToken(key, { claims: clinicClaims }),
      };
      return { http: express().use(referrerWorkspaceRouter(workspace, verifier, silentLogger())), tokens };
    };

    it("stores for the token's party and names its person, and refuses a clinic's token and none", async () => {
      const { http, tokens } = await app();
      const identifier = newIdentifier();

      const put = await request(http)
        .put('/internal/referrer-workspace/case-numbers')
        .set('authorization', `Bearer ${tokens.anna}`)
        .send({ identifier, caseNumber: 'FN-HTTP-1' });
      expect([put.status, put.body]).toEqual([200, { identifier, caseNumber: 'FN-HTTP-1', updatedAt: expect.any(String), updatedByName: 'Anna Aufnahme' }]);
      expect((await search({ identifiers: [identifier] })).items.map((item) => item.caseNumber)).toEqual(['FN-HTTP-1']);

      const created = await request(http).post('/internal/referrer-workspace/drafts').set('authorization', `Bearer ${tokens.anna}`).send({ content: {} });
      expect([created.status, created.body.savedByName]).toEqual([201, 'Anna Aufnahme']);
      const deleted = await request(http)
        .delete(`/internal/referrer-workspace/drafts/${String(created.body.id)}`)
        .set('authorization', `Bearer ${tokens.anna}`);
      expect(deleted.status).toBe(204);
      const bad = await request(http).put('/internal/referrer-workspace/case-numbers').set('authorization', `Bearer ${tokens.anna}`).send({ identifier });
      expect([bad.status, bad.body]).toEqual([400, { error: 'invalid_request', message: 'caseNumber: is required' }]);

      const clinicAnswer = await request(http).get('/internal/referrer-workspace/drafts').set('authorization', `Bearer ${tokens.clinic}`);
      expect([clinicAnswer.status, clinicAnswer.body.error]).toEqual([403, 'forbidden']);
      expect((await request(http).get('/internal/referrer-workspace/drafts')).status).toBe(401);
    });
  });
});
