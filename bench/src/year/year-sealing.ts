// What the seed seals for real, with the services' own keyrings in the seeded schemas (libs/crypto,
// docs/data-protection.md): every value a hot path opens. The Task search opens each Task's notes,
// a batch of intake its Tasks' notes and histories, the clinic's list the version summaries, the
// notifier a subscription's secret for every delivery; these are sealed as the services seal them,
// for their own rows, so the services read the seeded year as their own. Values no hot path opens
// (bundles, documents, verdicts, internal notes, case numbers, drafts, events) are bytes of a
// sealed value's length (pg_temp.noise, seed-lifecycle.ts).
import type { Client } from 'pg';
import { openDataKeyring, type DataKeyring, type SqlClient } from '@bedrequest/crypto';
import { sealedFor as intakeSealedFor } from '../../../apps/intake/src/persistence/sealed-fields';
import { sealedFor as notifierSealedFor } from '../../../apps/notifier/src/persistence/sealed-fields';
import { bundleSummaryOf } from '../../../apps/intake/src/clinic-tasks/bundle-summary';
import type { StoredHistoryEntry } from '../../../apps/intake/src/tasks/task-history';
import type { TaskNote } from '../../../apps/intake/src/tasks/task-resource';
import type { Window } from './seed-intake';

export type NodeEnv = 'development' | 'test' | 'production';

const sqlOf = (client: Client): SqlClient => ({ query: async <Row>(sql: string, values: unknown[]) => (await client.query(sql, values)).rows as Row[] });

/**
 * A service's keyring in `schema`, made as the service makes it on its first start: outside
 * production with the development KEK stored in the schema, which the services then use too.
 */
export async function openKeyring(client: Client, schema: string, nodeEnv: NodeEnv, options: { fingerprintKey: boolean }): Promise<DataKeyring> {
  const { keyring } = await openDataKeyring({ NODE_ENV: nodeEnv }, { sql: sqlOf(client), schema });
  // Intake makes its fingerprint key on its first start (persistence/sealed-fields.ts); the notifier has none.
  if (options.fingerprintKey) await keyring.fingerprintKey();
  return keyring;
}

/** Values packed into one bytea parameter (sent in binary), each row taking its slice: a batch is one statement without a hex round trip. */
class Packed {
  private readonly parts: Buffer[] = [];
  private length = 0;
  readonly offsets: number[] = [];
  readonly lengths: number[] = [];

  add(value: Buffer): void {
    this.offsets.push(this.length + 1);
    this.lengths.push(value.length);
    this.parts.push(value);
    this.length += value.length;
  }

  get buffer(): Buffer {
    return Buffer.concat(this.parts);
  }
}

const BATCH = 20_000;

interface TaskOfSeal {
  id: string;
  status: string;
  business_status: string | null;
  answered_at: Date | null;
  auto_answer: boolean;
  clinic_user: string;
  created: Date;
  supplemented_at: Date | null;
  cancelled_at: Date | null;
  chosen: boolean;
  selected_at: Date | null;
  sent_version: number;
}

/** A Task's notes and history as intake keeps them for a Task that lived as the seed says. */
export function taskPlaintexts(task: TaskOfSeal): { notes: TaskNote[]; history: StoredHistoryEntry[] } {
  const notes: TaskNote[] = [];
  const history: StoredHistoryEntry[] = [{ kind: 'request', at: task.created.toISOString(), action: 'answer-requested', status: 'requested', version: 1 }];
  if (task.supplemented_at && (!task.cancelled_at || task.supplemented_at < task.cancelled_at)) {
    history.push({ kind: 'request', at: task.supplemented_at.toISOString(), action: 'answer-requested', status: 'requested', version: 2 });
  }
  if (task.answered_at && task.business_status) {
    const author = task.auto_answer ? ({ source: 'automatic' } as const) : ({ source: 'clinic', user: task.clinic_user, name: 'Aufnahme' } as const);
    notes.push({
      text:
        task.business_status === 'accepted'
          ? 'Aufnahme möglich, bitte Entlassbrief und aktuelle Medikation mitgeben.'
          : 'Leider keine Kapazität in der gewünschten Fachabteilung.',
      time: task.answered_at.toISOString(),
      author,
    });
    history.push({ kind: 'answer', at: task.answered_at.toISOString(), businessStatus: task.business_status as 'accepted', author, note: 0 });
  }
  if (task.chosen && task.selected_at) {
    history.push({ kind: 'request', at: task.selected_at.toISOString(), action: 'selected', status: 'in-progress', version: task.sent_version });
  } else if (task.cancelled_at) {
    history.push({ kind: 'request', at: task.cancelled_at.toISOString(), action: 'cancelled', status: 'cancelled' });
  }
  return { notes, history };
}

