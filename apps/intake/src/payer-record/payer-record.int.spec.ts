import { execFileSync } from 'node:child_process';
import { generateKeyPairSync, randomUUID } from 'node:crypto';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import express from 'express';
import { Pool } from 'pg';
import pino from 'pino';
import request from 'supertest';
import type { ClinicRecord, Submitter } from '@bedrequest/contracts';
import { fhirSystems } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { HttpError } from '@bedrequest/http';
import { silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { createTokenVerifier } from '@bedrequest/tokens';
import { AUDIENCE, ISSUER, accessToken, localKeys, newSigningKey, referrerClaims } from '@bedrequest/tokens/testing';
import type { Caller } from '../access';
import { AuditTrail, AuditTrailRepository } from '../audit';
import { OverdueSweep } from '../deadlines';
import { RequestErasureRepository } from '../erasure';
import { openIntakeDatabase, prismaRunner, sealedFor, type IntakeDatabase, type SealedFields } from '../persistence';
import { AdmissionRequestRepository, IntakeService } from '../requests';
import { historyOf, type StoredHistoryEntry, type TaskNote } from '../tasks';
import { admissionCommand, clinicAnswerCommand, testSealedFields } from '../testing';
import { PayerRecordRepository } from './payer-record.repository';
import { RECORD_CLI } from './record-cli';
import { payerRecordRouter } from './payer-record.router';
import { PayerRecordService } from './payer-record.service';
import { signRecord, verifyRecord } from './record-signature';
import { RecordSigningKeys, thumbprintOf } from './record-signing-keys';

const env = testEnvironment();
const systems = fhirSystems();
const A = '510000001';
const B = '510000003';
const registry = new Map<string, ClinicRecord>([A, B].map((ik) => [ik, { ik, name: ik, departments: [{ code: '2300', specialty: 'x', display: 'x' }] }]));
const HOSPITAL = {
  partyId: `referrer-record-${randomUUID()}`,
  ikNumbers: [FIXTURE_REQUESTER_IK],
  fhirBase: FIXTURE_FHIR_BASE,
  userId: 'anna',
  userName: 'Anna Aufnahme',
};
const ANNA: Caller = { viewer: { role: 'referrer', partyId: HOSPITAL.partyId }, user: 'anna', userName: 'Anna Aufnahme' };
const STRANGER: Caller = { viewer: { role: 'referrer', partyId: 'another-hospital' }, user: 'eve' };
const DAY_MS = 24 * 60 * 60 * 1000;

/** Parses RFC 4180 CSV as the record writes it (every field quoted), skipping `#` comment lines. */
function parseCsv(text: string): Record<string, string>[] {
  const rows: string[][] = [];
  let row: string[] = [];
  let i = 0;
  while (i < text.length) {
    if (row.length === 0 && text[i] === '#') {
      i = text.indexOf('\n', i) + 1;
      continue;
    }
    if (text[i] !== '"') throw new Error(`unquoted field at ${i}`);
    let value = '';
    i += 1;
    for (;;) {
      const quote = text.indexOf('"', i);
      value += text.slice(i, quote);
      i = quote + 1;
      if (text[i] === '"') {
        value += '"';
        i += 1;
      } else break;
    }
    row.push(value);
    if (text[i] === ',') i += 1;
    else if (text.startsWith('\r\n', i)) {
      rows.push(row);
      row = [];
      i += 2;
    }
  }
  const [header, ...records] = rows;
  return records.map((cells) => Object.fromEntries(header!.map((name, index) => [name, cells[index]!])));
}

/**
 * The record for the payer against the real PostgreSQL: a placement through intake (two clinics
 * asked with a short deadline, both marked overdue, one answer with a note, a selection and its
 * withdrawal, the patient ready for transfer), its CSV and PDF read back and
 * compared with the Tasks' histories, the signature checked, refused when changed, and verified
 * after rotations.
 */
describe("the payer's record", () => {
  const schema = uniqueName('intake_payer_record');
  let prisma: IntakeDatabase;
  let pool: Pool;
  let fields: SealedFields;
  let service: IntakeService;
  let keys: RecordSigningKeys;
  let records: PayerRecordService;
  let clock = new Date();
  const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
  let taskIds: Record<string, string>;

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 4 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    fields = await testSealedFields(prisma, schema);
    const clinics = { lookup: async (iks: readonly string[]) => new Map(iks.flatMap((ik) => (registry.has(ik) ? [[ik, registry.get(ik)!] as const] : []))) };
    service = new IntakeService(new AdmissionRequestRepository(prismaRunner(prisma), schema, fields), clinics, systems, { now: () => clock });
    keys = new RecordSigningKeys(prisma, schema, fields, { maxAgeDays: 30 });
    const audit = new AuditTrail(new AuditTrailRepository(prismaRunner(prisma), schema));
    records = new PayerRecordService(new PayerRecordRepository(prisma, schema, fields), keys, audit, { now: () => clock });

    const submitter = { ...HOSPITAL };
    const deadline = new Date(Date.now() + 800);
    clock = new Date();
    await service.handle([admissionCommand({ requestIdentifier: identifier, performerIks: [A, B] }, submitter, deadline.toISOString())]);
    await new Promise((resolve) => setTimeout(resolve, deadline.getTime() - Date.now() + 100));
    expect(await new OverdueSweep(prisma, schema, fields, systems, { logger: pino({ level: 'silent' }), intervalMs: 1000 }).run()).toBe(2);
    const { rows } = await pool.query<{ id: string; clinic_ik: string }>(
      `SELECT t.id, t.clinic_ik FROM "${schema}".clinic_task t JOIN "${schema}".admission_request r ON r.id = t.request_id WHERE r.identifier = $1`,
      [identifier],
    );
    taskIds = Object.fromEntries(rows.map((row) => [row.clinic_ik, row.id]));
    const step = async (command: Parameters<IntakeService['handle']>[0][number]) => {
      clock = new Date(clock.getTime() + 60_000);
      const [outcome] = await service.handle([command]);
      if (outcome?.outcome !== 'accepted') throw new Error(JSON.stringify(outcome));
    };
    await step(clinicAnswerCommand({ taskId: taskIds[A]!, clinicIk: A, businessStatus: 'accepted', note: 'Bett frei ab Montag, "Zimmer 3"', user: 'c1' }));
    const order = (orderDetail: 'selected-provider' | 'selected-provider-cancelled', by: Submitter) =>
      admissionCommand({ requestIdentifier: identifier, intent: 'order', orderDetail, performerIks: [A], patient: 'complete' }, by);
    // A colleague selects; the withdrawal comes with a token that names no display name.
    await step(order('selected-provider', { ...HOSPITAL, userId: 'ben', userName: 'Ben Belegung' }));
    const { partyId, ikNumbers, fhirBase } = HOSPITAL;
    await step(order('selected-provider-cancelled', { partyId, ikNumbers, fhirBase, userId: 'carl' }));
    clock = new Date(clock.getTime() + 60_000);
    await records.setReadyForTransfer({ identifier, readyAt: '2026-12-01T07:30:00+01:00' }, ANNA);
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  /** Every time the Tasks' histories, the versions and the deadlines hold, as the API gives them. */
  const storedTimes = async () => {
    const { rows: tasks } = await pool.query<{ id: string; clinic_ik: string; sealed_history: Buffer; sealed_notes: Buffer | null; answer_deadline: Date }>(
      `SELECT id, clinic_ik, sealed_history, sealed_notes, answer_deadline FROM "${schema}".clinic_task WHERE id = ANY($1::uuid[])`,
      [Object.values(taskIds)],
    );
    const times: string[] = [];
    for (const task of tasks) {
      const stored = await fields.open<StoredHistoryEntry[]>(sealedFor.history(task.id), task.sealed_history);
      const notes = task.sealed_notes ? await fields.open<TaskNote[]>(sealedFor.notes(task.id), task.sealed_notes) : [];
      times.push(...historyOf(notes, stored, task.clinic_ik).map((entry) => entry.at), task.answer_deadline.toISOString());
    }
    const { rows: versions } = await pool.query<{ received_at: Date }>(
      `SELECT v.received_at FROM "${schema}".request_version v JOIN "${schema}".admission_request r ON r.id = v.request_id WHERE r.identifier = $1`,
      [identifier],
    );
    return [...times, ...versions.map((row) => row.received_at.toISOString()), '2026-12-01T06:30:00.000Z'].sort();
  };

  it('lists in the CSV one row per event, whose times are those of the Task histories, versions, deadlines and the ready-for-transfer time', async () => {
    const { file, kind } = await records.record(taskIds[B]!, 'csv', ANNA);
    expect(kind).toBe('csv');
    const text = file.toString('utf8');
    expect(text).toContain('# Patient: ');
    const rows = parseCsv(text);
    expect(rows.map((row) => row.at_utc).sort()).toEqual(await storedTimes());
    // Who sent each version, with the display name its AuditEvent recorded; none recorded, the user id alone.
    expect(rows.filter((row) => row.event === 'request-sent' || row.event === 'supplement').map((row) => [row.event, row.version, row.by])).toEqual([
      ['request-sent', '1', 'user:anna (Anna Aufnahme)'],
      ['supplement', '2', 'user:ben (Ben Belegung)'],
      ['supplement', '3', 'user:carl'],
    ]);
    expect(rows.filter((row) => row.event === 'asked').map((row) => [row.clinic_ik, row.by])).toEqual(
      expect.arrayContaining([
        [A, 'user:anna (Anna Aufnahme)'],
        [B, 'user:anna (Anna Aufnahme)'],
      ]),
    );
    expect(
      rows
        .filter((row) => row.event === 'overdue')
        .map((row) => row.clinic_ik)
        .sort(),
    ).toEqual([A, B]);
    expect(rows.find((row) => row.event === 'answer')).toMatchObject({
      clinic_ik: A,
      code: 'accepted',
      by: `clinic:${A}`,
      note: 'Bett frei ab Montag, "Zimmer 3"',
    });
    expect(rows.filter((row) => row.event === 'selected' || row.event === 'cancelled').map((row) => [row.event, row.clinic_ik])).toEqual(
      expect.arrayContaining([
        ['selected', A],
        ['cancelled', A],
      ]),
    );
    expect(rows.find((row) => row.event === 'ready-for-transfer')).toMatchObject({ at_utc: '2026-12-01T06:30:00.000Z', by: 'user:anna (Anna Aufnahme)' });
    expect(verifyRecord(file, await keys.publicKeys())).toMatchObject({ valid: true, request: identifier, kind: 'csv' });
  });

  it('writes a PDF that pdftotext reads with every UTC time of the Task histories, signed', async () => {
    const { file } = await records.record(taskIds[A]!, 'pdf', ANNA);
    const path = join(mkdtempSync(join(tmpdir(), 'payer-record-')), 'record.pdf');
    writeFileSync(path, file);
    const text = execFileSync('pdftotext', ['-layout', path, '-'], { encoding: 'utf8' });
    const inPdf = [...text.matchAll(/\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z/g)].map((match) => match[0]);
    for (const at of await storedTimes()) expect(inPdf).toContain(at);
    expect(await records.verify(file)).toMatchObject({ valid: true, request: identifier, kind: 'pdf' });
  });

  it('refuses a record with one changed byte, and one signed with a key that is not the service’s', async () => {
    const { file } = await records.record(taskIds[A]!, 'csv', ANNA);
    const changed = Buffer.from(file);
    const at = changed.indexOf('accepted');
    changed[at] = 'A'.charCodeAt(0);
    expect(await records.verify(changed)).toMatchObject({ valid: false, reason: 'changed' });
    const { privateKey } = generateKeyPairSync('ed25519');
    const { x } = privateKey.export({ format: 'jwk' }) as { x: string };
    const content = file.subarray(0, file.lastIndexOf('# bedrequest-signature'));
    const forged = signRecord(content, { kid: thumbprintOf(x), privateKey }, { request: identifier, kind: 'csv', signedAt: clock });
    expect(await records.verify(forged)).toMatchObject({ valid: false, reason: 'unknown-key', kid: thumbprintOf(x) });
  });

  it('signs with a new key once the old is older than the maximum age or rotated, and still verifies what the old ones signed', async () => {
    const first = await records.record(taskIds[A]!, 'csv', ANNA);
    const firstKid = (await records.verify(first.file)) as { kid: string };
    clock = new Date(clock.getTime() + 31 * DAY_MS);
    const second = await records.record(taskIds[A]!, 'csv', ANNA);
    const secondKid = ((await records.verify(second.file)) as { kid: string }).kid;
    expect(secondKid).not.toBe(firstKid.kid);
    const rotated = await keys.rotate(new Date(clock.getTime() + 1));
    clock = new Date(clock.getTime() + 2);
    const third = await records.record(taskIds[A]!, 'csv', ANNA);
    expect(await records.verify(third.file)).toMatchObject({ valid: true, kid: rotated });
    expect(await records.verify(first.file)).toMatchObject({ valid: true, kid: firstKid.kid });
    expect(await records.verify(second.file)).toMatchObject({ valid: true, kid: secondKid });
    expect((await keys.publicJwks()).map((jwk) => jwk.kid)).toEqual([rotated, secondKid, firstKid.kid]);
    const { rows } = await pool.query<{ sealed: Buffer; x: string }>(`SELECT sealed_private_key AS sealed, public_x AS x FROM "${schema}".record_signing_key`);
    expect(rows.every((row) => !row.sealed.toString('latin1').includes(row.x))).toBe(true);
  });

  it('is checked by `npm run admin -- record verify FILE`: valid with what was signed, refused with exit 1 for a changed byte', async () => {
    const { file } = await records.record(taskIds[A]!, 'pdf', ANNA);
    const dir = mkdtempSync(join(tmpdir(), 'record-cli-'));
    const changed = Buffer.from(file);
    changed[100] = changed[100]! ^ 0x01;
    writeFileSync(join(dir, 'record.pdf'), file);
    writeFileSync(join(dir, 'changed.pdf'), changed);
    const run = async (path: string) => {
      const out: string[] = [];
      const err: string[] = [];
      const code = await RECORD_CLI.run(['record', 'verify', '--file', path], {
        open: async () => ({ services: { keys }, close: async () => undefined }),
        out: (line) => out.push(line),
        err: (line) => err.push(line),
      });
      return { code, out, err };
    };
    const valid = await run(join(dir, 'record.pdf'));
    expect(valid.code).toBe(0);
    expect(valid.out[0]).toMatch(/^valid: the PDF record of the request \S+, signed at \d{4}-\S+Z with the key [A-Za-z0-9_-]{43}$/);
    expect(valid.out[0]).toContain(identifier);
    const refused = await run(join(dir, 'changed.pdf'));
    expect(refused.code).toBe(1);
    expect(refused.err.join('\n')).toContain('not valid (changed)');
  });

  it('answers not found to another party and for a Task that is none, and gone once the patient data was erased', async () => {
    const code = (promise: Promise<unknown>) =>
      promise.then(
        () => 'made',
        (error: unknown) => (error instanceof HttpError ? error.code : String(error)),
      );
    expect(await code(records.record(taskIds[A]!, 'pdf', STRANGER))).toBe('not_found');
    expect(await code(records.record(randomUUID(), 'pdf', ANNA))).toBe('not_found');
    expect(await code(records.record('not-a-task', 'csv', ANNA))).toBe('not_found');
    expect(await code(records.setReadyForTransfer({ identifier, readyAt: null }, STRANGER))).toBe('not_found');
    const kept = await records.record(taskIds[A]!, 'csv', ANNA);
    await new RequestErasureRepository(prisma, schema).erase(
      { identifier, by: { role: 'referrer', partyId: HOSPITAL.partyId } },
      { agent: { kind: 'service', service: 'test' }, reason: 'requested', correlationId: 'test' },
    );
    expect(await code(records.record(taskIds[A]!, 'csv', ANNA))).toBe('gone');
    expect((await pool.query(`SELECT 1 FROM "${schema}".referrer_ready_for_transfer WHERE identifier = $1`, [identifier])).rowCount).toBe(0);
    // A record downloaded before stays verifiable: the service keeps its public keys.
    expect(await records.verify(kept.file)).toMatchObject({ valid: true });
  });

  it("serves through intake's internal API: a referrer's download with no-store, verify without a token and bounded, and the JWKS", async () => {
    const key = await newSigningKey();
    const verifier = createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE });
    const token = await accessToken(key, { sub: 'some-party', claims: { ...referrerClaims, act: { sub: 'x' } } });
    const http = express().use(payerRecordRouter(records, keys, verifier, silentLogger()));
    const other = await request(http).get(`/internal/payer-records/${taskIds[A]!}?format=pdf`).set('authorization', `Bearer ${token}`);
    expect([other.status, other.headers['cache-control']]).toEqual([404, 'no-store']);
    expect((await request(http).get(`/internal/payer-records/${taskIds[A]!}?format=xls`).set('authorization', `Bearer ${token}`)).status).toBe(400);
    expect((await request(http).get(`/internal/payer-records/${taskIds[A]!}?format=pdf`)).status).toBe(401);
    const refused = await request(http).post('/internal/payer-records/verify').set('content-type', 'application/octet-stream').send(Buffer.from('no record'));
    expect([refused.status, refused.body.valid, refused.body.reason]).toEqual([200, false, 'missing-signature']);
    const tooLarge = await request(http)
      .post('/internal/payer-records/verify')
      .set('content-type', 'application/pdf')
      .send(Buffer.alloc(10 * 1024 * 1024 + 1));
    expect(tooLarge.status).toBe(413);
    const jwks = await request(http).get('/internal/payer-records/jwks');
    expect(jwks.body.keys).toHaveLength(3);
  });
});
