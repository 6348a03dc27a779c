import { connect } from 'amqplib';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { AdmissionBundleSubmittedV1, ClinicAnswerSubmittedV1, createEnvelope, deadLetterQueueName, declareTopology } from '@bedrequest/contracts';
import { DeadLetterQueues } from '@bedrequest/messaging';
import { applyMigrations, findMigrationsDir, PendingMigrationError, readMigrations } from '@bedrequest/persistence';
import { deleteBrokerTopology, testEnvironment, uniqueName } from '@bedrequest/testing';
import { provisionPlan, serviceEnvironment, type ProvisionPlan } from './plan';
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

async function asRuntimeRole<T>(service: 'intake' | 'notifier', work: (client: Client) => Promise<T>): Promise<T> {
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

  it("gives intake's runtime role its own tables and nothing of the notifier's schema", async () => {
    const intake = plan.database.find((principal) => principal.service === 'intake')!;
    const notifier = plan.database.find((principal) => principal.service === 'notifier')!;
    await asRuntimeRole('intake', async (client) => {
      expect((await client.query('SELECT current_user')).rows[0].current_user).toBe(intake.app);
      await client.query(`SELECT count(*) FROM "${intake.schema}".outbox_message`);
      await expect(client.query(`SELECT count(*) FROM "${notifier.schema}".subscription`)).rejects.toThrow(/permission denied for schema/);
      await expect(client.query(`CREATE TABLE "${intake.schema}".intruder (id int)`)).rejects.toThrow(/permission denied/);
    });
  });

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
