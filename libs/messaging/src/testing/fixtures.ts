import type { Pool } from 'pg';
import { z } from 'zod';
import { defineMessage, type MessageDefinition } from '@bedrequest/contracts';
import type { BrokerTopology } from '../topology';
import type { MessageHandler } from '../broker';
import { TestJobDoneV1 } from './reply';

/** A message and topology of the messaging tests' own, in a namespace unique to the test. */
export const TestJobV1 = defineMessage('test.job', 1, z.object({ n: z.number().int() }));

export { TestJobDoneV1 };

export const testCatalog: ReadonlyMap<string, MessageDefinition> = new Map<string, MessageDefinition>([
  [TestJobV1.routingKey, TestJobV1],
  [TestJobDoneV1.routingKey, TestJobDoneV1],
]);

export function testTopology(namespace: string): BrokerTopology & { queues: { work: { name: string; bindings: string[] } } } {
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
 * The inbox pattern: the effect and the message id commit in one transaction, so a redelivered
 * message (its consumer died after the commit, before the ack) is recognised and only acked.
 */
export function recordEffectOnce(pool: Pool, schema: string, afterCommit: () => void = () => undefined): MessageHandler {
  return async ({ envelope }) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const fresh = await client.query(`INSERT INTO "${schema}".inbox (message_id) VALUES ($1) ON CONFLICT DO NOTHING`, [envelope.id]);
      if (fresh.rowCount === 1) {
        const { n } = envelope.payload as { n: number };
        await client.query(`INSERT INTO "${schema}".effect (message_id, n) VALUES ($1, $2)`, [envelope.id, n]);
      }
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK');
      throw error;
    } finally {
      client.release();
    }
    afterCommit();
    return 'ack';
  };
}
