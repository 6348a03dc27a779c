import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { connect, type ChannelModel } from 'amqplib';
import { Pool } from 'pg';
import { deadLetterQueueName, messageCatalog } from '@bedrequest/contracts';
import { TcpProxy, bundleScript, captureLogger, deleteBrokerTopology, silentLogger, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { assertTopology } from './topology';
import { Broker, type BrokerOptions } from './broker';
import type { ConsumedMessage, HandlerOutcome } from './consumed-message';
import { BrokerUnavailableError, PublishRejectedError } from './errors';
import { TestJobV1, TestNewsV1, createEffectTables, recordEffectOnce, testCatalog, testTopology } from './testing/fixtures';

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

  /** Takes every message off `queue` (no acks needed): their envelopes, in queue order. */
  const takeQueued = async (queue: string) => {
    const channel = await inspector.createChannel();
    const envelopes: Record<string, unknown>[] = [];
    for (let message = await channel.get(queue, { noAck: true }); message; message = await channel.get(queue, { noAck: true })) {
      envelopes.push(JSON.parse(message.content.toString()) as Record<string, unknown>);
    }
    await channel.close();
    return envelopes;
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

  const payloadOf = (message: ConsumedMessage) => (message.envelope.payload as { n: number }).n;

  it('delivers a published message once to the consumer, which acks it', async () => {
    const broker = newBroker();
    await broker.start();
    const received: ConsumedMessage[] = [];
    await broker.consume(topology.queues.work.name, async (messages) => {
      received.push(...messages);
      return messages.map(() => 'ack' as const);
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

  it('delivers a broadcast to every subscribed process, and publishing one nobody hears is no error', async () => {
    const publisher = newBroker();
    await publisher.start();
    await publisher.publish(TestNewsV1, { text: 'nobody listens yet' }, { correlationId: 'news' });

    const heard: string[][] = [[], []];
    const subscribed = [0, 0];
    for (const index of [0, 1]) {
      const listener = newBroker();
      await listener.start();
      await listener.subscribe({
        routingKeys: [TestNewsV1.routingKey],
        handler: ({ envelope }) => heard[index]!.push((envelope.payload as { text: string }).text),
        onSubscribed: () => subscribed[index]!++,
      });
    }
    await publisher.publish(TestNewsV1, { text: 'registry changed' }, { correlationId: 'news' });

    await waitFor(() => heard.every((texts) => texts.length === 1), { what: 'the broadcast at both listeners' });
    expect(heard).toEqual([['registry changed'], ['registry changed']]);
    expect(subscribed).toEqual([1, 1]);
  });

  it('hands what the broker delivered to the handler as batches, in queue order, and acks them all', async () => {
    const publisher = newBroker();
    await publisher.start();
    for (let n = 0; n < 40; n++) await publisher.publish(TestJobV1, { n }, { correlationId: 'backlog' });

    const broker = newBroker({ prefetch: 32, batch: { maxBatch: 16, windowMs: 50 } });
    await broker.start();
    const batches: number[][] = [];
    await broker.consume(topology.queues.work.name, async (messages) => {
      batches.push(messages.map(payloadOf));
      return messages.map(() => 'ack' as const);
    });

    await waitFor(() => batches.flat().length === 40, { what: 'every message' });
    expect(batches.flat()).toEqual(Array.from({ length: 40 }, (_, n) => n));
    expect(batches.length).toBeLessThan(40);
    expect(Math.max(...batches.map((batch) => batch.length))).toBe(16);
    await waitFor(async () => (await messagesIn(topology.queues.work.name)) === 0, { what: 'an empty queue' });
  });

  it('keeps queue order with two consumers on a queue of a single active consumer (intake), and hands over in order when the active one stops', async () => {
    topology = { ...topology, queues: { work: { ...topology.queues.work, singleActiveConsumer: true } } };
    const publisher = newBroker();
    await publisher.start();
    const [first, second] = [newBroker({ prefetch: 4 }), newBroker({ prefetch: 4 })];
    const received: { first: number[]; second: number[] } = { first: [], second: [] };
    for (const [name, broker] of [
      ['first', first],
      ['second', second],
    ] as const) {
      await broker.start();
      await broker.consume(topology.queues.work.name, async (messages) => {
        received[name].push(...messages.map(payloadOf));
        await new Promise((resolve) => setTimeout(resolve, 5));
        return messages.map(() => 'ack' as const);
      });
    }
    for (let n = 0; n < 60; n++) await publisher.publish(TestJobV1, { n }, { correlationId: 'ordered' });
    await waitFor(() => received.first.length + received.second.length >= 30, { what: 'half of the messages' });
    const [active, standby] = received.first.length > 0 ? [first, received.second] : [second, received.first];
    expect(standby).toEqual([]);
    await active.stop(2_000);
    await waitFor(() => received.first.length + received.second.length >= 60, { what: 'every message' });

    // Each consumer took its part in queue order; between them, every message, the hand-over at one point.
    const all = [...(active === first ? received.first : received.second), ...standby];
    expect(new Set(all)).toEqual(new Set(Array.from({ length: 60 }, (_, n) => n)));
    for (const part of [received.first, received.second]) expect(part).toEqual([...part].sort((a, b) => a - b));
  });

  it('says which queue exists with other arguments and what to do, when the topology changed (a queue made before its single active consumer)', async () => {
    const channel = await inspector.createChannel();
    await channel.assertQueue(topology.queues.work.name, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    await channel.close().catch(() => undefined);
    const changed = { ...topology, queues: { work: { ...topology.queues.work, singleActiveConsumer: true } } };
    const declaring = await inspector.createChannel();
    declaring.on('error', () => undefined);
    await expect(assertTopology(declaring, changed, DELIVERY_LIMIT)).rejects.toThrow(
      new RegExp(`queue ${topology.queues.work.name.replaceAll('.', '\\.')} exists with other arguments than this release declares .*delete it`),
    );
  });

  it('acks the rest of a batch without acking a message of it that goes back to the queue', async () => {
    const broker = newBroker({ prefetch: 16, batch: { maxBatch: 8, windowMs: 50 } });
    await broker.start();
    const seen: { n: number; previousDeliveries: number }[] = [];
    await broker.consume(topology.queues.work.name, async (messages) => {
      seen.push(...messages.map((message) => ({ n: payloadOf(message), previousDeliveries: message.previousDeliveries })));
      // The first message asks to be delivered again once; the later ones are acked (a multiple
      // ack up to the last of them would take the first one with it).
      return messages.map((message): HandlerOutcome => (payloadOf(message) === 0 && message.previousDeliveries === 0 ? 'retry' : 'ack'));
    });
    await Promise.all([0, 1, 2].map((n) => broker.publish(TestJobV1, { n }, { correlationId: 'mixed' })));

    await waitFor(() => seen.filter((entry) => entry.n === 0).length === 2, { what: 'the redelivery of message 0' });
    expect(seen.filter((entry) => entry.n === 0).map((entry) => entry.previousDeliveries)).toEqual([0, 1]);
    expect(seen.filter((entry) => entry.n !== 0)).toHaveLength(2);
    await waitFor(async () => (await messagesIn(topology.queues.work.name)) === 0, { what: 'an empty queue' });
  });

  describe('with effects in PostgreSQL', () => {
    const schema = uniqueName('effects');
    let pool: Pool;
    const effects = async (ids: string[]) =>
      (await pool.query<{ message_id: string; n: number }>(`SELECT message_id, n FROM "${schema}".effect WHERE message_id = ANY($1::uuid[]) ORDER BY n`, [ids]))
        .rows;

    beforeAll(async () => {
      pool = new Pool({ connectionString: env.databaseUrl });
      await createEffectTables(pool, schema);
    });
    afterAll(async () => {
      await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
      await pool.end();
    });

    it('a consumer killed between commit and ack: the batch is redelivered and changes nothing the second time', async () => {
      const publisher = newBroker();
      await publisher.start();
      const sent = [];
      for (let n = 0; n < 10; n++) sent.push(await publisher.publish(TestJobV1, { n }, { correlationId: 'dies' }));
      const ids = sent.map((envelope) => envelope.id);

      // A real process commits its first batch, then is killed with SIGKILL before it acks.
      const script = bundleScript(join(__dirname, 'testing', 'dying-consumer.ts'));
      const child = spawn(process.execPath, [script], {
        env: { ...process.env, TEST_NAMESPACE: namespace, TEST_SCHEMA: schema, TEST_DELIVERY_LIMIT: String(DELIVERY_LIMIT) },
        stdio: 'inherit',
      });
      const exit = await new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
      expect(exit).toBe('SIGKILL');
      const committedBeforeDeath = (await effects(ids)).length;
      expect(committedBeforeDeath).toBeGreaterThan(1);

      // The broker still holds the unacked messages and hands them to the next consumer.
      const redeliveries: number[] = [];
      const survivor = newBroker();
      await survivor.start();
      const recordOnce = recordEffectOnce(pool, schema);
      await survivor.consume(topology.queues.work.name, async (messages) => {
        redeliveries.push(...messages.map((message) => message.previousDeliveries));
        return recordOnce(messages);
      });

      await waitFor(async () => (await messagesIn(topology.queues.work.name)) === 0 && redeliveries.length === 10, { what: 'an empty queue' });
      expect(redeliveries.filter((count) => count >= 1)).toHaveLength(committedBeforeDeath);
      expect((await effects(ids)).map((row) => row.n)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    });

    it('dead-letters a poison message alone after exactly the delivery limit while its neighbours commit once', async () => {
      const broker = newBroker({ prefetch: 16, batch: { maxBatch: 8, windowMs: 20 } });
      await broker.start();
      const poisonDeliveries: number[] = [];
      const recordOnce = recordEffectOnce(pool, schema);
      await broker.consume(topology.queues.work.name, async (messages) => {
        const poison = messages.find((message) => payloadOf(message) === 13);
        if (poison) {
          poisonDeliveries.push(poison.previousDeliveries);
          throw new Error('always fails');
        }
        return recordOnce(messages);
      });

      const sent = await Promise.all([10, 11, 12, 13, 14, 15].map((n) => broker.publish(TestJobV1, { n }, { correlationId: 'poison' })));
      const healthy = sent.filter((envelope) => envelope.payload.n !== 13).map((envelope) => envelope.id);

      const deadLetters = deadLetterQueueName(topology.queues.work.name);
      await waitFor(async () => (await messagesIn(deadLetters)) === 1, { what: 'the dead-lettered message' });
      // RabbitMQ 3.10 dead-letters once a message was returned more than `x-delivery-limit` times:
      // the first delivery plus DELIVERY_LIMIT redeliveries. (It may be tried more than once per
      // delivery: in its batch, then alone.)
      expect([...new Set(poisonDeliveries)]).toEqual(Array.from({ length: DELIVERY_LIMIT + 1 }, (_, index) => index));
      expect((await effects(healthy)).map((row) => row.n)).toEqual([10, 11, 12, 14, 15]);
      expect(await messagesIn(topology.queues.work.name)).toBe(0);
    });
  });

  it('tries a failing handler again in-process when every message fails, so a short outage uses up no delivery', async () => {
    const broker = newBroker({ handlerRetry: { retries: 4, minTimeoutMs: 20, maxTimeoutMs: 50 } });
    await broker.start();
    const calls: number[] = [];
    await broker.consume(topology.queues.work.name, async (messages) => {
      calls.push(...messages.map((message) => message.previousDeliveries));
      if (calls.length < 4) throw new Error('database restarting');
      return messages.map(() => 'ack' as const);
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
    await broker.consume(topology.queues.work.name, async (messages) => {
      handled += messages.length;
      return messages.map(() => 'ack' as const);
    });
    const channel = await inspector.createChannel();
    channel.publish(topology.eventsExchange, TestJobV1.routingKey, Buffer.from('{"not": "an envelope"'));
    await channel.close();

    await waitFor(async () => (await messagesIn(deadLetterQueueName(topology.queues.work.name))) === 1, {
      what: 'the dead-lettered message',
    });
    expect(handled).toBe(0);
  });

  it.each([
    ['a version the catalog does not have', 0, { request: {} }, /^not an envelope/],
    [
      'a payload without what 1.0 requires (the summary)',
      1,
      {
        submitter: { partyId: 'referrer-1', ikNumbers: ['260000001'], fhirBase: 'https://referrer.example/fhir' },
        receivedAt: '2026-11-22T10:00:00Z',
        bundle: {},
      },
      /^payload invalid at request:/,
    ],
  ])('dead-letters a message of a shape 1.0 does not know (%s) at once, with one log line naming its type', async (_shape, version, payload, problem) => {
    const captured = captureLogger('info');
    const broker = newBroker({ catalog: messageCatalog, logger: captured.logger });
    await broker.start();
    let handled = 0;
    await broker.consume(topology.queues.work.name, async (messages) => {
      handled += messages.length;
      return messages.map(() => 'ack' as const);
    });
    const id = randomUUID();
    const envelope = { id, type: 'admission.bundle.submitted', version, correlationId: 'old-shape', occurredAt: new Date().toISOString(), payload };
    const channel = await inspector.createChannel();
    // Straight to the queue: the delivery's routing key is the queue's name, so only the envelope says what it is.
    channel.sendToQueue(topology.queues.work.name, Buffer.from(JSON.stringify(envelope)));
    await channel.close();

    const deadLetter = deadLetterQueueName(topology.queues.work.name);
    await waitFor(async () => (await messagesIn(deadLetter)) === 1, { what: 'the dead-lettered message' });
    expect(handled).toBe(0);
    expect(await takeQueued(deadLetter)).toEqual([envelope]);
    const logged = captured
      .text()
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const aboutIt = logged.filter((line) => JSON.stringify(line).includes(id) || JSON.stringify(line).includes('admission.bundle.submitted'));
    expect(aboutIt).toEqual([
      expect.objectContaining({
        level: 50,
        msg: 'unreadable message dead-lettered',
        messageType: `admission.bundle.submitted.v${version}`,
        messageId: id,
        queue: topology.queues.work.name,
        problem: expect.stringMatching(problem),
      }),
    ]);
    expect(logged.filter((line) => Number(line.level) >= 40)).toHaveLength(1);
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
      await expect(broker.publish(TestJobV1, { n: 2 }, { correlationId: 'during' })).rejects.toBeInstanceOf(BrokerUnavailableError);

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
    await broker.consume(topology.queues.work.name, async (messages) => {
      started = true;
      await new Promise((resolve) => setTimeout(resolve, 500));
      finished = true;
      return messages.map(() => 'ack' as const);
    });
    await broker.publish(TestJobV1, { n: 1 }, { correlationId: 'drain' });
    await waitFor(() => started, { what: 'the handler to start' });

    await broker.stop();

    expect(finished).toBe(true);
    expect(await messagesIn(topology.queues.work.name)).toBe(0);
  });
});
