import type { Logger } from 'pino';
import { Client } from 'pg';
import { Gauge, type Registry } from 'prom-client';
import { postgresUrlWithCa } from '@bedrequest/config';
import { createEnvelope, type Envelope, type MessageDefinition, type PayloadOf, type TypedEnvelope } from '@bedrequest/contracts';
import type { Broker } from './broker';
import { traceContextOf, type TraceContext } from './trace-context';
import { WakeUpLoop } from './wake-up-loop';

/**
 * A message written in the same transaction as the state change that caused it; its payload typed
 * by its definition where it is made.
 */
export interface OutboxRecord<D extends MessageDefinition = MessageDefinition> {
  routingKey: string;
  envelope: TypedEnvelope<D>;
  /** The trace the message continues when the relay sends it (undefined while tracing is off). */
  traceContext?: TraceContext;
}

/**
 * An outbox message. It continues `meta.traceContext` (a consumed message's, see MessageMeta) or,
 * without one, the active trace (an HTTP request's).
 */
export function outboxRecord<D extends MessageDefinition>(
  definition: D,
  payload: PayloadOf<D>,
  meta: { correlationId: string; traceContext?: TraceContext },
): OutboxRecord<D> {
  const traceContext = meta.traceContext ?? traceContextOf();
  return {
    routingKey: definition.routingKey,
    envelope: createEnvelope(definition, payload, { correlationId: meta.correlationId }),
    ...(traceContext ? { traceContext } : {}),
  };
}

/** An outbox record as the columns of its `outbox_message` row. */
export function outboxRow(record: OutboxRecord): { routing_key: string; envelope: Envelope; trace_context: TraceContext | null } {
  return { routing_key: record.routingKey, envelope: record.envelope, trace_context: record.traceContext ?? null };
}

/** DDL of the outbox table, for a service's migration (`outbox_message` in its own schema). */
export const OUTBOX_TABLE_SQL = `CREATE TABLE outbox_message (
  id            bigserial PRIMARY KEY,
  routing_key   text NOT NULL,
  envelope      jsonb NOT NULL,
  created_at    timestamptz(3) NOT NULL DEFAULT now(),
  trace_context jsonb
);`;

/**
 * The relay's one statement per run: deletes the messages confirmed before (`$1`, ids) and reads the
 * next `$2` in id order. The confirmed ones go; the rest are still there (deleted rows are invisible
 * to the SELECT of the same statement only by the exclusion: both see one snapshot).
 */
export function relayBatchSql(schema: string): string {
  return `WITH confirmed AS (DELETE FROM "${schema}".outbox_message WHERE id = ANY($1::bigint[]))
         SELECT id, routing_key, envelope, trace_context FROM "${schema}".outbox_message WHERE id <> ALL($1::bigint[]) ORDER BY id LIMIT $2`;
}

/**
 * Seconds since the message the relay publishes next (the lowest id) was written, 0 when the outbox
 * is empty. Read through the primary key: `min(created_at)` would read the whole table, and a table
 * whose deleted rows VACUUM has not yet removed is much larger than what waits in it.
 */
export function oldestMessageAgeSql(schema: string): string {
  return `SELECT coalesce(extract(epoch FROM now() - (SELECT created_at FROM "${schema}".outbox_message ORDER BY id LIMIT 1)), 0)::float8 AS age`;
}

/**
 * The transactional outbox's relay. A service commits its state change and the messages it causes
 * in one transaction (table `outbox_message`); the relay publishes them with publisher confirms,
 * in commit order, in batches. A crash between commit and publish therefore loses nothing: the next
 * run publishes them (maybe twice; consumers deduplicate by message id). It runs when the service
 * nudges it after a commit; polling is only the safety net for runs that failed.
 *
 * One statement per run: it deletes what the previous run saw confirmed and reads the next batch
 * (a confirmed message is deleted with the next run, at the latest after `pollIntervalMs`; should
 * the relay die first, it is published once more). One relay per schema is active at a time: its
 * connection holds a session-level advisory lock; when that connection is lost, so is the lock, and
 * another replica's relay takes over. Commit order is kept.
 */
export class OutboxRelay {
  private readonly loop: WakeUpLoop;
  private client?: Client;
  /** Confirmed by the broker, to be deleted by the next statement. */
  private confirmed: string[] = [];

  constructor(
    private readonly options: {
      databaseUrl: string;
      schema: string;
      broker: Broker;
      logger: Logger;
      /** Safety net for messages whose immediate publish failed (broker down, crash). */
      pollIntervalMs?: number;
      batchSize?: number;
    },
  ) {
    this.loop = new WakeUpLoop({
      pass: () => this.drain(),
      intervalMs: options.pollIntervalMs ?? 1_000,
      logger: options.logger,
      failureMessage: 'outbox relay run failed; will retry',
    });
  }

  start(): void {
    this.loop.start();
  }

