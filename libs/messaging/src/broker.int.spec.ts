import { spawn } from 'node:child_process';
import { join } from 'node:path';
import { connect, type ChannelModel } from 'amqplib';
import { Pool } from 'pg';
import { deadLetterQueueName } from '@bedrequest/contracts';
import { TcpProxy, bundleScript, deleteBrokerTopology, silentLogger, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { Broker, type BrokerOptions, type ConsumedMessage } from './broker';
import { BrokerUnavailableError, PublishRejectedError } from './errors';
import { TestJobV1, createEffectTables, recordEffectOnce, testCatalog, testTopology } from './testing/fixtures';

const env = testEnvironment();
const DELIVERY_LIMIT = 3;

describe('Broker against the real RabbitMQ', () => {
  let namespace: string;
  let topology: ReturnType<typeof testTopology>;
  let inspector: ChannelModel;
  const brokers: Broker[] = [];

  const newBroker = (overrides: Partial<BrokerOptions> = {}) => {
    const broker = new Broker({
      url: env.amqpUrl,
      topology,
      catalog: testCatalog,
      logger: silentLogger(),
      prefetch: 8,
      deliveryLimit: DELIVERY_LIMIT,
      retryBackoffMs: 10,
      handlerRetry: { retries: 0, minTimeoutMs: 10, maxTimeoutMs: 10 },
      ...overrides,
    });
    brokers.push(broker);
    return broker;
  };

  const messagesIn = async (queue: string) => {
    const channel = await inspector.createChannel();
    try {
      return (await channel.checkQueue(queue)).messageCount;
    } finally {
      await channel.close();
    }
  };

  beforeEach(async () => {
    namespace = uniqueName('messaging');
    topology = testTopology(namespace);
    inspector = await connect(env.amqpUrl);
  });

  afterEach(async () => {
    await Promise.all(brokers.splice(0).map((broker) => broker.stop(2_000)));
    await deleteBrokerTopology(env.amqpUrl, topology);
    await inspector.close();
  });

  it('delivers a published message once to the consumer, which acks it', async () => {
    const broker = newBroker();
    await broker.start();
    const received: ConsumedMessage[] = [];
    await broker.consume(topology.queues.work.name, async (message) => {
      received.push(message);
      return 'ack';
    });

    const sent = await broker.publish(TestJobV1, { n: 7 }, { correlationId: 'corr-1' });

    await waitFor(() => received.length === 1, { what: 'the delivery' });
    expect(received[0]!.envelope).toMatchObject({ id: sent.id, correlationId: 'corr-1', payload: { n: 7 } });
    expect(received[0]!.previousDeliveries).toBe(0);
    await waitFor(async () => (await messagesIn(topology.queues.work.name)) === 0, { what: 'an empty queue' });
  });

  it('refuses to publish a payload that breaks its schema', async () => {
    const broker = newBroker();
    await broker.start();
    await expect(broker.publish(TestJobV1, { n: 1.5 }, { correlationId: 'c' })).rejects.toThrow();
  });

  it('rejects a message no queue is bound for instead of confirming it into the void', async () => {
    const broker = newBroker();
    await broker.start();
    const unbound = { ...TestJobV1, routingKey: 'test.nobody-listens.v1' };
    await expect(broker.publish(unbound, { n: 1 }, { correlationId: 'c' })).rejects.toBeInstanceOf(PublishRejectedError);
  });

  describe('a consumer that dies before acking', () => {
    const schema = uniqueName('effects');
    let pool: Pool;

    beforeAll(async () => {
      pool = new Pool({ connectionString: env.databaseUrl });
      await createEffectTables(pool, schema);
    });
    afterAll(async () => {
      await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
      await pool.end();
    });

    it('gets the message redelivered, and it is processed once', async () => {
      const publisher = newBroker();
      await publisher.start();
      const sent = await publisher.publish(TestJobV1, { n: 42 }, { correlationId: 'dies' });

      // A real process commits the effect, then is killed with SIGKILL before it acks.
      const script = bundleScript(join(__dirname, 'testing', 'dying-consumer.ts'));
      const child = spawn(process.execPath, [script], {
        env: { ...process.env, TEST_NAMESPACE: namespace, TEST_SCHEMA: schema, TEST_DELIVERY_LIMIT: String(DELIVERY_LIMIT) },
        stdio: 'inherit',
      });
      const exit = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      expect(exit).toBe('SIGKILL');
      const effects = () => pool.query(`SELECT n FROM "${schema}".effect WHERE message_id = $1`, [sent.id]);
      expect((await effects()).rowCount).toBe(1);

      // The broker still holds the unacked message and hands it to the next consumer.
      const redeliveries: number[] = [];
      const survivor = newBroker();
      await survivor.start();
      const recordOnce = recordEffectOnce(pool, schema);
      await survivor.consume(topology.queues.work.name, async (message) => {
        redeliveries.push(message.previousDeliveries);
        return recordOnce(message);
      });

      await waitFor(() => redeliveries.length === 1, { what: 'the redelivery' });
      expect(redeliveries[0]).toBeGreaterThanOrEqual(1);
      await waitFor(async () => (await messagesIn(topology.queues.work.name)) === 0, { what: 'an empty queue' });
      expect((await effects()).rows).toEqual([{ n: 42 }]);
    });
  });

  it('dead-letters a message that always fails after exactly the delivery limit', async () => {
    const broker = newBroker();
    await broker.start();
    const attempts: number[] = [];
    const healthy: number[] = [];
    await broker.consume(topology.queues.work.name, async ({ envelope, previousDeliveries }) => {
      const { n } = envelope.payload as { n: number };
      if (n === 13) {
        attempts.push(previousDeliveries);
        throw new Error('always fails');
      }
      healthy.push(n);
      return 'ack';
    });

    await broker.publish(TestJobV1, { n: 13 }, { correlationId: 'poison' });
    for (let n = 0; n < 5; n++) await broker.publish(TestJobV1, { n }, { correlationId: 'ok' });

    const deadLetters = deadLetterQueueName(topology.queues.work.name);
    await waitFor(async () => (await messagesIn(deadLetters)) === 1, { what: 'the dead-lettered message' });
    // RabbitMQ 3.10 dead-letters once a message was returned more than `x-delivery-limit` times:
    // the first delivery plus DELIVERY_LIMIT redeliveries.
    expect(attempts).toHaveLength(DELIVERY_LIMIT + 1);
    expect(healthy.sort()).toEqual([0, 1, 2, 3, 4]);
    expect(await messagesIn(topology.queues.work.name)).toBe(0);
  });

  it('tries a failing handler again in-process, so a short outage uses up no delivery', async () => {
    const broker = newBroker({ handlerRetry: { retries: 4, minTimeoutMs: 20, maxTimeoutMs: 50 } });
    await broker.start();
    const calls: number[] = [];
    await broker.consume(topology.queues.work.name, async ({ previousDeliveries }) => {
      calls.push(previousDeliveries);
      if (calls.length < 4) throw new Error('database restarting');
      return 'ack';
    });
    await broker.publish(TestJobV1, { n: 5 }, { correlationId: 'outage' });
    await waitFor(() => calls.length === 4, { what: 'the fourth try' });
    // One delivery, four tries of the handler; nothing went back to the queue or to the dead letters.
    expect(calls).toEqual([0, 0, 0, 0]);
    await waitFor(async () => (await messagesIn(topology.queues.work.name)) === 0, { what: 'an empty queue' });
    expect(await messagesIn(deadLetterQueueName(topology.queues.work.name))).toBe(0);
  });

  it('dead-letters an unreadable message at once', async () => {
    const broker = newBroker();
    await broker.start();
    let handled = 0;
    await broker.consume(topology.queues.work.name, async () => {
      handled++;
      return 'ack';
    });
    const channel = await inspector.createChannel();
    channel.publish(topology.eventsExchange, TestJobV1.routingKey, Buffer.from('{"not": "an envelope"'));
    await channel.close();

    await waitFor(async () => (await messagesIn(deadLetterQueueName(topology.queues.work.name))) === 1, {
      what: 'the dead-lettered message',
    });
    expect(handled).toBe(0);
  });

  it('rejects a publish while the broker is unreachable, and publishes again once it is back', async () => {
    const proxy = new TcpProxy({ host: new URL(env.amqpUrl).hostname, port: Number(new URL(env.amqpUrl).port || 5672) });
    const proxyUrl = new URL(env.amqpUrl);
    proxyUrl.port = String(await proxy.start());
    try {
      const broker = newBroker({ url: proxyUrl.toString(), reconnect: { initialDelayMs: 50, maxDelayMs: 200 } });
      await broker.start();
      await broker.publish(TestJobV1, { n: 1 }, { correlationId: 'before' });

      proxy.cut();
      await waitFor(() => !broker.isReady(), { what: 'the broker to notice the lost connection' });
      await expect(broker.publish(TestJobV1, { n: 2 }, { correlationId: 'during' })).rejects.toBeInstanceOf(
        BrokerUnavailableError,
      );

      proxy.restore();
      await waitFor(() => broker.isReady(), { what: 'the reconnection' });
      await broker.publish(TestJobV1, { n: 3 }, { correlationId: 'after' });
      expect(await messagesIn(topology.queues.work.name)).toBe(2);
      await broker.stop();
    } finally {
      await proxy.stop();
    }
  });

  it('drains in-flight work on stop: the running handler finishes and its message is acked', async () => {
    const broker = newBroker();
    await broker.start();
    let started = false;
    let finished = false;
    await broker.consume(topology.queues.work.name, async () => {
      started = true;
      await new Promise((resolve) => setTimeout(resolve, 500));
      finished = true;
      return 'ack';
    });
    await broker.publish(TestJobV1, { n: 1 }, { correlationId: 'drain' });
    await waitFor(() => started, { what: 'the handler to start' });

    await broker.stop();

    expect(finished).toBe(true);
    expect(await messagesIn(topology.queues.work.name)).toBe(0);
  });
});
