import type { Logger } from 'pino';
import { Pool } from 'pg';
import { createEnvelope, type Envelope, type MessageDefinition, type PayloadOf } from '@bedrequest/contracts';
import type { Broker } from './broker';

/** A message written in the same transaction as the state change that caused it. */
export interface OutboxRecord {
  routingKey: string;
  envelope: Envelope;
}

export function outboxRecord<D extends MessageDefinition>(
  definition: D,
  payload: PayloadOf<D>,
  meta: { correlationId: string },
): OutboxRecord {
  return { routingKey: definition.routingKey, envelope: createEnvelope(definition, payload, meta) };
}

/** DDL of the outbox table, for a service's migration (`outbox_message` in its own schema). */
export const OUTBOX_TABLE_SQL = `CREATE TABLE outbox_message (
  id          bigserial PRIMARY KEY,
  routing_key text NOT NULL,
  envelope    jsonb NOT NULL,
  created_at  timestamptz(3) NOT NULL DEFAULT now()
);`;

/**
 * The transactional outbox's relay. A service commits its state change and the messages it causes
 * in one transaction (table `outbox_message`); the relay publishes them with publisher confirms,
 * in commit order, in batches, and deletes them once the broker confirmed them. A crash between
 * commit and publish therefore loses nothing: the next run publishes them (maybe twice; consumers
 * deduplicate by message id). One relay per schema is active at a time (a transaction-scoped
 * advisory lock), which keeps the order even with several replicas. It runs when the service
 * nudges it after a commit; polling is only the safety net for runs that failed.
 */
export class OutboxRelay {
  private timer?: NodeJS.Timeout;
  private running?: Promise<void>;
  private again = false;
  private stopped = false;

  constructor(
    private readonly options: {
      pool: Pool;
      schema: string;
      broker: Broker;
      logger: Logger;
      /** Safety net for messages whose immediate publish failed (broker down, crash). */
      pollIntervalMs?: number;
      batchSize?: number;
    },
  ) {}

  start(): void {
    this.timer = setInterval(() => this.nudge(), this.options.pollIntervalMs ?? 1_000);
    this.timer.unref();
    this.nudge();
  }

  /** Publishes pending messages now (coalesced with a run already under way). */
  nudge(): void {
    if (this.stopped) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.drain()
      .catch((error: unknown) => this.options.logger.warn({ err: String(error) }, 'outbox relay run failed; will retry'))
      .finally(() => {
        this.running = undefined;
        if (this.again) {
          this.again = false;
          this.nudge();
        }
      });
  }

  async stop(): Promise<void> {
    this.stopped = true;
    clearInterval(this.timer);
    await this.running;
  }

  private async drain(): Promise<void> {
    const batchSize = this.options.batchSize ?? 200;
    while (this.options.broker.isReady() && (await this.publishBatch(batchSize)) === batchSize);
  }

  /**
   * Publishes up to `batchSize` messages in commit order and returns how many. The rows are deleted
   * in the same transaction, which commits only once the broker confirmed every one of them; when
   * any publish fails, the transaction rolls back and all of them are published again later
   * (consumers deduplicate by message id). Three statements per run: BEGIN, the DELETE (which also
   * takes the relay's lock), COMMIT.
   */
  private async publishBatch(batchSize: number): Promise<number> {
    const { pool, schema, broker } = this.options;
    const client = await pool.connect();
    // A connection cut while it is checked out (database restart) emits 'error': handled here, the
    // query in progress fails and the run is retried later.
    const onError = (error: Error) => this.options.logger.warn({ err: error.message }, 'outbox database connection lost');
    client.on('error', onError);
    let failure: Error | undefined;
    try {
      await client.query('BEGIN');
      // One relay per schema at a time (the lock is the transaction's): commit order is kept even
      // with several replicas. Without the lock the DELETE takes nothing.
      const { rows } = await client.query<{ id: string; routing_key: string; envelope: Envelope }>(
        `WITH relay AS (SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked)
         DELETE FROM "${schema}".outbox_message
          WHERE id IN (SELECT id FROM "${schema}".outbox_message WHERE (SELECT locked FROM relay) ORDER BY id LIMIT $2)
         RETURNING id, routing_key, envelope`,
        [`bedrequest-outbox:${schema}`, batchSize],
      );
      rows.sort((a, b) => (BigInt(a.id) < BigInt(b.id) ? -1 : 1));
      // Published concurrently on one channel, so the broker still receives them in order.
      const results = await Promise.allSettled(rows.map((row) => broker.publishEnvelope(row.routing_key, row.envelope)));
      const rejected = results.find((result) => result.status === 'rejected');
      if (rejected) throw (rejected as PromiseRejectedResult).reason;
      await client.query('COMMIT');
      return rows.length;
    } catch (error) {
      failure = error as Error;
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.off('error', onError);
      // A connection that failed is destroyed rather than returned to the pool.
      client.release(failure);
    }
  }
}

/**
 * The outbox relay of a service with its own small connection pool, started. `stop` stops the
 * relay, then closes the pool.
 */
export function startOutboxRelay(options: { databaseUrl: string; schema: string; broker: Broker; logger: Logger; pollIntervalMs: number }): {
  relay: OutboxRelay;
  stop(): Promise<void>;
} {
  const pool = new Pool({ connectionString: options.databaseUrl, max: 2 });
  // An idle connection cut by a database restart must not crash the process; the pool reconnects.
  pool.on('error', (error) => options.logger.warn({ err: error.message }, 'outbox database connection lost'));
  const relay = new OutboxRelay({ pool, schema: options.schema, broker: options.broker, logger: options.logger, pollIntervalMs: options.pollIntervalMs });
  relay.start();
  return {
    relay,
    stop: async () => {
      await relay.stop();
      await pool.end();
    },
  };
}
