import { Client } from 'pg';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { AuditTrailRepository, entriesOf, type AuditAgent } from '../audit';
import { intakeTable, openIntakeDatabase, prismaRunner, type IntakeDatabase } from '../persistence';
import { Prisma } from '../generated/prisma/client';
import { auditEventAccess, relationOf, requestGrantOf, taskAccess, type Relation, type Viewer } from './access-policy';

const env = testEnvironment();
/** Clinic A and B are named by the owner's request; C shares its IK with the owner's hospital, D is unrelated. */
const [A, B, C, D] = ['517100001', '517100002', '261700001', '517100004'];
const CANCELLED_AT = new Date('2026-03-02T10:00:00.000Z');

/** Each caller of docs/decisions.md's rules, as the access policy sees it. */
const VIEWERS: Record<string, Viewer> = {
  owner: { role: 'referrer', partyId: 'owner' },
  'other referrer': { role: 'referrer', partyId: 'other' },
  'clinic A': { role: 'clinic', ikNumbers: [A] },
  'clinic B': { role: 'clinic', ikNumbers: [B] },
  'clinic C (the owner’s IK)': { role: 'clinic', ikNumbers: [C] },
  'clinic D': { role: 'clinic', ikNumbers: [D] },
  'clinic without IKs': { role: 'clinic', ikNumbers: [] },
};

/** The owner's request names A (open) and B (cancelled); another referrer's names D. */
const TASKS = [
  { name: 'owner→A', referrerPartyId: 'owner', clinicIk: A, cancelledAt: null, sentVersion: 3 },
  { name: 'owner→B', referrerPartyId: 'owner', clinicIk: B, cancelledAt: CANCELLED_AT, sentVersion: 1 },
  { name: 'other→D', referrerPartyId: 'other', clinicIk: D, cancelledAt: null, sentVersion: 1 },
] as const;

/** The relation of each viewer to each Task (docs/decisions.md, "Parties and credentials", "Errors"). */
const RELATIONS: Record<string, Record<(typeof TASKS)[number]['name'], Relation>> = {
  owner: { 'owner→A': 'owner', 'owner→B': 'owner', 'other→D': 'none' },
  'other referrer': { 'owner→A': 'none', 'owner→B': 'none', 'other→D': 'owner' },
  'clinic A': { 'owner→A': 'addressed', 'owner→B': 'none', 'other→D': 'none' },
  'clinic B': { 'owner→A': 'none', 'owner→B': 'cancelled', 'other→D': 'none' },
  'clinic C (the owner’s IK)': { 'owner→A': 'none', 'owner→B': 'none', 'other→D': 'none' },
  'clinic D': { 'owner→A': 'none', 'owner→B': 'none', 'other→D': 'addressed' },
  'clinic without IKs': { 'owner→A': 'none', 'owner→B': 'none', 'other→D': 'none' },
};

/** Audit entries about the owner's request by every kind of agent, and one about the other referrer's. */
const ENTRIES: { name: string; owner: string; agent: AuditAgent }[] = [
  { name: 'owner', owner: 'owner', agent: { kind: 'referrer', user: 'owner', ik: C } },
  { name: 'clinic A', owner: 'owner', agent: { kind: 'clinic', user: 'a-user', ik: A } },
  { name: 'clinic B', owner: 'owner', agent: { kind: 'clinic', user: 'b-user', ik: B } },
  { name: 'administrator', owner: 'owner', agent: { kind: 'administrator', user: 'operator' } },
  { name: 'service', owner: 'owner', agent: { kind: 'service', service: 'intake' } },
  { name: 'other referrer', owner: 'other', agent: { kind: 'referrer', user: 'other', ik: '261700009' } },
  { name: 'clinic D', owner: 'other', agent: { kind: 'clinic', user: 'd-user', ik: D } },
];

/** Which entries each viewer sees: the referrer all about its own requests, a clinic those of its own access. */
const VISIBLE_ENTRIES: Record<string, string[]> = {
  owner: ['owner', 'clinic A', 'clinic B', 'administrator', 'service'],
  'other referrer': ['other referrer', 'clinic D'],
  'clinic A': ['clinic A'],
  'clinic B': ['clinic B'],
  'clinic C (the owner’s IK)': [],
  'clinic D': ['clinic D'],
  'clinic without IKs': [],
};

/**
 * The access policy against the real PostgreSQL: for every caller and every relation, its SQL
 * predicate selects exactly what its in-memory check admits, and both are the documented table.
 */
