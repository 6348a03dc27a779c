import { connect } from 'amqplib';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { AdmissionBundleSubmittedV1, ClinicAnswerSubmittedV1, createEnvelope, deadLetterQueueName, declareTopology } from '@bedrequest/contracts';
import { DeadLetterQueues } from '@bedrequest/messaging';
import { applyMigrations, ensureDatabase, findMigrationsDir, PendingMigrationError, readMigrations } from '@bedrequest/persistence';
import { deleteBrokerTopology, testEnvironment, uniqueName } from '@bedrequest/testing';
import { PROVISIONED_SERVICES, provisionPlan, serviceEnvironment, type ProvisionedService, type ProvisionPlan } from './plan';
import { provisionDatabase, removeDatabasePrincipals } from './postgres';
import { provision, removeProvisioned, type ProvisionTarget } from './provision';

const env = testEnvironment();
const namespace = uniqueName('prov');
const target: ProvisionTarget = {
  database: env.databaseUrl,
  amqp: env.amqpUrl,
  redis: env.redisUrl,
  rabbitmqctl: 'rabbitmqctl',
  deliveryLimit: 5,
  migrationsDirOf: (service) => findMigrationsDir(`${__dirname}/../../../apps/${service}/src/persistence`, service),
};
const plan: ProvisionPlan = provisionPlan(
  {
    AMQP_NAMESPACE: namespace,
    AUTH_DB_SCHEMA: `${namespace}_auth`,
    INTAKE_DB_SCHEMA: `${namespace}_intake`,
    ROUTING_DB_SCHEMA: `${namespace}_routing`,
    NOTIFIER_DB_SCHEMA: `${namespace}_notifier`,
    REDIS_KEY_PREFIX: `${env.redisKeyPrefix}${namespace}:`,
  },
  { generatePasswords: true },
);
const urlsOf = (service: Parameters<typeof serviceEnvironment>[1]) => serviceEnvironment(plan, service, target);

