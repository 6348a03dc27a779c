// The vacuum-lag figure's delivery part: the notifier's claims on tables VACUUM has not reached, then vacuumed.
import { join } from 'node:path';
import type { Client } from 'pg';
// The bench is a test harness, not a service: the fixture Task is what it should publish.
import { fhirTask } from '@bedrequest/fhir-model/testing';
import { root } from '@bedrequest/stack';
import { claimTurn, newLease } from '../../apps/notifier/src/delivery/claim-rule';
import type { ClaimedDelivery } from '../../apps/notifier/src/delivery/claimed-delivery';
import { claimDueSql } from '../../apps/notifier/src/delivery/due-claim';
import { notifierTables } from '../../apps/notifier/src/persistence/database';
import { incomingEvent, openNotifierStore, type NotifierStore } from '../../apps/notifier/src/testing/notifier-store';
import { dropSchema } from './figure-encryption';
import { connected, explain, summarizeStates, tableStats, type History, type StatementCost, type TableState } from './vacuum-lag-tables';

const DELIVERY_TABLES = ['delivery', 'delivery_attempt', 'inbox_message', 'subscription'] as const;
const LEASE_MS = 15_000;
const DISABLE_AFTER_MS = 5 * 24 * 60 * 60 * 1000;

/**
 * The delivery part: a notifier schema of its own (its migrations, 20 subscriptions) through which
 * `history.deliveries` webhook deliveries passed by the notifier's own statements (stored 32 a
 * statement with the hand-over, recorded delivered; what the hand-over left, claimed), then per run
 * `deliveries` more: once stored without hand-over and claimed 64 at a time (deliveries claimed per
 * second, each claim recorded), once stored and handed over by the storing statement (deliveries
 * per second); the claim's statement EXPLAINed with 500 due. `vacuumed` is after VACUUM ANALYZE
 * with nothing pending, as autovacuum may leave a queue table's statistics.
 */
export async function deliveryPart(options: { databaseUrl: string; history: History; deliveries: number; runs: number }) {
  const { databaseUrl, history } = options;
  const store = await openNotifierStore(databaseUrl, {}, join(root, 'apps', 'notifier', 'prisma', 'migrations'));
  const client = await connected(databaseUrl);
  const { schema } = store;
  const task = fhirTask({ businessStatus: 'declined' });
  try {
    for (const table of DELIVERY_TABLES) await client.query(`ALTER TABLE "${schema}".${table} SET (autovacuum_enabled = off)`);
    const parties = await Promise.all(Array.from({ length: 20 }, () => store.subscribedParty()));
    // `count` events of `requests` requests named after `label`, in turn (a request's later events wait for its earlier ones).
    const events = (count: number, requests: number, label: string) =>
      Array.from({ length: count }, (_, n) =>
        incomingEvent(parties[n % parties.length]!.partyId, `https://bench-hospital.example/fhir/ServiceRequest/${label}-${n % requests}`, { data: task }),
      );
    const record = (claimed: readonly ClaimedDelivery[]) => recordDelivered(store, claimed);
    for (let n = 0; n < history.deliveries; n += 32) {
      const { claimed } = await store.events.recordAll(events(Math.min(32, history.deliveries - n), 32, `history-${n % Math.ceil(history.deliveries / 3)}`), {
        limit: 64,
        leaseMs: LEASE_MS,
      });
      await record(claimed);
      await claimAll(store, record);
    }
    const before = await tableStats(client, schema, DELIVERY_TABLES);
    const measured: Record<TableState, { claimedPerSecond: number; claimMs: number; handedOverPerSecond: number; storeMs: number; claim: StatementCost }[]> = {
      lagging: [],
      vacuumed: [],
    };
    for (const state of ['lagging', 'vacuumed'] as const) {
      for (let run = 0; run < options.runs; run++) {
        if (state === 'vacuumed') await client.query(`VACUUM ANALYZE ${DELIVERY_TABLES.map((table) => `"${schema}".${table}`).join(', ')}`);
        const stored = events(options.deliveries, Math.ceil(options.deliveries / 4), `claimed-${state}-${run}`);
        for (let n = 0; n < stored.length; n += 32) await store.events.recordAll(stored.slice(n, n + 32));
        const claimCost = await explainClaim(client, schema, 500);
        const claimed = await claimAll(store, record);
        const handed = await handOverAll(store, events(options.deliveries, options.deliveries, `handed-${state}-${run}`), record);
        measured[state].push({ ...claimed, ...handed, claim: claimCost });
      }
    }
    return { history: history.deliveries, tablesBefore: before, ...summarizeStates(measured) };
  } finally {
    await client.end();
    await store.close();
    await dropSchema(databaseUrl, schema);
  }
}