describe('the access policy', () => {
  const schema = uniqueName('intake');
  let prisma: IntakeDatabase;
  const taskIds = new Map<string, string>();
  const entryIds = new Map<string, string>();

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    const client = new Client({ connectionString: env.databaseUrl });
    await client.connect();
    try {
      for (const task of TASKS) {
        const [requestId, taskId] = [crypto.randomUUID(), crypto.randomUUID()];
        await client.query(
          `INSERT INTO "${schema}".admission_request (id, identifier, referrer_party_id, referrer_ik, status, intent, current_version, latest_hash, updated_at)
           VALUES ($1, $2, $3, '261700001', 'active', 'proposal', 3, 'hash', now())`,
          [requestId, `https://hospital.example/fhir/ServiceRequest/${task.name}`, task.referrerPartyId],
        );
        await client.query(
          `INSERT INTO "${schema}".clinic_task (id, request_id, referrer_party_id, clinic_ik, status, sent_version, authored_on, last_modified, cancelled_at)
           SELECT $1, $2, r.referrer_party_id, $3, $4, $5, now(), now(), $6 FROM "${schema}".admission_request r WHERE r.id = $2`,
          [taskId, requestId, task.clinicIk, task.cancelledAt ? 'cancelled' : 'requested', task.sentVersion, task.cancelledAt],
        );
        taskIds.set(taskId, task.name);
      }
    } finally {
      await client.end();
    }
    const entries = entriesOf(
      ENTRIES.map(({ owner, agent }) => ({
        interaction: 'read',
        agent,
        request: { identifier: `https://hospital.example/fhir/ServiceRequest/${owner}`, ownerPartyId: owner },
        source: 'intake',
      })),
      new Date(),
    );
    for (const [n, entry] of entries.entries()) entryIds.set(entry.resource.id!, ENTRIES[n]!.name);
    await new AuditTrailRepository(prismaRunner(prisma), schema).appendEntries(entries);
  });

  afterAll(() => prisma.$disconnect());

  it.each(Object.keys(VIEWERS))('gives %s its relation to each Task, and reads of a request only as its addressed or cancelled clinic', (name) => {
    const viewer = VIEWERS[name]!;
    expect(Object.fromEntries(TASKS.map((task) => [task.name, relationOf(viewer, task)]))).toEqual(RELATIONS[name]);
    for (const task of TASKS) {
      const relation = relationOf(viewer, task);
      const grant = requestGrantOf(viewer, task);
      if (relation === 'addressed' || relation === 'cancelled') {
        // docs/decisions.md, "Errors": a cancelled clinic reads up to the last version it was sent, and the documents before its cancellation.
        expect(grant).toEqual({ relation, clinicIk: task.clinicIk, versionsUpTo: task.sentVersion, documentsReceivedUpTo: task.cancelledAt });
      } else {
        expect(grant).toBeUndefined();
      }
    }
  });

  it.each(Object.keys(VIEWERS))("shows %s who of the clinic wrote a Task's notes on its own clinic's Tasks only", (name) => {
    const viewer = VIEWERS[name]!;
    // docs/api.md, "Tasks": the clinic addressed (open or cancelled) sees its people; no referrer, the owner neither.
    const shown = TASKS.filter((task) => taskAccess.showsAuthors(viewer, task)).map((task) => task.name);
    expect(shown).toEqual(TASKS.filter((task) => ['addressed', 'cancelled'].includes(RELATIONS[name]![task.name])).map((task) => task.name));
  });

  it.each(Object.keys(VIEWERS))('selects in SQL exactly the Tasks its check admits for %s', async (name) => {
    const viewer = VIEWERS[name]!;
    const rows = await prisma.$queryRaw<{ id: string; referrer_party_id: string; clinic_ik: string }[]>(Prisma.sql`
      SELECT t.id::text AS id, r.referrer_party_id, t.clinic_ik
        FROM ${intakeTable(schema, 'clinic_task')} t JOIN ${intakeTable(schema, 'admission_request')} r ON r.id = t.request_id
       WHERE ${taskAccess.where(viewer)}`);
    const selected = rows.map((row) => taskIds.get(row.id)).sort();
    const admitted = TASKS.filter((task) => taskAccess.allows(viewer, task)).map((task) => task.name);
    const documented = TASKS.filter((task) => RELATIONS[name]![task.name] !== 'none').map((task) => task.name);
    expect({ selected, admitted }).toEqual({ selected: documented.sort(), admitted: documented });
  });

  it.each(Object.keys(VIEWERS))('selects in SQL exactly the AuditEvents its check admits for %s', async (name) => {
    const viewer = VIEWERS[name]!;
    const table = intakeTable(schema, 'audit_events');
    const all = await prisma.$queryRaw<
      { id: string; owner_party_id: string; agent_ik: string | null; resource: { agent: { role?: { text?: string }[] }[] } }[]
    >(Prisma.sql`SELECT id::text AS id, owner_party_id, agent_ik, resource FROM ${table}`);
    const selected = (await prisma.$queryRaw<{ id: string }[]>(Prisma.sql`SELECT id::text AS id FROM ${table} WHERE ${auditEventAccess.where(viewer)}`))
      .map((row) => entryIds.get(row.id)!)
      .sort();
    const admitted = all
      .filter((row) => auditEventAccess.allows(viewer, auditEventAccess.factsOf(row.owner_party_id, row.agent_ik, row.resource as never)))
      .map((row) => entryIds.get(row.id)!)
      .sort();
    expect({ selected, admitted }).toEqual({ selected: [...VISIBLE_ENTRIES[name]!].sort(), admitted: [...VISIBLE_ENTRIES[name]!].sort() });
  });
});