async function asRuntimeRole<T>(service: ProvisionedService, work: (client: Client) => Promise<T>): Promise<T> {
  const client = new Client({ connectionString: urlsOf(service).DATABASE_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

let firstRun: string[];

beforeAll(async () => {
  firstRun = await provision(plan, target);
}, 120_000);

afterAll(async () => {
  await removeProvisioned(plan, target);
  await deleteBrokerTopology(env.amqpUrl, declareTopology(namespace)).catch(() => undefined);
}, 60_000);

describe('provisioning', () => {
  it('says what it changed, and changes nothing it need not the second time', async () => {
    expect(firstRun).toEqual(
      expect.arrayContaining([
        `PostgreSQL: role ${namespace}_intake_app created`,
        `Redis: user ${namespace}_auth set (keys ${env.redisKeyPrefix}${namespace}:auth:*)`,
      ]),
    );
    expect(firstRun.some((line) => line.includes('migration 0001_baseline applied'))).toBe(true);
    const again = await provision(plan, target);
    expect(again.filter((line) => line.startsWith('PostgreSQL'))).toEqual([]);
    expect(firstRun.join('\n')).not.toContain(plan.database[0]!.password);
  }, 120_000);

  it('lets a runtime role start on a provisioned schema, and stops it with one line where a migration is missing', async () => {
    const intake = plan.database.find((principal) => principal.service === 'intake')!;
    const migrations = readMigrations(target.migrationsDirOf('intake'));
    const databaseUrl = urlsOf('intake').DATABASE_URL!;
    expect(await applyMigrations({ databaseUrl, schema: intake.schema, migrations })).toEqual({ applied: [], alreadyApplied: migrations.length });
    const next = { name: '9999_next_release', sql: 'CREATE TABLE next_release (id int)', checksum: 'x' };
    const pending = applyMigrations({ databaseUrl, schema: intake.schema, migrations: [...migrations, next] });
    await expect(pending).rejects.toThrow(PendingMigrationError);
    await expect(pending).rejects.toThrow(
      `schema ${intake.schema} lacks migration 9999_next_release and this role may not apply it: provision the database first`,
    );
  });

  it("lets intake's runtime role neither disable nor drop the audit trail's triggers, nor empty its table", async () => {
    const intake = plan.database.find((principal) => principal.service === 'intake')!;
    const table = `"${intake.schema}".audit_events`;
    await asRuntimeRole('intake', async (client) => {
      await expect(client.query(`ALTER TABLE ${table} DISABLE TRIGGER audit_events_append_only`)).rejects.toThrow(/must be owner/);
      await expect(client.query(`DROP TRIGGER audit_events_append_only ON ${table}`)).rejects.toThrow(/must be owner/);
      await expect(client.query(`TRUNCATE ${table}`)).rejects.toThrow(/permission denied/);
      await expect(client.query(`SET session_replication_role = replica`)).rejects.toThrow(/permission denied/);
    });
  });

  it("lets routing's broker user publish its own messages, but neither an intake message type nor read another service's queue", async () => {
    const topology = declareTopology(namespace);
    const connection = await connect(urlsOf('routing').AMQP_URL!, { noDelay: true });
    try {
      const own = await connection.createConfirmChannel();
      const answer = createEnvelope(
        ClinicAnswerSubmittedV1,
        { taskId: '00000000-0000-4000-8000-000000000000', clinicIk: '260000001', businessStatus: 'declined', source: 'automatic', answersVersion: 1 },
        { correlationId: 'provision' },
      );
      own.publish(topology.eventsExchange, ClinicAnswerSubmittedV1.routingKey, Buffer.from(JSON.stringify(answer)));
      await own.waitForConfirms();

      const forging = await connection.createConfirmChannel();
      const closed = new Promise<Error>((resolve) => forging.on('error', resolve));
      forging.publish(topology.eventsExchange, AdmissionBundleSubmittedV1.routingKey, Buffer.from('{}'));
      expect((await closed).message).toMatch(/ACCESS_REFUSED.*topic/);

      const reading = await connection.createChannel();
      const refused = new Promise<Error>((resolve) => reading.on('error', resolve));
      await expect(reading.consume(topology.queues.intake.name, () => undefined)).rejects.toThrow();
      expect((await refused).message).toMatch(/ACCESS_REFUSED/);
    } finally {
      await connection.close().catch(() => undefined);
    }
  });

  it("lets intake's broker user keep every dead-letter queue, but not read routing's queue", async () => {
    const topology = declareTopology(namespace);
    const routing = topology.queues.routing.name;
    // A message routing gave up, as the broker's administrator finds it in routing's dead-letter queue.
    const admin = await connect(env.amqpUrl, { noDelay: true });
    try {
      const channel = await admin.createConfirmChannel();
      channel.publish('', deadLetterQueueName(routing), Buffer.from('{}'), { messageId: 'given-up', persistent: true });
      await channel.waitForConfirms();
    } finally {
      await admin.close();
    }
    const intakeUrl = urlsOf('intake').AMQP_URL!;
    const replayed = await DeadLetterQueues.with(intakeUrl, (queues) => queues.pass(routing, async (letters) => letters.map(() => 'replay' as const)));
    expect(replayed).toMatchObject({ seen: 1, replayed: 1 });
    for (const queue of [topology.queues.intake.name, topology.queues.notifier.name]) {
      expect(await DeadLetterQueues.with(intakeUrl, (queues) => queues.pass(queue, async (letters) => letters.map(() => 'keep' as const)))).toMatchObject({
        seen: 0,
      });
    }

    const connection = await connect(intakeUrl, { noDelay: true });
    try {
      const reading = await connection.createChannel();
      const refused = new Promise<Error>((resolve) => reading.on('error', resolve));
      await expect(reading.get(routing, { noAck: true })).rejects.toThrow();
      expect((await refused).message).toMatch(/ACCESS_REFUSED/);
    } finally {
      await connection.close().catch(() => undefined);
    }
    // Routing's user finds it back on its queue.
    const back = await connect(urlsOf('routing').AMQP_URL!, { noDelay: true });
    try {
      const message = await (await back.createChannel()).get(routing, { noAck: true });
      expect(message && message.properties.messageId).toBe('given-up');
    } finally {
      await back.close();
    }
  });

  it("keeps auth's Redis user inside its key prefix", async () => {
    const redis = new Redis(urlsOf('auth').REDIS_URL!, { lazyConnect: true, maxRetriesPerRequest: 0 });
    try {
      await redis.connect();
      const prefix = `${env.redisKeyPrefix}${namespace}:`;
      await redis.set(`${prefix}auth:probe`, '1', 'EX', 60);
      expect(await redis.get(`${prefix}auth:probe`)).toBe('1');
      await expect(redis.get(`${prefix}web:session:x`)).rejects.toThrow(/NOPERM/);
      await expect(redis.keys('*')).rejects.toThrow(/NOPERM/);
      await expect(redis.call('FLUSHALL')).rejects.toThrow(/NOPERM/);
    } finally {
      redis.disconnect();
    }
  });
});

/**
 * Every service's PostgreSQL runtime role as docs/operations.md ("Provisioning", "What it creates")
 * promises it: it may SELECT, INSERT, UPDATE and DELETE in its schema's tables and use its sequences
 * and functions; nothing else (no TRUNCATE, no CREATE: not in its schema, not in `public`, no schema
 * of its own; it owns nothing and is no other role), and no right on another service's schema. Each
 * statement runs as the role on the real database; the catalog, asked as the role, answers for the
 * tables, sequences, functions and schemas the statements do not name.
 */
describe("every service's PostgreSQL runtime role", () => {
  const principalOf = (service: ProvisionedService) => plan.database.find((principal) => principal.service === service)!;
  const databaseServices = ['auth', 'intake', 'routing', 'notifier'] as const;

  it('is provisioned for auth, intake, routing and the notifier, and no other service connects to PostgreSQL', () => {
    expect(plan.database.map((principal) => principal.service)).toEqual(databaseServices);
    expect(PROVISIONED_SERVICES.filter((service) => urlsOf(service).DATABASE_URL)).toEqual(databaseServices);
  });

  describe.each(databaseServices)('of %s', (service) => {
    it('logs in as itself, reads and writes every table of its schema, uses its sequences and functions, and starts on its migrations', async () => {
      const { schema, app } = principalOf(service);
      await asRuntimeRole(service, async (client) => {
        expect((await client.query('SELECT current_user')).rows[0].current_user).toBe(app);
        const { rows: tables } = await client.query<{ name: string; column: string }>(
          `SELECT c.relname AS name, (SELECT a.attname FROM pg_attribute a
                      WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped AND a.attidentity <> 'a' AND a.attgenerated = ''
                      ORDER BY a.attnum LIMIT 1) AS column
             FROM pg_class c WHERE c.relnamespace = $1::regnamespace AND c.relkind IN ('r', 'p') ORDER BY c.relname`,
          [schema],
        );
        expect(tables.map((table) => table.name)).toContain('_migrations');
        // Statements that touch no row still need the right (PostgreSQL checks it before it runs them); one column a writer may set.
        for (const { name, column } of tables) {
          const table = `${client.escapeIdentifier(schema)}.${client.escapeIdentifier(name)}`;
          await client.query(`SELECT count(*) FROM ${table}`);
          const col = client.escapeIdentifier(column);
          await client.query(`INSERT INTO ${table} (${col}) SELECT ${col} FROM ${table} WHERE false`);
          await client.query(`UPDATE ${table} SET ${col} = ${col} WHERE false`);
          await client.query(`DELETE FROM ${table} WHERE false`);
        }
        const { rows: denied } = await client.query(
          `SELECT c.relname AS name FROM pg_class c
            WHERE c.relnamespace = $1::regnamespace AND c.relkind = 'S'
              AND NOT (has_sequence_privilege(c.oid, 'USAGE') AND has_sequence_privilege(c.oid, 'SELECT') AND has_sequence_privilege(c.oid, 'UPDATE'))
           UNION ALL
           SELECT p.proname FROM pg_proc p WHERE p.pronamespace = $1::regnamespace AND NOT has_function_privilege(p.oid, 'EXECUTE')`,
          [schema],
        );
        expect(denied).toEqual([]);
      });
      const migrations = readMigrations(target.migrationsDirOf(service));
      expect(await applyMigrations({ databaseUrl: urlsOf(service).DATABASE_URL!, schema, migrations })).toEqual({
        applied: [],
        alreadyApplied: migrations.length,
      });
    });

    it('creates nothing: no table in its schema or in public, no schema; empties no table, owns nothing and is no other role', async () => {
      const { schema } = principalOf(service);
      await asRuntimeRole(service, async (client) => {
        await expect(client.query(`CREATE TABLE ${client.escapeIdentifier(schema)}.intruder (id int)`)).rejects.toThrow(
          `permission denied for schema ${schema}`,
        );
        await expect(client.query('CREATE TABLE public.intruder (id int)')).rejects.toThrow('permission denied for schema public');
        await expect(client.query(`CREATE SCHEMA ${client.escapeIdentifier(`${schema}_intruder`)}`)).rejects.toThrow(/permission denied for database/);
        await client.query('BEGIN');
        await expect(client.query(`TRUNCATE ${client.escapeIdentifier(schema)}._migrations`)).rejects.toThrow('permission denied for table _migrations');
        await client.query('ROLLBACK');

        // No schema of the database, its own and public included, takes an object from it, nor the database a schema.
        expect((await client.query(`SELECT nspname FROM pg_namespace WHERE has_schema_privilege(oid, 'CREATE')`)).rows).toEqual([]);
        expect((await client.query(`SELECT has_database_privilege(current_database(), 'CREATE') AS granted`)).rows).toEqual([{ granted: false }]);
        const { rows: truncatable } = await client.query(
          `SELECT c.relname FROM pg_class c WHERE c.relnamespace = $1::regnamespace AND c.relkind IN ('r', 'p') AND has_table_privilege(c.oid, 'TRUNCATE')`,
          [schema],
        );
        expect(truncatable).toEqual([]);
        const { rows: owned } = await client.query(
          `SELECT 'relation' AS kind, relname AS name FROM pg_class WHERE relowner = current_user::regrole
           UNION ALL SELECT 'function', proname FROM pg_proc WHERE proowner = current_user::regrole
           UNION ALL SELECT 'schema', nspname FROM pg_namespace WHERE nspowner = current_user::regrole
           UNION ALL SELECT 'role', rolname FROM pg_roles WHERE rolname <> current_user AND pg_has_role(current_user, oid, 'MEMBER')`,
        );
        expect(owned).toEqual([]);
      });
    });

    it("has no right on another service's schema", async () => {
      const others = plan.database.filter((principal) => principal.service !== service);
      expect(others).toHaveLength(databaseServices.length - 1);
      await asRuntimeRole(service, async (client) => {
        for (const other of others) {
          await expect(client.query(`SELECT count(*) FROM ${client.escapeIdentifier(other.schema)}._migrations`)).rejects.toThrow(
            `permission denied for schema ${other.schema}`,
          );
        }
        const { rows } = await client.query(
          `SELECT nspname FROM pg_namespace WHERE nspname = ANY($1) AND (has_schema_privilege(oid, 'USAGE') OR has_schema_privilege(oid, 'CREATE'))`,
          [others.map((other) => other.schema)],
        );
        expect(rows).toEqual([]);
      });
    });
  });
});

/**
 * PostgreSQL 14 and earlier let every role create in schema `public` (a cluster upgraded from one
 * keeps that): the runtime roles must not have that right there either.
 */
describe('provisioning a database whose schema public lets every role create', () => {
  const legacyNamespace = uniqueName('provpub');
  const legacyUrl = new URL(env.databaseUrl);
  legacyUrl.pathname = `${legacyUrl.pathname}_public`;
  const legacyPlan = provisionPlan(
    {
      AMQP_NAMESPACE: legacyNamespace,
      AUTH_DB_SCHEMA: `${legacyNamespace}_auth`,
      INTAKE_DB_SCHEMA: `${legacyNamespace}_intake`,
      ROUTING_DB_SCHEMA: `${legacyNamespace}_routing`,
      NOTIFIER_DB_SCHEMA: `${legacyNamespace}_notifier`,
    },
    { generatePasswords: true },
  );
  const admin = (url: string) => new Client({ connectionString: url });

  beforeAll(async () => {
    await ensureDatabase(legacyUrl.toString());
    const client = admin(legacyUrl.toString());
    await client.connect();
    await client.query('GRANT CREATE ON SCHEMA public TO PUBLIC');
    await client.end();
  }, 60_000);
  afterAll(async () => {
    await removeDatabasePrincipals(legacyUrl.toString(), legacyPlan.database);
    const client = admin(env.databaseUrl);
    await client.connect();
    await client.query(`DROP DATABASE ${client.escapeIdentifier(legacyUrl.pathname.slice(1))}`);
    await client.end();
  }, 60_000);

  it('takes that right away, so that no runtime role creates anything there', async () => {
    const changes = await provisionDatabase(legacyUrl.toString(), legacyPlan.database, (service) => target.migrationsDirOf(service));
    for (const principal of legacyPlan.database) {
      const client = new Client({
        connectionString: serviceEnvironment(legacyPlan, principal.service, { ...target, database: legacyUrl.toString() }).DATABASE_URL,
      });
      await client.connect();
      try {
        await expect(client.query(`CREATE TABLE public.${principal.service}_intruder (id int)`)).rejects.toThrow('permission denied for schema public');
      } finally {
        await client.end();
      }
    }
    expect(changes).toContain('PostgreSQL: CREATE on schema public revoked from PUBLIC');
    expect(await provisionDatabase(legacyUrl.toString(), legacyPlan.database, (service) => target.migrationsDirOf(service))).toEqual([]);
  }, 120_000);
});

describe('a schema the administrator made and migrated, as a development stack leaves it', () => {
  const ns = uniqueName('prov_dev');
  const devPlan = provisionPlan({ AMQP_NAMESPACE: ns, AUTH_DB_SCHEMA: `${ns}_auth` }, { generatePasswords: true });
  const auth = devPlan.database.find((principal) => principal.service === 'auth')!;
  const migrations = readMigrations(target.migrationsDirOf('auth'));

  afterAll(async () => {
    await removeDatabasePrincipals(env.databaseUrl, devPlan.database);
  }, 60_000);

  it('is handed over to its owner, schema included, so that the owner applies the later migrations', async () => {
    // The superuser migrated it up to the first migration (npm start before provisioning existed).
    await applyMigrations({ databaseUrl: env.databaseUrl, schema: auth.schema, migrations: migrations.slice(0, 1) });
    const changes = await provisionDatabase(env.databaseUrl, [auth], (service) => target.migrationsDirOf(service));
    expect(changes).toEqual(
      expect.arrayContaining(migrations.slice(1).map((migration) => `PostgreSQL: schema ${auth.schema}: migration ${migration.name} applied`)),
    );
    const client = new Client({ connectionString: env.databaseUrl });
    await client.connect();
    try {
      const { rows } = await client.query('SELECT pg_get_userbyid(nspowner) AS owner FROM pg_namespace WHERE nspname = $1', [auth.schema]);
      expect(rows).toEqual([{ owner: auth.owner }]);
    } finally {
      await client.end();
    }
  }, 120_000);
});
