import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { workOf } from '@bedrequest/messaging';
import { Pool } from 'pg';
import { AdmissionBundleSubmittedV1, createEnvelope, DocumentBundleSubmittedV1, type ClinicRecord } from '@bedrequest/contracts';
import { admissionRequestSummary, fhirSystems, validateAdmissionRequestBundle } from '@bedrequest/fhir-model';
import { admissionRequestBundle, documentBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { dumpSchemas, formsOf, testEnvironment, uniqueName } from '@bedrequest/testing';
import { INTAKE_KEYS_CLI, openIntakeKeys } from '../cli';
import { IntakeCliConfig } from '../config';
import { openIntakeDatabase, type IntakeDatabase, openSealedFields, prismaRunner } from '../persistence';
import { AdmissionRequestRepository } from './admission-request.repository';
import { canonicalJson } from '../persistence';
import { intakeCommands, type IntakeCommand } from './intake-commands';
import { IntakeService } from './intake.service';

const env = testEnvironment();
const CLINIC = '510000001';
const REFERRER = { partyId: 'referrer-fingerprints', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const registry = new Map<string, ClinicRecord>([
  [CLINIC, { ik: CLINIC, name: CLINIC, departments: [{ code: '2300', specialty: 'orthopedics', display: 'Orthopädie' }] }],
]);
const newKek = () => randomBytes(32).toString('base64');
const plainSha256 = (bundle: unknown) => createHash('sha256').update(canonicalJson(bundle)).digest('hex');

/**
 * How intake recognises a bundle sent again (docs/data-protection.md, "Encryption at rest"): by its
 * keyed fingerprint, against the real PostgreSQL with the keys as production reads them, also
 * through a rotation of the key-encryption key.
 */
describe("intake's bundle fingerprints", () => {
  const schema = uniqueName('intake_fingerprints');
  const keks = { a: newKek(), b: newKek() };
  const keysA = { DATA_KEK: keks.a, DATA_KEK_ID: 'kek-a' };
  const rotated = { DATA_KEK: keks.b, DATA_KEK_ID: 'kek-b', DATA_PREVIOUS_KEKS: `kek-a:${keks.a}` };
  const onlyB = { DATA_KEK: keks.b, DATA_KEK_ID: 'kek-b' };
  let prisma: IntakeDatabase;
  let pool: Pool;

  const configOf = (keys: Record<string, string>) =>
    IntakeCliConfig.parse({ NODE_ENV: 'production', DATABASE_URL: env.databaseUrl, INTAKE_DB_SCHEMA: schema, ...keys });
  /** Intake's use case on the test's schema under these key variables, as it starts. */
  const intakeWith = async (keys: Record<string, string>) => {
    const { fields } = await openSealedFields(configOf(keys), prisma);
    const lookup = async (iks: readonly string[]) => new Map(iks.flatMap((ik) => (registry.has(ik) ? [[ik, registry.get(ik)!] as const] : [])));
    return new IntakeService(new AdmissionRequestRepository(prismaRunner(prisma), schema, fields), { lookup }, fhirSystems());
  };
  /** `npm run admin -- intake ...` on the test's schema, with these key variables. */
  const admin = async (keys: Record<string, string>, ...argv: string[]): Promise<string[]> => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await INTAKE_KEYS_CLI.run(['intake', ...argv], {
      open: () => openIntakeKeys(configOf(keys)),
      out: (line) => out.push(line),
      err: (line) => err.push(line),
    });
    if (code !== 0) throw new Error(`intake ${argv.join(' ')} failed: ${err.join(' ')}`);
    return out;
  };
  const query = async <T>(sql: string, values: unknown[] = []) => (await pool.query(sql.replaceAll('$schema', `"${schema}"`), values)).rows as T[];

  /** A request's bundle and a document for it, and the commands that send each (again: a new message each time). */
  const newRequest = () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const bundle = admissionRequestBundle({
      requestIdentifier: identifier,
      performerIks: [CLINIC],
      notes: [`Z. n. Sturz (${randomUUID()})`],
    }) as unknown as Record<string, unknown>;
    const document = documentBundle({
      requestIdentifier: identifier,
      documents: [{ contentType: 'text/plain', text: `Arztbrief ${randomUUID()}` }],
    }) as unknown as Record<string, unknown>;
    const validation = validateAdmissionRequestBundle(bundle, { profileBase: fhirSystems().profileBase });
    if (!validation.ok) throw new Error(JSON.stringify(validation.issues));
    const request = admissionRequestSummary(validation.bundle);
    const send = (): IntakeCommand[] => [
      workOf(intakeCommands, {
        envelope: createEnvelope(
          AdmissionBundleSubmittedV1,
          { submitter: REFERRER, receivedAt: new Date().toISOString(), bundle, request },
          { correlationId: 'fingerprints' },
        ),
        definition: AdmissionBundleSubmittedV1,
      }),
      workOf(intakeCommands, {
        envelope: createEnvelope(
          DocumentBundleSubmittedV1,
          { submitter: REFERRER, receivedAt: new Date().toISOString(), bundle: document, requestIdentifier: identifier },
          { correlationId: 'fingerprints' },
        ),
        definition: DocumentBundleSubmittedV1,
      }),
    ];
    return { identifier, bundle, document, send };
  };
  type Request = ReturnType<typeof newRequest>;

  /** The request's stored hashes: its latest, its versions' and its documents'. */
  const hashesOf = async (identifier: string) => {
    const [request] = await query<{ id: string; latest_hash: string }>('SELECT id, latest_hash FROM $schema.admission_request WHERE identifier = $1', [
      identifier,
    ]);
    const versions = await query<{ canonical_hash: string }>('SELECT canonical_hash FROM $schema.request_version WHERE request_id = $1 ORDER BY version', [
      request!.id,
    ]);
    const documents = await query<{ canonical_hash: string }>('SELECT canonical_hash FROM $schema.request_document WHERE request_id = $1', [request!.id]);
    return { latest: request!.latest_hash, versions: versions.map((row) => row.canonical_hash), documents: documents.map((row) => row.canonical_hash) };
  };
  /** Sends the request's bundle and document again: both are recognised, nothing new is stored. */
  const expectRecognised = async (service: IntakeService, request: Request) => {
    expect((await service.handle(request.send())).map((verdict) => verdict.outcome)).toEqual(['unchanged', 'unchanged']);
    expect(
      await query('SELECT version FROM $schema.request_version v JOIN $schema.admission_request r ON r.id = v.request_id WHERE r.identifier = $1', [
        request.identifier,
      ]),
    ).toEqual([{ version: 1 }]);
  };
  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 4 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
  });

  afterAll(async () => {
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await pool.end();
  });

  let first: Request;
  let keyed: Awaited<ReturnType<typeof hashesOf>>;

  it('stores keyed fingerprints and recognises a bundle and a document sent again; a dump of the schema holds no plain SHA-256 of either', async () => {
    const intake = await intakeWith(keysA);
    first = newRequest();
    expect((await intake.handle(first.send())).map((verdict) => verdict.outcome)).toEqual(['accepted', 'accepted']);
    keyed = await hashesOf(first.identifier);
    expect(keyed).toEqual({
      latest: expect.stringMatching(/^hmac-sha256:[0-9a-f]{64}$/),
      versions: [keyed.latest],
      documents: [expect.stringMatching(/^hmac-sha256:[0-9a-f]{64}$/)],
    });
    await expectRecognised(intake, first);

    const dump = await dumpSchemas(env.databaseUrl, [schema]);
    expect(dump).toContain(keyed.latest);
    for (const hash of [plainSha256(first.bundle), plainSha256(first.document)]) {
      for (const form of formsOf(hash)) expect({ form, found: dump.includes(form) }).toEqual({ form, found: false });
    }
  });

  it('recognises the same bundles after a new data key, a new KEK, its reencrypt and without the old KEK', async () => {
    expect((await admin(keysA, 'new-data-key'))[0]).toMatch(/^data key \S+ made under kek-a/);
    await expectRecognised(await intakeWith(keysA), first);

    await expectRecognised(await intakeWith(rotated), first);
    const [key] = await query<{ id: string }>('SELECT id::text FROM $schema.fingerprint_key');
    const lines = await admin(rotated, 'reencrypt');
    expect(lines).toContain(`fingerprint key ${key!.id}: re-wrapped from kek-a to kek-b`);
    expect(await query('SELECT id::text, kek_id FROM $schema.fingerprint_key')).toEqual([{ id: key!.id, kek_id: 'kek-b' }]);
    expect(await admin(onlyB, 'keys')).toEqual(
      expect.arrayContaining([expect.stringMatching(new RegExp(`^fingerprint key ${key!.id}  wrapped by kek-b  created \\S+$`))]),
    );

    await expectRecognised(await intakeWith(onlyB), first);
    expect(await hashesOf(first.identifier)).toEqual(keyed);
  });

  it('does not start with a fingerprint key whose KEK is not configured, rather than recognise nothing', async () => {
    await expect(intakeWith({ DATA_KEK: newKek(), DATA_KEK_ID: 'kek-c' })).rejects.toThrow(
      /fingerprint key \S+ is wrapped by key-encryption key "kek-b", which is neither DATA_KEK nor in DATA_PREVIOUS_KEKS/,
    );
  });
});
