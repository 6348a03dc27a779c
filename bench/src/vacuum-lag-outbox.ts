// The vacuum-lag figure's outbox part: intake's outbox relay on a table VACUUM has not reached, then vacuumed.
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { Registry } from 'prom-client';
import { AdmissionOverdueV1 } from '@bedrequest/contracts';
// The bench is a test harness, not a service: the fixture Task is what it should publish.
import { fhirTask } from '@bedrequest/fhir-model/testing';
import { oldestMessageAgeSql, OUTBOX_TABLE_SQL, OutboxRelay, outboxRecord, relayBatchSql, type Broker } from '@bedrequest/messaging';
import { metricSum } from '@bedrequest/testing';
import { connected, explain, summarizeStates, tableStats, type History, type StatementCost, type TableState } from './vacuum-lag-tables';

/**
 * The outbox part: a schema with intake's outbox table through which `history.outboxMessages`
 * passed while the relay was behind (all written, then all relayed: the most a day can leave, as
 * after a broker outage), then per run `messages` more committed 48 at a time (as intake's batches
 * do) and relayed by the real OutboxRelay to the broker; rows relayed per second, and the relay's
 * statement and the age gauge's EXPLAINed with 100 messages waiting.
 */
export async function outboxPart(options: { databaseUrl: string; broker: Broker; metrics: Registry; history: History; messages: number; runs: number }) {
  const { databaseUrl, broker, metrics, history } = options;
  const schema = `bench_vacuum_lag_outbox_${history.name}`;
  const client = await connected(databaseUrl);
  const envelope = (n: number) =>
    outboxRecord(
      AdmissionOverdueV1,
      {
        eventId: randomUUID(),
        referrerPartyId: 'bench-vacuum-lag',
        requestIdentifier: `https://bench-hospital.example/fhir/ServiceRequest/vacuum-lag-${n}`,
        task: fhirTask({ businessStatus: 'declined' }),
        deadline: new Date().toISOString(),
      },
      { correlationId: 'bench-vacuum-lag' },
    ).envelope;
  try {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.query(`CREATE SCHEMA "${schema}"`);
    await client.query(`SET search_path TO "${schema}"`);
    await client.query(OUTBOX_TABLE_SQL);
    await client.query(`RESET search_path`);
    // Whatever the cluster's autovacuum does, this table waits for VACUUM.
    await client.query(`ALTER TABLE "${schema}".outbox_message SET (autovacuum_enabled = off)`);
    await client.query(`INSERT INTO "${schema}".outbox_message (routing_key, envelope) SELECT $1, $2::jsonb FROM generate_series(1, $3)`, [
      AdmissionOverdueV1.routingKey,
      JSON.stringify(envelope(0)),
      history.outboxMessages,
    ]);
    await client.query(`DELETE FROM "${schema}".outbox_message`);
    // The relay's next run reads past them once and marks their index entries dead, as after a real drain.
    await client.query(relayBatchSql(schema), [[], 200]);
    const measured: Record<TableState, { relayedPerSecond: number; relay: StatementCost; ageGauge: StatementCost }[]> = { lagging: [], vacuumed: [] };
    const before = await tableStats(client, schema, ['outbox_message']);
    for (const state of ['lagging', 'vacuumed'] as const) {
      if (state === 'vacuumed') await client.query(`VACUUM ANALYZE "${schema}".outbox_message`);
      for (let run = 0; run < options.runs; run++) {
        const relay = new OutboxRelay({ databaseUrl, schema, broker, logger: pino({ level: 'warn' }), pollIntervalMs: 1_000, batchSize: 200 });
        const published = async () => metricSum(await metrics.metrics(), 'messages_published_total');
        const start = await published();
        relay.start();
        const started = performance.now();
        for (let n = 0; n < options.messages; n += 48) {
          const batch = Array.from({ length: Math.min(48, options.messages - n) }, (_, k) => JSON.stringify(envelope(n + k)));
          await client.query(`INSERT INTO "${schema}".outbox_message (routing_key, envelope) SELECT $1, unnest($2::jsonb[])`, [
            AdmissionOverdueV1.routingKey,
            batch,
          ]);
          relay.nudge();
        }
        const deadline = performance.now() + 120_000;
        while ((await published()) - start < options.messages && performance.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
        const seconds = (performance.now() - started) / 1000;
        await relay.stop();
        if ((await published()) - start < options.messages) throw new Error(`the relay published ${(await published()) - start} of ${options.messages}`);
        await client.query(`INSERT INTO "${schema}".outbox_message (routing_key, envelope) SELECT $1, $2::jsonb FROM generate_series(1, 100)`, [
          AdmissionOverdueV1.routingKey,
          JSON.stringify(envelope(0)),
        ]);
        const relayCost = await explain(client, relayBatchSql(schema), [[], 200]);
        const ageGauge = await explain(client, oldestMessageAgeSql(schema), []);
        await client.query(`DELETE FROM "${schema}".outbox_message`);
        await client.query(relayBatchSql(schema), [[], 200]);
        measured[state].push({ relayedPerSecond: Math.round(options.messages / seconds), relay: relayCost, ageGauge });
      }
    }
    return { history: history.outboxMessages, tableBefore: before, ...summarizeStates(measured) };
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => undefined);
    await client.end();
  }
}
