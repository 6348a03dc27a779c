import { connect, type ChannelModel } from 'amqplib';
import { Pool } from 'pg';
import { Registry } from 'prom-client';
import { TcpProxy, deleteBrokerTopology, metricSum, silentLogger, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { Broker } from './broker';
import { OUTBOX_TABLE_SQL, OutboxRelay, oldestMessageAgeSql, outboxRecord, startOutboxRelay } from './outbox';
import { TestJobV1, takeQueuedNumbers, testCatalog, testTopology } from './testing/fixtures';

const env = testEnvironment();

describe('the outbox relay against the real RabbitMQ and PostgreSQL', () => {
  const namespace = uniqueName('outbox');
  const topology = testTopology(namespace);
  const schema = uniqueName('outbox');
  let pool: Pool;
  let inspector: ChannelModel;
  const brokers: Broker[] = [];

  const newBroker = (url = env.amqpUrl) => {
    const broker = new Broker({
      url,
      topology,
      catalog: testCatalog,
      logger: silentLogger(),
      prefetch: 8,
      deliveryLimit: 3,
      reconnect: { initialDelayMs: 50, maxDelayMs: 200 },
    });
    brokers.push(broker);
    return broker;
  };

  const drainQueue = () => takeQueuedNumbers(inspector, topology.queues.work.name);

  beforeAll(async () => {
    pool = new Pool({ connectionString: env.databaseUrl });
    await pool.query(`CREATE SCHEMA "${schema}"`);
    await pool.query(`SET search_path TO "${schema}"; ${OUTBOX_TABLE_SQL}`);
    inspector = await connect(env.amqpUrl);
  });

  afterAll(async () => {
    await Promise.all(brokers.map((broker) => broker.stop(2_000)));
    await deleteBrokerTopology(env.amqpUrl, topology);
    await inspector.close();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  it('publishes committed messages in order, and keeps them while the broker is away', async () => {
    const proxy = new TcpProxy({ host: new URL(env.amqpUrl).hostname, port: Number(new URL(env.amqpUrl).port || 5672) });
    const url = new URL(env.amqpUrl);
    url.port = String(await proxy.start());
    const broker = newBroker(url.toString());
    await broker.start();
    const relay = new OutboxRelay({ databaseUrl: env.databaseUrl, schema, broker, logger: silentLogger(), pollIntervalMs: 50, batchSize: 7 });
    const insert = async (from: number, to: number) => {
      for (let n = from; n < to; n++) {
        const record = outboxRecord(TestJobV1, { n }, { correlationId: 'outbox' });
        await pool.query(`INSERT INTO "${schema}".outbox_message (routing_key, envelope) VALUES ($1, $2)`, [record.routingKey, record.envelope]);
      }
    };
    const pending = async () => Number((await pool.query(`SELECT count(*) FROM "${schema}".outbox_message`)).rows[0].count);

    try {
      proxy.cut();
      await waitFor(() => !broker.isReady(), { what: 'the lost connection' });
      await insert(0, 20);
      // Each run of the relay asks whether the broker is ready: three runs (its first and two polls)
      // have passed while it was not, and kept everything.
      const asked = jest.spyOn(broker, 'isReady');
      relay.start();
      await waitFor(() => asked.mock.calls.length >= 3, { what: 'three runs of the relay' });
      expect(await pending()).toBe(20);
      asked.mockRestore();

      proxy.restore();
      await insert(20, 30);
      await waitFor(async () => (await pending()) === 0, { what: 'the outbox to drain' });
      expect(await drainQueue()).toEqual(Array.from({ length: 30 }, (_, n) => n));
    } finally {
      await relay.stop();
      await broker.stop(1_000);
      await proxy.stop();
    }
  });

  it('has one relay per schema publish, each message once, and deletes what was confirmed', async () => {
    const broker = newBroker();
    await broker.start();
    const relays = [0, 1].map(
      () => new OutboxRelay({ databaseUrl: env.databaseUrl, schema, broker, logger: silentLogger(), pollIntervalMs: 30, batchSize: 5 }),
    );
    const pending = async () => Number((await pool.query(`SELECT count(*) FROM "${schema}".outbox_message`)).rows[0].count);
    try {
      for (let n = 100; n < 120; n++) {
        const record = outboxRecord(TestJobV1, { n }, { correlationId: 'two-relays' });
        await pool.query(`INSERT INTO "${schema}".outbox_message (routing_key, envelope) VALUES ($1, $2)`, [record.routingKey, record.envelope]);
      }
      for (const relay of relays) relay.start();
      // The last confirmed batch is deleted by the next (polling) run.
      await waitFor(async () => (await pending()) === 0, { what: 'the outbox to drain' });
      expect(await drainQueue()).toEqual(Array.from({ length: 20 }, (_, n) => 100 + n));
    } finally {
      for (const relay of relays) await relay.stop();
      await broker.stop(1_000);
    }
  });

  it('reports the age of the oldest waiting message through the primary key, however many deleted rows VACUUM has not removed yet', async () => {
    const table = `"${schema}".outbox_message`;
    await pool.query(`INSERT INTO ${table} (routing_key, envelope) SELECT $1, '{}'::jsonb FROM generate_series(1, 20000)`, [TestJobV1.routingKey]);
    await pool.query(`DELETE FROM ${table}`);
    await pool.query(`INSERT INTO ${table} (routing_key, envelope, created_at) VALUES ($1, '{}', now() - interval '90 seconds'), ($1, '{}', now())`, [
      TestJobV1.routingKey,
    ]);
    // A broker never started: the relay leaves the messages where they are.
    const metrics = new Registry();
    const relay = startOutboxRelay({ databaseUrl: env.databaseUrl, schema, broker: newBroker(), logger: silentLogger(), pollIntervalMs: 50, metrics });
    try {
      const age = metricSum(await metrics.metrics(), 'outbox_oldest_message_age_seconds');
      expect(age).toBeGreaterThanOrEqual(90);
      expect(age).toBeLessThan(150);
    } finally {
      await relay.stop();
    }
    const { rows } = await pool.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (FORMAT JSON) ${oldestMessageAgeSql(schema)}`);
    expect(JSON.stringify(rows[0]!['QUERY PLAN'])).not.toContain('Seq Scan');
    await pool.query(`DELETE FROM ${table}`);
  });
});