async function recordDelivered(store: NotifierStore, claimed: readonly ClaimedDelivery[]): Promise<void> {
  if (claimed.length === 0) return;
  await store.deliveries.recordAttempts(
    claimed.map((claim) => ({
      claim,
      attempt: { attemptedAt: new Date(), statusCode: 204, error: null, durationMs: 2 },
      step: { kind: 'delivered' as const },
    })),
    DISABLE_AFTER_MS,
  );
}

/** Claims (64 at a time) and records what is due until nothing is: claims per second and ms per claim statement. */
async function claimAll(store: NotifierStore, record: (claimed: readonly ClaimedDelivery[]) => Promise<void>) {
  let claims = 0;
  let claimed = 0;
  let claimMs = 0;
  const started = performance.now();
  for (;;) {
    const claimStarted = performance.now();
    const result = await store.deliveries.claimDue(64, LEASE_MS);
    claimMs += performance.now() - claimStarted;
    claims++;
    if (result.claimed.length === 0) break;
    claimed += result.claimed.length;
    await record(result.claimed);
  }
  const seconds = (performance.now() - started) / 1000;
  return { claimedPerSecond: Math.round(claimed / seconds), claimMs: Math.round((claimMs / claims) * 100) / 100 };
}

/** Stores events 32 a statement with the hand-over (64 slots) and records what each handed over. */
async function handOverAll(store: NotifierStore, events: ReturnType<typeof incomingEvent>[], record: (claimed: readonly ClaimedDelivery[]) => Promise<void>) {
  let storeMs = 0;
  let statements = 0;
  let handed = 0;
  const started = performance.now();
  for (let n = 0; n < events.length; n += 32) {
    const storeStarted = performance.now();
    const { claimed } = await store.events.recordAll(events.slice(n, n + 32), { limit: 64, leaseMs: LEASE_MS });
    storeMs += performance.now() - storeStarted;
    statements++;
    handed += claimed.length;
    await record(claimed);
  }
  await claimAll(store, record);
  const seconds = (performance.now() - started) / 1000;
  return { handedOverPerSecond: Math.round(events.length / seconds), storeMs: Math.round((storeMs / statements) * 100) / 100, handedOver: handed };
}

/** EXPLAIN (ANALYZE, BUFFERS) of the worker's claim of 64 (after its turn, as the worker runs it) with `due` deliveries due, rolled back. */
async function explainClaim(client: Client, schema: string, due: number): Promise<StatementCost> {
  const { rows } = await client.query<{ n: number }>(`SELECT count(*)::int AS n FROM "${schema}".delivery WHERE status = 'pending'`);
  if ((rows[0]?.n ?? 0) < due) throw new Error(`only ${rows[0]?.n} deliveries due for the claim's EXPLAIN`);
  const turn = claimTurn(schema);
  const statement = claimDueSql(notifierTables(schema), 64, newLease(LEASE_MS));
  await client.query('BEGIN');
  try {
    await client.query(turn.text, turn.values);
    return await explain(client, statement.text, statement.values);
  } finally {
    await client.query('ROLLBACK');
  }
}
