// What a fault reads of its stack's broker, as an administrator would: queue depths, unsettled
// messages and dead letters. FaultFixture offers these for its own namespace.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { connect as connectAmqp, type GetMessage } from 'amqplib';
import { deadLetterQueueName } from '@bedrequest/contracts';

const execute = promisify(execFile);

/** Ready messages in a queue and in its dead-letter queue, and the queue's consumers. */
export async function queueDepth(amqpUrl: string, queue: string): Promise<{ ready: number; deadLettered: number; consumers: number }> {
  const connection = await connectAmqp(amqpUrl);
  try {
    const channel = await connection.createChannel();
    const { messageCount: ready, consumerCount: consumers } = await channel.checkQueue(queue);
    const deadLettered = (await channel.checkQueue(deadLetterQueueName(queue))).messageCount;
    return { ready, deadLettered, consumers };
  } finally {
    await connection.close();
  }
}

/**
 * Messages of a queue that are ready or delivered and not yet settled, as the broker counts them
 * (`rabbitmqctl list_queues`, `rabbitmqctl` the command line to run it: the AMQP queue check counts
 * only the ready ones). 0 once every message published to it has been acknowledged or
 * dead-lettered: none is held by a consumer, none waits to be given back.
 */
export async function unsettledMessages(rabbitmqctl: string, amqpUrl: string, queue: string): Promise<number> {
  const [command = 'rabbitmqctl', ...args] = rabbitmqctl.split(' ');
  const vhost = decodeURIComponent(new URL(amqpUrl).pathname.slice(1)) || '/';
  const { stdout } = await execute(
    command,
    [...args, 'list_queues', '-p', vhost, '--quiet', '--formatter', 'json', 'name', 'messages_ready', 'messages_unacknowledged'],
    { timeout: 60_000, maxBuffer: 64 * 2 ** 20 },
  );
  const rows = JSON.parse(stdout) as { name: string; messages_ready: number; messages_unacknowledged: number }[];
  const row = rows.find((each) => each.name === queue);
  if (!row) throw new Error(`the broker lists no queue ${queue}`);
  return row.messages_ready + row.messages_unacknowledged;
}

/**
 * Takes the message with `messageId` out of a queue's dead-letter queue, if it is there; other
 * dead letters are put back. Returns its AMQP headers (x-death and the like).
 */
export async function takeDeadLettered(amqpUrl: string, queue: string, messageId: string): Promise<Record<string, unknown> | undefined> {
  const connection = await connectAmqp(amqpUrl);
  try {
    const channel = await connection.createChannel();
    const others: GetMessage[] = [];
    let found: Record<string, unknown> | undefined;
    for (;;) {
      const message = await channel.get(deadLetterQueueName(queue), { noAck: false });
      if (!message) break;
      if (message.properties.messageId === messageId) {
        found = message.properties.headers ?? {};
        channel.ack(message);
        break;
      }
      others.push(message);
    }
    for (const message of others) channel.nack(message, false, true);
    await channel.close();
    return found;
  } finally {
    await connection.close();
  }
}
