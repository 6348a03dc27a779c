import type { Channel, Options } from 'amqplib';
import { deadLetterQueueName, type QueueDeclaration } from '@bedrequest/contracts';

export interface BrokerTopology {
  readonly eventsExchange: string;
  readonly deadLetterExchange: string;
  readonly queues: Readonly<Record<string, QueueDeclaration>>;
}

/**
 * Declares exchanges, quorum queues with their dead-letter queues, and bindings. Idempotent, run on
 * every connection. A queue's arguments cannot change once it exists; changing them needs a new
 * queue name (see docs/architecture.md).
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
