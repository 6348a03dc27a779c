import { connect, type Channel, type ChannelModel, type Options } from 'amqplib';
import { caOptionFor, env } from '@bedrequest/config';
import { deadLetterQueueName, type QueueDeclaration } from '@bedrequest/contracts';

export interface BrokerTopology {
  readonly eventsExchange: string;
  readonly deadLetterExchange: string;
  readonly queues: Readonly<Record<string, QueueDeclaration>>;
}

/**
 * Declares the topology with a broker administrator's connection, and closes it: provisioning's step
 * (docs/operations.md, "Provisioning"), the only one that declares it, also for a stack or a test
 * that starts services. Services never do: their users may not. `adminUrl`: one URL, or a cluster's
 * nodes comma-separated (the first that takes the connection declares it; they are the cluster's).
 */
export async function declareBrokerTopology(adminUrl: string, topology: BrokerTopology, deliveryLimit: number): Promise<void> {
  let lastError: unknown = new Error('no broker URL given');
  for (const url of env.urlsOf(adminUrl)) {
    let connection;
    try {
      // amqps: the node verified against TLS_CA_FILE (docs/operations.md, "Encryption in transit").
      connection = await connect(url, { noDelay: true, timeout: 10_000, ...caOptionFor(url) });
    } catch (error) {
      lastError = error;
      continue;
    }
    try {
      await assertTopology(await connection.createChannel(), topology, deliveryLimit);
      return;
    } finally {
      await connection.close().catch(() => undefined);
    }
  }
  throw lastError;
}

/**
 * Fails with one line saying to provision when the events exchange is missing, for a connection that
 * declares no topology: its consumers and publishes would otherwise fail one by one with the broker's
 * NOT_FOUND. A passive declaration, which needs no right; on a channel of its own, which the broker
 * closes when the exchange is missing.
 */
export async function expectTopology(model: ChannelModel, topology: BrokerTopology): Promise<void> {
  const channel = await model.createChannel();
  channel.on('error', () => undefined);
  try {
    await channel.checkExchange(topology.eventsExchange);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (!/NOT[-_]FOUND/.test(reason)) throw error;
    throw new Error(
      `the broker has no exchange ${topology.eventsExchange}: provision the topology first (npm run admin -- provision; docs/operations.md, "Provisioning")`,
      { cause: error },
    );
  }
  await channel.close().catch(() => undefined);
}

/**
 * Declares exchanges, quorum queues with their dead-letter queues, and bindings. Idempotent. A
 * queue's arguments cannot change once it exists; changing them needs a new queue name (see
 * docs/architecture.md).
 */
export async function assertTopology(channel: Channel, topology: BrokerTopology, deliveryLimit: number): Promise<void> {
  await channel.assertExchange(topology.eventsExchange, 'topic', { durable: true });
  await channel.assertExchange(topology.deadLetterExchange, 'direct', { durable: true });
  for (const queue of Object.values(topology.queues)) {
    const deadLetters = deadLetterQueueName(queue.name);
    await channel.assertQueue(deadLetters, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    await channel.bindQueue(deadLetters, topology.deadLetterExchange, queue.name);
    await declareQueue(channel, queue.name, {
      durable: true,
      arguments: {
        // Quorum queues replicate and fsync before confirming, and count deliveries.
        'x-queue-type': 'quorum',
        // RabbitMQ 3.10 sets no default limit: without one a poison message loops forever.
        'x-delivery-limit': deliveryLimit,
        'x-dead-letter-exchange': topology.deadLetterExchange,
        'x-dead-letter-routing-key': queue.name,
        // at-least-once dead-lettering: the message leaves the queue only once the dead-letter
        // queue confirmed it. It requires overflow reject-publish.
        'x-dead-letter-strategy': 'at-least-once',
        'x-overflow': 'reject-publish',
        ...(queue.singleActiveConsumer ? { 'x-single-active-consumer': true } : {}),
      },
    });
    for (const routingKey of queue.bindings) {
      await channel.bindQueue(queue.name, topology.eventsExchange, routingKey);
    }
  }
}

/**
 * assertQueue, with a queue that exists with other arguments (a queue of an earlier release, e.g.
 * intake's before its single active consumer) named, and what to do, instead of the broker's
 * PRECONDITION_FAILED. Its arguments cannot be changed in place.
 */
async function declareQueue(channel: Channel, name: string, options: Options.AssertQueue): Promise<void> {
  try {
    await channel.assertQueue(name, options);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    if (!/PRECONDITION[-_]FAILED/.test(reason) || !reason.includes('inequivalent arg')) throw error;
    const argument = /inequivalent arg '([^']+)'/.exec(reason)?.[1] ?? 'an argument';
    throw new Error(
      `queue ${name} exists with other arguments than this release declares (${argument} differs): once it is empty, delete it ` +
        `(rabbitmqctl delete_queue ${name}) and start or provision again (docs/architecture.md, "Scaling")`,
      { cause: error },
    );
  }
}
