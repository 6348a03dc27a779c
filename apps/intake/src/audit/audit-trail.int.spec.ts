import { randomUUID } from 'node:crypto';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AuditEvent, Bundle } from '@medplum/fhirtypes';
import { Pool } from 'pg';
import { Registry } from 'prom-client';
import type { ClinicRecord } from '@bedrequest/contracts';
import { fhirSystems } from '@bedrequest/fhir-model';
import { FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK, type admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { createServiceHttpApp, listen } from '@bedrequest/observability';
import { expectValidFhir, silentLogger, testEnvironment, uniqueName } from '@bedrequest/testing';
import { createTokenVerifier } from '@bedrequest/tokens';
import { AUDIENCE, ISSUER, accessToken, localKeys, newSigningKey } from '@bedrequest/tokens/testing';
import { AUDIT_CLI, REQUEST_CLI, openIntakeServices } from '../cli';
import type { IntakeCliConfig } from '../config';
import { internalRouter } from '../http';
import { openIntakeDatabase, type IntakeDatabase, prismaRunner } from '../persistence';
import { RequestErasureRepository } from '../erasure';
import { admissionCommand, clinicAnswerCommand, documentCommand, testSealedFields } from '../testing';
import { AdmissionRequestRepository, IntakeService } from '../requests';
import { TaskReadRepository, TaskReadService } from '../tasks';
import { AuditTrailRepository } from './audit-trail.repository';
import { AuditTrail } from './audit-trail.service';

const env = testEnvironment();
const A = '510000001';
const B = '510000002';
const REFERRER = { partyId: 'referrer-audit', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
/** A referrer party of several people, each with a token of their own (docs/parties.md). */
const TEAM = { partyId: 'referrer-team', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const ERIKA_ACT = { sub: 'team-erika', name: 'Erika Muster' };
const MAX_ACT = { sub: 'team-max', name: 'Max Müller' };
const ANNA_ACT = { sub: 'clinic-a-anna', name: 'Anna Köhler' };
const clinic = (ik: string, departments: string[]): ClinicRecord => ({
  ik,
  name: ik,
  departments: departments.map((code) => ({ code, specialty: 'x', display: 'x' })),
});
// A offers orthopaedics (what the fixtures ask for); B does not, and is declined at once.
const registry = new Map([
  [A, clinic(A, ['2300'])],
  [B, clinic(B, ['0300'])],
]);

interface AuditRow {
  seq: number;
  action: string;
  subtype: string;
  agent_user: string | null;
  agent_ik: string | null;
  role: string;
  address: string | null;
  entities: string[];
}

/**
 * The audit trail against the real PostgreSQL: every change is recorded in the statement that
 * makes it, every read before it is answered (over intake's internal HTTP API, as the gateway
 * calls it), the search shows each party only its own, and the chain shows an edit.
 */
describe('the audit trail', () => {
  const schema = uniqueName('intake_audit');
  let prisma: IntakeDatabase;
  let pool: Pool;
  let service: IntakeService;
  let server: Server;
  let baseUrl: string;
  let tokens: Record<'referrer' | 'otherReferrer' | 'clinicA' | 'clinicB' | 'erika' | 'max' | 'anna', string>;

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 4 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 2 });
    const clinics = { lookup: async (iks: readonly string[]) => new Map(iks.flatMap((ik) => (registry.has(ik) ? [[ik, registry.get(ik)!] as const] : []))) };
    service = new IntakeService(new AdmissionRequestRepository(prismaRunner(prisma), schema, await testSealedFields(prisma, schema)), clinics, fhirSystems());

    const key = await newSigningKey();
    tokens = {
      referrer: await accessToken(key, { sub: REFERRER.partyId, claims: { role: 'referrer', ik: REFERRER.ikNumbers, fhirBase: FIXTURE_FHIR_BASE } }),
      otherReferrer: await accessToken(key, { sub: 'referrer-other', claims: { role: 'referrer', ik: ['260000009'], fhirBase: 'https://other.example/fhir' } }),
      clinicA: await accessToken(key, { sub: 'user-of-a', claims: { role: 'clinic', ik: [A] } }),
      clinicB: await accessToken(key, { sub: 'user-of-b', claims: { role: 'clinic', ik: [B] } }),
      // Two people of one referrer party and a person of clinic A: `sub` the party, `act` the person (docs/parties.md, "Tokens").
      erika: await accessToken(key, { sub: TEAM.partyId, claims: { role: 'referrer', ik: TEAM.ikNumbers, fhirBase: FIXTURE_FHIR_BASE, act: ERIKA_ACT } }),
      max: await accessToken(key, { sub: TEAM.partyId, claims: { role: 'referrer', ik: TEAM.ikNumbers, fhirBase: FIXTURE_FHIR_BASE, act: MAX_ACT } }),
      anna: await accessToken(key, { sub: 'clinic-a-party', claims: { role: 'clinic', ik: [A], act: ANNA_ACT } }),
    };
    const audit = new AuditTrail(new AuditTrailRepository(prismaRunner(prisma), schema));
    const tasks = new TaskReadService(new TaskReadRepository(prisma, schema, await testSealedFields(prisma, schema)), fhirSystems(), audit);
    const verifier = createTokenVerifier({ keys: localKeys(key), issuer: ISSUER, audience: AUDIENCE });
    // The test calls as the gateway does, from a trusted proxy on loopback with the client's address in X-Forwarded-For.
    const app = createServiceHttpApp({ logger: silentLogger(), registry: new Registry(), trustedProxies: ['loopback'] });
    server = await listen(app.use(internalRouter(tasks, audit, new RequestErasureRepository(prisma, schema), verifier, silentLogger())), 0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  const newIdentifier = () => `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
  const submission = (options: Parameters<typeof admissionRequestBundle>[0]) => admissionCommand(options, REFERRER);
  const documents = (requestIdentifier: string) => documentCommand(requestIdentifier, REFERRER);
  const answer = (taskId: string, clinicIk: string) =>
    clinicAnswerCommand({ taskId, clinicIk, businessStatus: 'accepted', note: 'Aufnahme am Montag möglich', user: `user-of-${clinicIk}` });
  const query = async <T>(sql: string, values: unknown[] = []) => (await pool.query(sql.replaceAll('$schema', `"${schema}"`), values)).rows as T[];
  const taskOf = async (identifier: string, clinicIk: string) =>
    (
      await query<{ id: string }>(
        'SELECT t.id FROM $schema.clinic_task t JOIN $schema.admission_request r ON r.id = t.request_id WHERE r.identifier = $1 AND t.clinic_ik = $2',
        [identifier, clinicIk],
      )
    )[0]!.id;
  /** The request's entries in chain order, reduced to what the tests compare. */
  const entriesOf = (identifier: string) =>
    query<AuditRow>(
      `SELECT seq, resource ->> 'action' AS action, resource #>> '{subtype,0,code}' AS subtype, agent_user, agent_ik,
              resource #>> '{agent,0,role,0,text}' AS role, resource #>> '{agent,0,network,address}' AS address,
              ARRAY(SELECT coalesce(e -> 'what' ->> 'reference', e -> 'what' #>> '{identifier,value}', e -> 'role' ->> 'display') FROM jsonb_array_elements(resource -> 'entity') e) AS entities
         FROM $schema.audit_events WHERE request_identifier = $1 ORDER BY day, seq`,
      [identifier],
    );
  const get = async (path: string, token: string, address = '203.0.113.42') => {
    // A connection per call, as tools/e2e/api-client.ts does: a kept-alive one can be closed by the
    // server's idle timeout just as a call goes out on a loaded machine (ECONNRESET), which is not what this tests.
    const response = await fetch(`${baseUrl}${path}`, { headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': address, connection: 'close' } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };
  const search = async (params: string, token: string) => {
    const answer = await get(`/internal/audit-events?${params}`, token);
    expect(answer.status).toBe(200);
    expectValidFhir(answer.body, `AuditEvent search ${params}`);
    return answer.body as unknown as Bundle<AuditEvent>;
  };

  /** A request posted with documents, answered by A and declined at once for B. */
  async function requestWithHistory() {
    const identifier = newIdentifier();
    await service.handle([submission({ requestIdentifier: identifier, performerIks: [A, B] })]);
    await service.handle([documents(identifier)]);
    const taskA = await taskOf(identifier, A);
    await service.handle([answer(taskA, A)]);
    return { identifier, taskA, taskB: await taskOf(identifier, B) };
  }

  describe('changes', () => {
    it('records a posted bundle, an automatic decline, documents and an answer, each with its batch', async () => {
      const { identifier, taskA, taskB } = await requestWithHistory();
      const [documentId] = await query<{ id: string }>(
        'SELECT d.id FROM $schema.request_document d JOIN $schema.admission_request r ON r.id = d.request_id WHERE r.identifier = $1',
        [identifier],
      );

      expect(await entriesOf(identifier)).toEqual([
        expect.objectContaining({
          action: 'C',
          subtype: 'create',
          agent_user: REFERRER.partyId,
          agent_ik: FIXTURE_REQUESTER_IK,
          role: 'referrer',
          entities: [identifier],
        }),
        expect.objectContaining({ action: 'U', subtype: 'update', agent_user: null, agent_ik: null, role: 'service', entities: [identifier, `Task/${taskB}`] }),
        expect.objectContaining({
          action: 'C',
          subtype: 'create',
          agent_user: REFERRER.partyId,
          role: 'referrer',
          entities: [identifier, `urn:uuid:${documentId!.id}`],
        }),
        expect.objectContaining({
          action: 'U',
          subtype: 'update',
          agent_user: `user-of-${A}`,
          agent_ik: A,
          role: 'clinic',
          entities: [identifier, `Task/${taskA}`],
        }),
      ]);
    });

    it('records a selection as an update of the version it made, and nothing for a bundle that changed nothing', async () => {
      const { identifier } = await requestWithHistory();
      const selection = submission({ requestIdentifier: identifier, performerIks: [A], intent: 'order', orderDetail: 'selected-provider' });
      await service.handle([selection]);
      await service.handle([submission({ requestIdentifier: identifier, performerIks: [A], intent: 'order', orderDetail: 'selected-provider' })]);

      const [last] = await query<{ resource: AuditEvent }>(
        'SELECT resource FROM $schema.audit_events WHERE request_identifier = $1 ORDER BY recorded DESC, seq DESC LIMIT 1',
        [identifier],
      );
      expect(last!.resource.entity?.[0]?.detail).toEqual([
        { type: 'version', valueString: '2' },
        { type: 'change', valueString: 'selected' },
      ]);
      expect(await entriesOf(identifier)).toHaveLength(5);
    });

    it('stores no change whose entry cannot be written: the entry is part of the change', async () => {
      await pool.query(`CREATE FUNCTION "${schema}".fail_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit storage failed'; END $$`);
      await pool.query(`CREATE TRIGGER fail_audit BEFORE INSERT ON "${schema}".audit_events FOR EACH ROW EXECUTE FUNCTION "${schema}".fail_audit()`);
      const identifier = newIdentifier();
      try {
        await expect(service.handle([submission({ requestIdentifier: identifier, performerIks: [A] })])).rejects.toThrow(/audit storage failed/);
      } finally {
        await pool.query(`DROP TRIGGER fail_audit ON "${schema}".audit_events`);
      }
      expect(await query('SELECT 1 FROM $schema.admission_request WHERE identifier = $1', [identifier])).toEqual([]);
      expect(await query("SELECT 1 FROM $schema.outbox_message WHERE envelope #>> '{payload,requestIdentifier}' = $1", [identifier])).toEqual([]);
    });
  });

  describe('reads', () => {
    it('records every read of patient data with who, for which IK, from which address, before answering it', async () => {
      const { identifier, taskA } = await requestWithHistory();
      const before = (await entriesOf(identifier)).length;

      expect((await get(`/internal/tasks?based-on=${encodeURIComponent(identifier)}`, tokens.referrer, '198.51.100.7')).status).toBe(200);
      expect((await get(`/internal/tasks/${taskA}`, tokens.clinicA)).status).toBe(200);
      expect((await get(`/internal/tasks/${taskA}/bundle`, tokens.clinicA, '2001:db8::5')).status).toBe(200);
      expect((await get(`/internal/tasks/${taskA}/documents`, tokens.clinicA)).status).toBe(200);

      const reads = (await entriesOf(identifier)).slice(before);
      expect(reads).toEqual([
        expect.objectContaining({
          action: 'E',
          subtype: 'search-type',
          agent_user: REFERRER.partyId,
          agent_ik: FIXTURE_REQUESTER_IK,
          role: 'referrer',
          address: '198.51.100.7',
        }),
        expect.objectContaining({
          action: 'R',
          subtype: 'read',
          agent_user: 'user-of-a',
          agent_ik: A,
          role: 'clinic',
          address: '203.0.113.42',
          entities: [identifier, `Task/${taskA}`],
        }),
        expect.objectContaining({
          action: 'R',
          subtype: 'vread',
          agent_user: 'user-of-a',
          agent_ik: A,
          address: '2001:db8::5',
          entities: [identifier, `Task/${taskA}`],
        }),
        expect.objectContaining({
          action: 'R',
          subtype: 'read',
          agent_user: 'user-of-a',
          agent_ik: A,
          entities: [identifier, `Task/${taskA}`, expect.stringMatching(/^urn:uuid:/)],
        }),
      ]);
      // The search recorded both Tasks it answered, and the query.
      expect(reads[0]!.entities).toEqual(expect.arrayContaining([`Task/${taskA}`, 'Query']));
    });

    it("records nothing for what is not answered: another party's Task, a count alone, a refused search", async () => {
      const { identifier, taskA } = await requestWithHistory();
      const before = (await entriesOf(identifier)).length;

      expect((await get(`/internal/tasks/${taskA}/bundle`, tokens.clinicB)).status).toBe(404);
      expect((await get(`/internal/tasks/${taskA}`, tokens.otherReferrer)).status).toBe(404);
      expect((await get(`/internal/tasks?based-on=${encodeURIComponent(identifier)}&_summary=count`, tokens.referrer)).status).toBe(200);
      expect((await get(`/internal/tasks?based-on=${encodeURIComponent(identifier)}&colour=blue`, tokens.referrer)).status).toBe(400);

      expect(await entriesOf(identifier)).toHaveLength(before);
    });

    it('answers a read whose entry cannot be written with 503 and without the data', async () => {
      const { identifier, taskA } = await requestWithHistory();
      const before = (await entriesOf(identifier)).length;
      await pool.query(
        `CREATE FUNCTION "${schema}".fail_read_audit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'audit storage failed'; END $$`,
      );
      await pool.query(`CREATE TRIGGER fail_read_audit BEFORE INSERT ON "${schema}".audit_events FOR EACH ROW EXECUTE FUNCTION "${schema}".fail_read_audit()`);
      let answer;
      try {
        answer = await get(`/internal/tasks/${taskA}/bundle`, tokens.clinicA);
      } finally {
        await pool.query(`DROP TRIGGER fail_read_audit ON "${schema}".audit_events`);
      }

      expect(answer).toEqual({
        status: 503,
        body: expect.objectContaining({ resourceType: 'OperationOutcome', issue: [expect.objectContaining({ code: 'transient' })] }),
      });
      expect(JSON.stringify(answer.body)).not.toContain('Patient');
      expect(await entriesOf(identifier)).toHaveLength(before);
    });
  });

  describe('the AuditEvent search', () => {
    let history: Awaited<ReturnType<typeof requestWithHistory>>;

    beforeAll(async () => {
      history = await requestWithHistory();
      await get(`/internal/tasks/${history.taskA}/bundle`, tokens.clinicA);
      await get(`/internal/tasks/${history.taskB}`, tokens.clinicB);
    });

    it("shows a referrer every entry about its own requests: changes and every party's reads", async () => {
      const bundle = await search(`entity=${encodeURIComponent(history.identifier)}&_total=accurate`, tokens.referrer);

      const agents = (bundle.entry ?? []).map((entry) => [
        entry.resource?.action,
        entry.resource?.agent[0]?.role?.[0]?.text,
        entry.resource?.agent[0]?.who?.identifier?.value ?? null,
      ]);
      expect(agents).toEqual([
        ['C', 'referrer', FIXTURE_REQUESTER_IK],
        ['U', 'service', null],
        ['C', 'referrer', FIXTURE_REQUESTER_IK],
        ['U', 'clinic', A],
        ['R', 'clinic', A],
        ['R', 'clinic', B],
      ]);
      expect(bundle.total).toBe(6);
    });

    it('shows a clinic only the entries of its own access, and another referrer nothing', async () => {
      const clinicA = await search(`entity=${encodeURIComponent(history.identifier)}`, tokens.clinicA);
      expect((clinicA.entry ?? []).map((entry) => [entry.resource?.action, entry.resource?.agent[0]?.who?.identifier?.value])).toEqual([
        ['U', A],
        ['R', A],
      ]);

      const other = await search(`entity=${encodeURIComponent(history.identifier)}`, tokens.otherReferrer);
      expect(other).toEqual({ resourceType: 'Bundle', type: 'searchset', link: [expect.objectContaining({ relation: 'self' })] });
    });

    it('filters by entity:identifier, agent (user or IK) and date, and pages with _count and next links', async () => {
      const entity = `entity:identifier=${encodeURIComponent(`urn:ietf:rfc:3986|${history.identifier}`)}`;
      const counted = `${entity}&_total=accurate`;
      expect((await search(`${counted}&agent=${A}`, tokens.referrer)).total).toBe(2);
      expect((await search(`${counted}&agent=user-of-b`, tokens.referrer)).total).toBe(1);
      expect((await search(`${counted}&agent:identifier=${encodeURIComponent(`http://fhir.de/sid/arge-ik/iknr|${B}`)}`, tokens.referrer)).total).toBe(1);
      const today = new Date().toISOString().slice(0, 10);
      expect((await search(`${counted}&date=${today}`, tokens.referrer)).total).toBe(6);
      expect((await search(`${counted}&date=lt${today}`, tokens.referrer)).total).toBe(0);

      const first = await search(`${entity}&_count=4`, tokens.referrer);
      expect(first.entry).toHaveLength(4);
      const next = first.link?.find((link) => link.relation === 'next')?.url ?? '';
      expect(next).toBe(
        `/api/v2/fhir/AuditEvent?${new URLSearchParams({ 'entity:identifier': `urn:ietf:rfc:3986|${history.identifier}`, _count: '4', _offset: '4' })}`,
      );
      const second = await search(new URL(next, 'http://x').search.slice(1), tokens.referrer);
      expect(second.entry).toHaveLength(2);
      expect(second.link?.some((link) => link.relation === 'next')).toBe(false);
      const ids = [...(first.entry ?? []), ...(second.entry ?? [])].map((entry) => entry.resource?.id);
      expect(new Set(ids).size).toBe(6);
    });

    it('refuses an unknown parameter with 400 naming it', async () => {
      const answer = await get('/internal/audit-events?patient=Patient/1', tokens.referrer);
      expect(answer).toMatchObject({ status: 400, body: { resourceType: 'OperationOutcome', issue: [{ code: 'invalid', expression: ['patient'] }] } });
    });
  });

  const read = (n: number) => ({
    interaction: 'read' as const,
    agent: { kind: 'clinic' as const, user: `user-${n}`, ik: A },
    request: { identifier: `https://hospital.example/fhir/ServiceRequest/chain-${n}`, ownerPartyId: 'referrer-chain' },
    source: 'intake',
  });
  /** The command line's configuration: this schema, its development KEK. */
  const cliConfig = (): IntakeCliConfig => ({
    NODE_ENV: 'test',
    DATABASE_URL: env.databaseUrl,
    DATABASE_POOL_SIZE: 2,
    INTAKE_DB_SCHEMA: schema,
    DATA_KEK: undefined,
    DATA_KEK_ID: undefined,
    DATA_PREVIOUS_KEKS: [],
    ADMIN_OPERATOR: undefined,
  });
  const cli = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const group = argv[0] === 'request' ? REQUEST_CLI : AUDIT_CLI;
    const code = await group.run(argv, {
      open: () => openIntakeServices(cliConfig()),
      out: (line) => out.push(line),
      err: (line) => err.push(line),
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  describe('the people of one party', () => {
    const person = (act: { sub: string; name: string }) => ({ ...TEAM, userId: act.sub, userName: act.name });
    const agentsOf = (bundle: Bundle<AuditEvent>) =>
      (bundle.entry ?? []).map(({ resource }) => {
        const agent = resource!.agent[0]!;
        return [resource!.action, agent.role?.[0]?.text, agent.altId ?? null, agent.name ?? null, agent.network?.address ?? null];
      });
    let identifier: string;
    let taskA: string;

    beforeAll(async () => {
      // Erika sends the request, Anna of clinic A accepts it, Max selects A (version 2) and sends documents; each reads.
      identifier = newIdentifier();
      await service.handle([admissionCommand({ requestIdentifier: identifier, performerIks: [A] }, person(ERIKA_ACT))]);
      taskA = await taskOf(identifier, A);
      await service.handle([clinicAnswerCommand({ taskId: taskA, clinicIk: A, businessStatus: 'accepted', user: ANNA_ACT.sub, userName: ANNA_ACT.name })]);
      const selection = { requestIdentifier: identifier, performerIks: [A], intent: 'order' as const, orderDetail: 'selected-provider' as const };
      await service.handle([admissionCommand(selection, person(MAX_ACT))]);
      await service.handle([documentCommand(identifier, person(MAX_ACT))]);
    });

    it('shows both people the same requests: the party owns them', async () => {
      const seenBy = async (token: string) => {
        const answer = await get(`/internal/tasks?based-on=${encodeURIComponent(identifier)}`, token, '198.51.100.7');
        expect(answer.status).toBe(200);
        return ((answer.body as unknown as Bundle).entry ?? []).map((entry) => entry.resource?.id);
      };

      expect(await seenBy(tokens.erika)).toEqual([taskA]);
      expect(await seenBy(tokens.max)).toEqual([taskA]);
      expect((await get(`/internal/tasks/${taskA}`, tokens.anna)).status).toBe(200);
    });

    it('names in each AuditEvent the person who acted: altId their user id, name their display name', async () => {
      expect((await entriesOf(identifier)).map((entry) => [entry.subtype, entry.role, entry.agent_user])).toEqual([
        ['create', 'referrer', ERIKA_ACT.sub],
        ['update', 'clinic', ANNA_ACT.sub],
        ['update', 'referrer', MAX_ACT.sub],
        ['create', 'referrer', MAX_ACT.sub],
        ['search-type', 'referrer', ERIKA_ACT.sub],
        ['search-type', 'referrer', MAX_ACT.sub],
        ['read', 'clinic', ANNA_ACT.sub],
      ]);

      const clinicView = await search(`entity=${encodeURIComponent(identifier)}`, tokens.anna);
      expect(agentsOf(clinicView)).toEqual([
        ['U', 'clinic', ANNA_ACT.sub, ANNA_ACT.name, null],
        ['R', 'clinic', ANNA_ACT.sub, ANNA_ACT.name, '203.0.113.42'],
      ]);
    });

    it("shows each person of the referrer its own party's people, and not the clinic's", async () => {
      const expected = [
        ['C', 'referrer', ERIKA_ACT.sub, ERIKA_ACT.name, null],
        ['U', 'clinic', null, null, null],
        ['U', 'referrer', MAX_ACT.sub, MAX_ACT.name, null],
        ['C', 'referrer', MAX_ACT.sub, MAX_ACT.name, null],
        ['E', 'referrer', ERIKA_ACT.sub, ERIKA_ACT.name, '198.51.100.7'],
        ['E', 'referrer', MAX_ACT.sub, MAX_ACT.name, '198.51.100.7'],
        ['R', 'clinic', null, null, null],
      ];
      expect(agentsOf(await search(`entity=${encodeURIComponent(identifier)}`, tokens.erika))).toEqual(expected);
      expect(agentsOf(await search(`entity=${encodeURIComponent(identifier)}`, tokens.max))).toEqual(expected);
      // Another party sees none of it.
      expect((await search(`entity=${encodeURIComponent(identifier)}`, tokens.referrer)).entry).toBeUndefined();
    });

    it('stores who sent each version and document: the person, or the party from an earlier gateway naming none', async () => {
      const sendersOf = async (id: string) => ({
        versions: await query<{ version: number; submitted_by: string }>(
          'SELECT v.version, v.submitted_by FROM $schema.request_version v JOIN $schema.admission_request r ON r.id = v.request_id WHERE r.identifier = $1 ORDER BY v.version',
          [id],
        ),
        documents: await query<{ submitted_by: string }>(
          'SELECT d.submitted_by FROM $schema.request_document d JOIN $schema.admission_request r ON r.id = d.request_id WHERE r.identifier = $1',
          [id],
        ),
      });

      expect(await sendersOf(identifier)).toEqual({
        versions: [
          { version: 1, submitted_by: ERIKA_ACT.sub },
          { version: 2, submitted_by: MAX_ACT.sub },
        ],
        documents: [{ submitted_by: MAX_ACT.sub }],
      });
      // REFERRER's messages name no userId, as an earlier gateway's: its party was its only user.
      const earlier = await requestWithHistory();
      expect(await sendersOf(earlier.identifier)).toEqual({
        versions: [{ version: 1, submitted_by: REFERRER.partyId }],
        documents: [{ submitted_by: REFERRER.partyId }],
      });
    });

    it('keeps the chain intact with the names in it, as the database hashed them', async () => {
      const today = new Date().toISOString().slice(0, 10);
      expect(await cli(['audit', 'verify', '--date', today])).toEqual({
        code: 0,
        out: expect.stringMatching(/^the audit trail is intact: \d+ entries of 1 day checked$/),
        err: '',
      });
    });
  });

  describe('the chain', () => {
    /** An AuditTrail as another intake process has it: its own connection pool, its entries dated `day`. */
    const writerOn = async (day: string, poolSize = 2) => {
      const client = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize });
      let tick = 0;
      const trail = new AuditTrail(new AuditTrailRepository(prismaRunner(client), schema), () => new Date(Date.parse(`${day}T12:00:00Z`) + (tick += 1)));
      return { trail, close: () => client.$disconnect() };
    };

    it('keeps one chain per day however many processes write at once', async () => {
      const day = '2031-05-05';
      const writers = await Promise.all(Array.from({ length: 4 }, () => writerOn(day)));
      try {
        await Promise.all(writers.flatMap(({ trail }, w) => Array.from({ length: 25 }, (_, n) => trail.record([read(w * 100 + n), read(w * 100 + n + 50)]))));
      } finally {
        await Promise.all(writers.map((writer) => writer.close()));
      }

      const seqs = await query<{ seq: number }>('SELECT seq FROM $schema.audit_events WHERE day = $1 ORDER BY seq', [day]);
      expect(seqs.map((row) => row.seq)).toEqual(Array.from({ length: 200 }, (_, n) => n + 1));
      expect(await cli(['audit', 'verify', '--date', day])).toEqual({ code: 0, out: 'the audit trail is intact: 200 entries of 1 day checked', err: '' });
    });

    it('refuses UPDATE and DELETE of an entry', async () => {
      const day = '2031-06-01';
      const writer = await writerOn(day);
      await writer.trail.record([read(1)]).finally(() => writer.close());

      await expect(pool.query(`UPDATE "${schema}".audit_events SET agent_ik = $1 WHERE day = $2`, [B, day])).rejects.toThrow(/append-only: UPDATE refused/);
      await expect(pool.query(`DELETE FROM "${schema}".audit_events WHERE day = $1`, [day])).rejects.toThrow(/append-only: DELETE refused/);
      await expect(pool.query(`TRUNCATE "${schema}".audit_events`)).rejects.toThrow(/append-only: TRUNCATE refused/);
    });

    it('names the first entry a superuser edited, and exits 1', async () => {
      const day = '2031-06-06';
      const writer = await writerOn(day);
      await writer.trail.record([read(1), read(2), read(3)]).finally(() => writer.close());
      expect((await cli(['audit', 'verify', '--date', day])).code).toBe(0);
      const [second] = await query<{ id: string }>('SELECT id FROM $schema.audit_events WHERE day = $1 AND seq = 2', [day]);

      // As the superuser, with triggers off: what the append-only guard cannot stop.
      const client = await pool.connect();
      try {
        await client.query('BEGIN');
        await client.query('SET LOCAL session_replication_role = replica');
        await client.query(`UPDATE "${schema}".audit_events SET resource = jsonb_set(resource, '{agent,0,altId}', '"someone-else"') WHERE id = $1`, [
          second!.id,
        ]);
        await client.query('COMMIT');
      } finally {
        client.release();
      }

      expect(await cli(['audit', 'verify', '--date', day])).toEqual({
        code: 1,
        out: '',
        err: `error: the audit trail of ${day} is broken at entry 2 (AuditEvent ${second!.id}): its content does not match its hash; 2 entries of 1 day checked`,
      });
      // Without --date, every day is checked, and the same entry named.
      expect((await cli(['audit', 'verify'])).err).toContain(`broken at entry 2 (AuditEvent ${second!.id})`);
    });
  });

  describe("the administrator's export", () => {
    it('prints the latest version and records the export in the same transaction', async () => {
      const { identifier } = await requestWithHistory();
      const out: string[] = [];
      const code = await REQUEST_CLI.run(['request', 'export', '--identifier', identifier], {
        open: () => openIntakeServices(cliConfig()),
        out: (line) => out.push(line),
      });

      expect(code).toBe(0);
      expect(JSON.parse(out.join('\n'))).toMatchObject({ resourceType: 'Bundle', entry: expect.any(Array) });
      expect((await entriesOf(identifier)).at(-1)).toMatchObject({
        action: 'R',
        subtype: 'vread',
        role: 'administrator',
        agent_ik: null,
        agent_user: expect.any(String),
      });
    });

    it("erases a request at the operator's hand, recorded as the administrator's delete, once", async () => {
      const { identifier } = await requestWithHistory();
      const erase = async () => {
        const out: string[] = [];
        const code = await REQUEST_CLI.run(['request', 'erase', '--identifier', identifier], {
          open: () => openIntakeServices(cliConfig()),
          out: (line) => out.push(line),
        });
        return { code, out: out.join('\n') };
      };

      const first = await erase();
      expect(first.code).toBe(0);
      expect(first.out).toMatch(/^erased: 1 version\(s\), 1 document\(s\) and the notes of 2 Task\(s\) at /);
      expect((await entriesOf(identifier)).at(-1)).toMatchObject({
        action: 'D',
        subtype: 'delete',
        role: 'administrator',
        agent_ik: null,
        agent_user: expect.any(String),
      });
      const again = await erase();
      expect([again.code, again.out]).toEqual([0, expect.stringMatching(/^already erased at .* \(requested\); nothing changed$/)]);
      expect((await entriesOf(identifier)).filter((entry) => entry.subtype === 'delete')).toHaveLength(1);
    });
  });
});
