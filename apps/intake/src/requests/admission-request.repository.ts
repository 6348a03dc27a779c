import type { IntakeVerdictV1 } from '@bedrequest/contracts';
import { Prisma } from '../generated/prisma/client';
import { requestWriterTables, byteaOfJson, sealedFor, type SealedFields, type SqlRunner } from '../persistence';
import type { StoredHistoryEntry, TaskNote } from '../tasks';
import { bundleFingerprint, type BundleFingerprint } from './bundle-fingerprint';
import { writeBatch } from './request-batch-write';
import type { BatchChanges, StoredDocumentHash, StoredRequest, StoredTask } from './request-records';
import { storedRequestOf, storedTaskOf, type RequestJson, type TaskJson } from './request-rows';

/** What a batch must know before it decides: its requests, their Tasks, what was seen before. */
export interface LoadedState {
  requests: StoredRequest[];
  tasks: StoredTask[];
  /** Verdicts of messages processed before (redeliveries), by message id. */
  verdicts: Map<string, IntakeVerdictV1 | null>;
  /** The documents already stored of the batch's requests that it may be sending again: those with one of its fingerprints. */
  documents: StoredDocumentHash[];
}

/**
 * All of intake's SQL about requests, versions, Tasks, documents, the inbox and the outbox. A batch
 * of messages costs two statements whatever its size, each atomic on its own and neither holding a
 * lock while the batch decides: `load` reads everything the batch decides on, in one snapshot;
 * `write` writes every change in one statement of data-modifying CTEs, and only where each row is
 * still as `load` read it (a request's `current_version`, a Task's `revision`), else it fails with
 * SQLSTATE 40001 and changes nothing: the broker then splits the batch and each message is tried
 * again on the state that won. With one intake that never happens (its batches run one after the
 * other); with several, it is what serialises work on one request. Raw SQL through Prisma: the
 * model API would cost a round trip per row. Table names carry the schema (raw SQL runs on the
 * connection's search_path).
 */
export class AdmissionRequestRepository {
  private readonly t: ReturnType<typeof requestWriterTables>;

  constructor(
    /** Prisma in the service (prismaRunner); plain pg in the benchmark's comparison. */
    private readonly run: SqlRunner,
    schema: string,
    /** Bundles, list summaries, documents, notes and verdicts are sealed at rest (docs/data-protection.md). */
    private readonly fields: SealedFields,
  ) {
    this.t = requestWriterTables(schema);
  }

  /**
   * How the batch's bundles are recognised in the store: by their fingerprints under intake's
   * fingerprint key (read once, then kept by the keyring).
   */
  async fingerprinter(): Promise<(bundle: unknown) => BundleFingerprint> {
    const key = await this.fields.keyring.fingerprintKey();
    return (bundle) => bundleFingerprint(key, bundle);
  }

  /**
   * Everything a batch decides on, in one statement: the requests it names (by identifier, or by
   * the id of one of their Tasks), their Tasks, the verdicts of messages seen before and the
   * documents already stored. A request that does not exist yet is created by `write`; two batches
   * creating the same identifier meet at its unique index, and the second fails and is tried again.
   */
  async load(keys: { identifiers: string[]; taskIds: string[]; messageIds: string[]; documentHashes: string[] }): Promise<LoadedState> {
    const t = this.t;
    const [row] = await this.run.rows<{
      requests: RequestJson[];
      tasks: TaskJson[];
      inbox: { message_id: string; sealed_verdict: string | null }[];
      documents: { request_id: string; canonical_hash: string }[];
    }>(Prisma.sql`
      WITH found AS (
        -- Two index look-ups (an OR of the two conditions would read the whole table).
        SELECT id, identifier, referrer_party_id, referrer_ik, status, intent, selected_clinic_ik, current_version, latest_hash, created_at, updated_at,
               answer_deadline, latest_content_hash, escalation_seen_changes
          FROM ${t.request}
         WHERE identifier = ANY(${keys.identifiers}::text[])
        UNION
        SELECT id, identifier, referrer_party_id, referrer_ik, status, intent, selected_clinic_ik, current_version, latest_hash, created_at, updated_at,
               answer_deadline, latest_content_hash, escalation_seen_changes
          FROM ${t.request}
         WHERE id IN (SELECT request_id FROM ${t.task} WHERE id = ANY(${keys.taskIds}::uuid[]))),
      requests AS (
        SELECT f.*, EXISTS (SELECT 1 FROM ${t.erasure} e WHERE e.request_id = f.id) AS erased,
               -- What the request holds, for its limits (request-limits.ts): octet_length reads a
               -- stored value's size from its header, without reading the value.
               (SELECT count(*) FROM ${t.document} d WHERE d.request_id = f.id)::int AS document_count,
               (SELECT coalesce(sum(octet_length(v.sealed_bundle)), 0) FROM ${t.version} v WHERE v.request_id = f.id)
                 + (SELECT coalesce(sum(octet_length(d.sealed_bundle)), 0) FROM ${t.document} d WHERE d.request_id = f.id) AS stored_bytes
          FROM found f)
      SELECT
        (SELECT coalesce(json_agg(r), '[]') FROM requests r) AS requests,
        (SELECT coalesce(json_agg(x ORDER BY x.authored_on, x.id), '[]')
           FROM (SELECT id, request_id, clinic_ik, status, business_status, sealed_notes, sent_version, authored_on, last_modified, cancelled_at, revision,
                        sealed_history, documents_supplied_at, answer_deadline, overdue_at, overdue_deadline, asked_by_rule, department_code
                   FROM ${t.task} WHERE request_id IN (SELECT id FROM requests)) x) AS tasks,
        (SELECT coalesce(json_agg(x), '[]')
           FROM (SELECT message_id, sealed_verdict FROM ${t.inbox} WHERE message_id = ANY(${keys.messageIds}::uuid[])) x) AS inbox,
        (SELECT coalesce(json_agg(x), '[]')
           FROM (SELECT request_id, canonical_hash FROM ${t.document}
                  WHERE request_id IN (SELECT id FROM requests) AND canonical_hash = ANY(${keys.documentHashes}::text[])) x) AS documents`);
    if (!row) throw new Error('the state query returned no row');
    // What is gone (notes and verdicts an erasure dropped) opens to nothing.
    const open = async <T>(context: string, json: string | null): Promise<T | null> => {
      const sealed = byteaOfJson(json);
      return sealed ? this.fields.open<T>(context, sealed) : null;
    };
    const [notes, histories, verdicts] = await Promise.all([
      Promise.all(row.tasks.map((task) => open<TaskNote[]>(sealedFor.notes(task.id), task.sealed_notes))),
      Promise.all(row.tasks.map((task) => open<StoredHistoryEntry[]>(sealedFor.history(task.id), task.sealed_history))),
      Promise.all(
        row.inbox.map(async (entry) => [entry.message_id, await open<IntakeVerdictV1>(sealedFor.verdict(entry.message_id), entry.sealed_verdict)] as const),
      ),
    ]);
    return {
      requests: row.requests.map(storedRequestOf),
      tasks: row.tasks.map((task, index) => storedTaskOf(task, notes[index] ?? [], histories[index] ?? [])),
      verdicts: new Map(verdicts),
      documents: row.documents.map((document) => ({ requestId: document.request_id, hash: document.canonical_hash })),
    };
  }

  /**
   * Writes every change of a batch in one statement, each changed row only if it is still as the
   * batch read it (see the class comment and `writeBatch`).
   */
  write(changes: BatchChanges): Promise<void> {
    return writeBatch(this.run, this.t, this.fields, changes);
  }
}