/** Seals the notes and histories of the Tasks that arrived in the window and still hold them (not erased), batch by batch. */
export async function sealTasks(client: Client, schema: string, keyring: DataKeyring, w: Window): Promise<number> {
  let sealed = 0;
  let after = '00000000-0000-0000-0000-000000000000';
  for (;;) {
    const { rows } = await client.query<TaskOfSeal>(
      `SELECT id::text AS id, status, business_status, answered_at, auto_answer, clinic_user, created, supplemented_at, cancelled_at, chosen, selected_at,
              sent_version
         FROM year_task WHERE created >= ${w.from} AND created < ${w.to} AND erased_at IS NULL AND id > $1::uuid ORDER BY id LIMIT ${BATCH}`,
      [after],
    );
    if (rows.length === 0) return sealed;
    const notes = new Packed();
    const history = new Packed();
    for (const task of rows) {
      const plain = taskPlaintexts(task);
      notes.add(keyring.sealJson(plain.notes, intakeSealedFor.notes(task.id)));
      history.add(keyring.sealJson(plain.history, intakeSealedFor.history(task.id)));
    }
    await client.query(
      `UPDATE "${schema}".clinic_task t
          SET sealed_notes = substring($2::bytea FROM x.n_at FOR x.n_len), sealed_history = substring($3::bytea FROM x.h_at FOR x.h_len)
         FROM unnest($1::uuid[], $4::int[], $5::int[], $6::int[], $7::int[]) AS x(id, n_at, n_len, h_at, h_len)
        WHERE t.id = x.id`,
      [rows.map((row) => row.id), notes.buffer, history.buffer, notes.offsets, notes.lengths, history.offsets, history.lengths],
    );
    sealed += rows.length;
    after = rows[rows.length - 1]!.id;
  }
}

/** Seals the clinic-list summary of every version that arrived in the window and is kept (its request not erased). */
export async function sealSummaries(client: Client, schema: string, keyring: DataKeyring, w: Window, bundle: unknown): Promise<number> {
  const summary = bundleSummaryOf(bundle);
  let sealed = 0;
  let after = { id: '00000000-0000-0000-0000-000000000000', version: 0 };
  for (;;) {
    const { rows } = await client.query<{ id: string; version: number }>(
      `SELECT v.request_id::text AS id, v.version FROM year_request r JOIN "${schema}".request_version v ON v.request_id = r.id
        WHERE r.created >= ${w.from} AND r.created < ${w.to} AND r.erased_at IS NULL AND (v.request_id, v.version) > ($1::uuid, $2::int)
        ORDER BY v.request_id, v.version LIMIT ${BATCH}`,
      [after.id, after.version],
    );
    if (rows.length === 0) return sealed;
    const packed = new Packed();
    for (const row of rows) packed.add(keyring.sealJson(summary, intakeSealedFor.summary(row.id, row.version)));
    await client.query(
      `UPDATE "${schema}".request_version v SET sealed_summary = substring($3::bytea FROM x.at FOR x.len)
         FROM unnest($1::uuid[], $2::int[], $4::int[], $5::int[]) AS x(id, version, at, len)
        WHERE v.request_id = x.id AND v.version = x.version`,
      [rows.map((row) => row.id), rows.map((row) => row.version), packed.buffer, packed.offsets, packed.lengths],
    );
    sealed += rows.length;
    after = rows[rows.length - 1]!;
  }
}

/** A webhook subscription (AdmissionResponse) for seven in ten referrer parties and the bench's, each with its secret sealed as the notifier seals it. */
export async function seedSubscriptions(client: Client, schema: string, keyring: DataKeyring, start: string): Promise<number> {
  const { rows } = await client.query<{ id: string; party_id: string; party: number }>(
    `SELECT pg_temp.uid(party, 81)::text AS id, party_id, party FROM year_party WHERE party = 0 OR pg_temp.u(party, 80) < 0.7 ORDER BY party`,
  );
  const secrets = new Packed();
  for (const row of rows) secrets.add(keyring.seal(`whsec_seeded_${row.party}_${row.id.slice(0, 8)}`, notifierSealedFor.secret(row.id)));
  await client.query(
    `INSERT INTO "${schema}".subscription (id, party_id, event_type, callback_url, sealed_secret, status, created_at, updated_at)
     SELECT x.id, x.party_id, 'AdmissionResponse', 'https://hospital-' || x.party || '.example/webhooks/bedrequest', substring($3::bytea FROM x.at FOR x.len),
            'active', ${start}, ${start}
       FROM unnest($1::uuid[], $2::text[], $4::int[], $5::int[], $6::int[]) AS x(id, party_id, at, len, party)`,
    [rows.map((row) => row.id), rows.map((row) => row.party_id), secrets.buffer, secrets.offsets, secrets.lengths, rows.map((row) => row.party)],
  );
  return rows.length;
}
