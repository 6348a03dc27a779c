import { connect, type ChannelModel } from 'amqplib';
import { ClinicRegistryChangedV1, declareTopology, messageCatalog, type QueueKey } from '@bedrequest/contracts';
import { assertTopology } from '@bedrequest/messaging';
import { deleteBrokerTopology, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { provisionPlan, serviceEnvironment } from './plan';
import { provisionBroker, removeBrokerPrincipals } from './rabbitmq';

/**
 * What each service's broker user may receive, on the machine's RabbitMQ (docs/operations.md,
 * "Provisioning"): the messages of its own queue (its bindings in libs/contracts' topology) and the
 * broadcasts it listens to (the clinic directory's, libs/clinic-directory), and nothing else. A
 * service that binds a queue of its own to any other key (an admission bundle with its patient data,
 * or `#`) is refused by the broker; the topology, other services' bindings among it, is the
 * provisioner's to declare.
 */
const CONSUMES: Record<'gateway' | 'intake' | 'routing' | 'notifier', { queue?: QueueKey; broadcasts: readonly string[] }> = {
  gateway: { broadcasts: [ClinicRegistryChangedV1.routingKey] },
  intake: { queue: 'intake', broadcasts: [ClinicRegistryChangedV1.routingKey] },
  routing: { queue: 'routing', broadcasts: [] },
  notifier: { queue: 'notifier', broadcasts: [] },
};

const env = testEnvironment();
const namespace = uniqueName('topics');
const topology = declareTopology(namespace);
const plan = provisionPlan({ AMQP_NAMESPACE: namespace }, { generatePasswords: true });
const admin = { amqpUrl: env.amqpUrl, rabbitmqctl: 'rabbitmqctl' };
const ownKeys = (service: keyof typeof CONSUMES) => {
  const { queue, broadcasts } = CONSUMES[service];
  return [...(queue ? topology.queues[queue].bindings : []), ...broadcasts];
};

beforeAll(async () => {
  await provisionBroker(admin, { namespace, deliveryLimit: 5, principals: plan.broker });
}, 60_000);

afterAll(async () => {
  await removeBrokerPrincipals(admin, plan.broker);
  await deleteBrokerTopology(env.amqpUrl, topology).catch(() => undefined);
}, 60_000);

it('provisions a broker user for each service that consumes, and for no other', () => {
  expect(plan.broker.map((principal) => principal.service).sort()).toEqual(Object.keys(CONSUMES).sort());
});

describe.each(Object.keys(CONSUMES) as (keyof typeof CONSUMES)[])("%s's broker user", (service) => {
  let connection: ChannelModel;
  beforeAll(async () => {
    connection = await connect(serviceEnvironment(plan, service, { database: '', amqp: env.amqpUrl, redis: '' }).AMQP_URL!, { noDelay: true });
    connection.on('error', () => undefined);
  });
  afterAll(() => connection?.close().catch(() => undefined));

  const foreign = [...messageCatalog.keys(), '#', '*.*.*.v1'].filter((key) => !ownKeys(service).includes(key));

  it.each(foreign)('may not bind a queue of its own to %s (ACCESS_REFUSED)', async (key) => {
    const channel = await connection.createChannel();
    const closed = new Promise<Error>((resolve) => channel.once('error', resolve));
    const bound = (async () => {
      const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
      await channel.bindQueue(queue, topology.eventsExchange, key);
    })();
    await expect(bound).rejects.toThrow();
    expect((await closed).message).toMatch(/403 \(ACCESS-REFUSED\)/);
  });

  it(`may declare ${CONSUMES[service].broadcasts.length > 0 ? 'only server-named exclusive queues, its broadcast listeners' : 'no queue: it listens to no broadcast'}`, async () => {
    const declare = async (name: string) => {
      const channel = await connection.createChannel();
      const closed = new Promise<Error>((resolve) => channel.once('error', resolve));
      try {
        await channel.assertQueue(name, { exclusive: true, autoDelete: true, durable: false });
      } catch {
        return (await closed).message;
      }
      await channel.close();
      return 'declared';
    };
    expect(await declare('')).toEqual(CONSUMES[service].broadcasts.length > 0 ? 'declared' : expect.stringMatching(/403 \(ACCESS-REFUSED\)/));
    expect(await declare(`${namespace}.${service}-listener`)).toMatch(/403 \(ACCESS-REFUSED\)/);
  });

  it('may not declare the topology', async () => {
    const channel = await connection.createChannel();
    const closed = new Promise<Error>((resolve) => channel.once('error', resolve));
    await expect(assertTopology(channel, topology, 5)).rejects.toThrow();
    expect((await closed).message).toMatch(/403 \(ACCESS-REFUSED\)/);
  });

  it('receives every message it consumes: its queue carries them, its broadcast listeners bind and get them', async () => {
    const { queue, broadcasts } = CONSUMES[service];
    const channel = await connection.createChannel();
    channel.on('error', () => undefined);
    const listeners = new Map<string, string>();
    for (const key of broadcasts) {
      const { queue: listener } = await channel.assertQueue('', { exclusive: true, autoDelete: true, durable: false });
      await channel.bindQueue(listener, topology.eventsExchange, key);
      listeners.set(key, listener);
    }
    const publisher = await connect(env.amqpUrl, { noDelay: true });
    try {
      const confirmed = await publisher.createConfirmChannel();
      // What other services' cases published to the queue too (routing and the notifier share keys).
      if (queue) await confirmed.purgeQueue(topology.queues[queue].name);
      for (const key of ownKeys(service)) confirmed.publish(topology.eventsExchange, key, Buffer.from('{}'), { messageId: `${service}:${key}` });
      await confirmed.waitForConfirms();
    } finally {
      await publisher.close();
    }
    // Consumed, not fetched: intake's queue has a single active consumer, which basic.get does not serve.
    const received: string[] = [];
    for (const source of [...(queue ? [topology.queues[queue].name] : []), ...listeners.values()]) {
      await channel.consume(source, (message) => message && received.push(String(message.properties.messageId)), { noAck: true });
    }
    await waitFor(() => received.length >= ownKeys(service).length, { what: `${service}'s messages` });
    expect(received.sort()).toEqual(
      ownKeys(service)
        .map((key) => `${service}:${key}`)
        .sort(),
    );
    await channel.close();
  });
});
