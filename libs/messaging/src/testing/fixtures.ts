import type { ChannelModel } from 'amqplib';
import type { Pool } from 'pg';
import { z } from 'zod';
import { defineMessage, type MessageDefinition } from '@bedrequest/contracts';
import type { BrokerTopology } from '../topology';
import type { BatchHandler } from '../batch-consumer';
import { TestJobDoneV1 } from './reply';

/** A message and topology of the messaging tests' own, in a namespace unique to the test. */
export const TestJobV1 = defineMessage('test.job', 1, z.object({ n: z.number().int() }));
/** A broadcast: to whichever processes subscribe at the moment. */
export const TestNewsV1 = defineMessage('test.news', 1, z.object({ text: z.string() }), { broadcast: true });

export { TestJobDoneV1 };

export const testCatalog: ReadonlyMap<string, MessageDefinition> = new Map<string, MessageDefinition>([
  [TestJobV1.routingKey, TestJobV1],
  [TestJobDoneV1.routingKey, TestJobDoneV1],
  [TestNewsV1.routingKey, TestNewsV1],
]);

export function testTopology(namespace: string): BrokerTopology & { queues: { work: { name: string; bindings: string[]; singleActiveConsumer?: boolean } } } {
  return {
    eventsExchange: `${namespace}.events`,
    deadLetterExchange: `${namespace}.dead-letter`,
    queues: { work: { name: `${namespace}.work`, bindings: [TestJobV1.routingKey] } },
  };
}

export async function createEffectTables(pool: Pool, schema: string): Promise<void> {
  await pool.query(`CREATE SCHEMA IF NOT EXISTS "${schema}"`);
  await pool.query(`CREATE TABLE IF NOT EXISTS "${schema}".inbox (message_id uuid PRIMARY KEY)`);
  await pool.query(`CREATE TABLE IF NOT EXISTS "${schema}".effect (message_id uuid NOT NULL, n integer NOT NULL)`);
}

/**
 * The inbox pattern, for a batch: the effects and the message ids commit in one transaction, so a
 * redelivered message (its consumer died after the commit, before the ack) is recognised and only
 * acked. One inbox insert for the whole batch (`ON CONFLICT DO NOTHING RETURNING`) tells which
 * messages are new; only theirs take effect.
 */
export function recordEffectOnce(pool: Pool, schema: string, afterCommit: () => void = () => undefined): BatchHandler {
  return async (messages) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const { rows } = await client.query<{ message_id: string }>(
        `INSERT INTO "${schema}".inbox (message_id) SELECT unnest($1::uuid[]) ON CONFLICT DO NOTHING RETURNING message_id`,
        [messages.map((message) => message.envelope.id)],
      );
      const fresh = new Set(rows.map((row) => row.message_id));
      const effects = messages.filter((message) => fresh.has(message.envelope.id));
      await client.query(`INSERT INTO "${schema}".effect (message_id, n) SELECT * FROM unnest($1::uuid[], $2::integer[])`, [
        effects.map((message) => message.envelope.id),
        effects.map((message) => TestJobV1.payload.parse(message.envelope.payload).n),
      ]);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
    afterCommit();
    return messages.map(() => 'ack' as const);
  };
}

/** Takes every message off `queue` (no acks needed) and returns the `n` of their payloads, in queue order. */
export async function takeQueuedNumbers(connection: ChannelModel, queue: string): Promise<number[]> {
  const channel = await connection.createChannel();
  const numbers: number[] = [];
  for (;;) {
    const message = await channel.get(queue, { noAck: true });
    if (!message) break;
    numbers.push((JSON.parse(message.content.toString()) as { payload: { n: number } }).payload.n);
  }
  await channel.close();
  return numbers;
}