  /** Publishes pending messages soon (the commits of one turn are one run, coalesced with a run under way). */
  nudge(): void {
    this.loop.wake();
  }

  /** Publishes what is there (the last commits of a stopping service), deletes what was confirmed, and gives the lock back (closing its connection). */
  async stop(): Promise<void> {
    await this.loop.stop({ lastPass: true });
    const client = this.client;
    this.client = undefined;
    if (!client) return;
    if (this.confirmed.length > 0) {
      await client.query(`DELETE FROM "${this.options.schema}".outbox_message WHERE id = ANY($1::bigint[])`, [this.confirmed]).catch(() => undefined);
    }
    await client.end().catch(() => undefined);
  }

  private async drain(): Promise<void> {
    const batchSize = this.options.batchSize ?? 200;
    while (this.options.broker.isReady() && (await this.publishBatch(batchSize)) === batchSize);
  }

  /** Publishes up to `batchSize` messages in commit order; returns how many it read. */
  private async publishBatch(batchSize: number): Promise<number> {
    const client = await this.connection();
    if (!client) return 0;
    const { schema, broker } = this.options;
    let rows: { id: string; routing_key: string; envelope: Envelope; trace_context: TraceContext | null }[];
    try {
      ({ rows } = await client.query<{ id: string; routing_key: string; envelope: Envelope; trace_context: TraceContext | null }>(relayBatchSql(schema), [
        this.confirmed,
        batchSize,
      ]));
    } catch (error) {
      this.drop(client);
      throw error;
    }
    this.confirmed = [];
    // Published concurrently on one channel, so the broker still receives them in order.
    // Each continues the trace stored with it: the request that caused it, however much later it goes.
    const results = await Promise.allSettled(rows.map((row) => broker.publishEnvelope(row.routing_key, row.envelope, undefined, row.trace_context)));
    const failed = results.findIndex((result) => result.status === 'rejected');
    // Up to the first failure, in order; from there on everything is published again next time.
    this.confirmed = rows.slice(0, failed === -1 ? rows.length : failed).map((row) => row.id);
    if (failed !== -1) throw (results[failed] as PromiseRejectedResult).reason;
    return rows.length;
  }

  /** The relay's own connection, holding the schema's relay lock; undefined while another relay holds it. */
  private async connection(): Promise<Client | undefined> {
    if (this.client) return this.client;
    const client = new Client({ connectionString: postgresUrlWithCa(this.options.databaseUrl) });
    // A connection cut by a database restart emits 'error': handled here; the next run reconnects.
    client.on('error', (error) => {
      this.options.logger.warn({ err: error.message }, 'outbox database connection lost');
      this.drop(client);
    });
    try {
      await client.connect();
      const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtext($1)) AS locked', [
        `bedrequest-outbox:${this.options.schema}`,
      ]);
      if (!rows[0]?.locked) {
        await client.end();
        return undefined;
      }
      // A deletion lost in a crash only makes a message go out twice, which consumers absorb: the
      // relay's commits need not wait for the disk.
      await client.query('SET synchronous_commit = off');
    } catch (error) {
      await client.end().catch(() => undefined);
      throw error;
    }
    this.client = client;
    return client;
  }

  private drop(client: Client): void {
    if (this.client === client) this.client = undefined;
    client.end().catch(() => undefined);
  }
}

/**
 * The outbox relay of a service, started. `stop` stops it and gives its lock back. With `metrics`,
 * the age of the oldest message still in the outbox (the next to go, oldestMessageAgeSql) is a gauge
 * (`outbox_oldest_message_age_seconds`, 0 when empty), read when scraped: a relay that cannot publish lets it grow (deploy/monitoring).
 */
export function startOutboxRelay(options: {
  databaseUrl: string;
  schema: string;
  broker: Broker;
  logger: Logger;
  pollIntervalMs: number;
  metrics?: Registry;
}): {
  relay: OutboxRelay;
  stop(): Promise<void>;
} {
  const relay = new OutboxRelay(options);
  relay.start();
  if (options.metrics) {
    const { databaseUrl, schema, logger } = options;
    new Gauge({
      name: 'outbox_oldest_message_age_seconds',
      help: 'Age of the oldest message in the outbox not yet published and deleted (0: empty)',
      registers: [options.metrics],
      async collect() {
        const client = new Client({ connectionString: postgresUrlWithCa(databaseUrl) });
        client.on('error', () => undefined);
        try {
          await client.connect();
          const { rows } = await client.query<{ age: number }>(oldestMessageAgeSql(schema));
          this.set(rows[0]?.age ?? 0);
        } catch (error) {
          logger.warn({ err: (error as Error).message }, 'outbox age could not be read for the metrics');
        } finally {
          await client.end().catch(() => undefined);
        }
      },
    });
  }
  return { relay, stop: () => relay.stop() };
}
