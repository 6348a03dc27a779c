import type { BusinessStatus, IntakeVerdictV1, ServiceRequestIntent, ServiceRequestStatus, TaskStatus } from '@bedrequest/contracts';
import { Prisma } from '../generated/prisma/client';
import { requestWriterTables } from '../persistence/intake-table';
import { appendPayload } from '../audit/audit-trail.repository';
import { bundleSummaryOf } from '../clinic-tasks/bundle-summary';
import { byteaOfJson, sealedFor, type SealedFields } from '../persistence/sealed-fields';
import type { SqlRunner } from '../persistence/sql-runner';
import type { ClinicTaskView, TaskNote } from '../tasks/task-resource';
import { bundleFingerprint, type BundleFingerprint } from './canonical-json';
import type { BatchChanges, StoredDocumentHash, StoredRequest, StoredTask } from './request-batch';

/** What a batch must know before it decides: its requests, their Tasks, what was seen before. */
export interface LoadedState {
  requests: StoredRequest[];
  tasks: StoredTask[];
  /** Verdicts of messages processed before (redeliveries), by message id. */
  verdicts: Map<string, IntakeVerdictV1 | null>;
  /** The documents already stored of the batch's requests that it may be sending again: those with one of its fingerprints. */
  documents: StoredDocumentHash[];
}

interface RequestJson {
  id: string;
  identifier: string;
  referrer_party_id: string;
  referrer_ik: string;
  status: string;
  intent: string;
  selected_clinic_ik: string | null;
  current_version: number;
  latest_hash: string;
  created_at: string;
  updated_at: string;
  erased: boolean;
}

interface TaskJson {
  id: string;
  request_id: string;
  clinic_ik: string;
  status: string;
  business_status: string | null;
  /** Sealed (`\\x` hex, as json_agg writes bytea); none once the request is erased. */
  sealed_notes: string | null;
  sent_version: number;
  authored_on: string;
  last_modified: string;
  cancelled_at: string | null;
  revision: number;
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
        SELECT id, identifier, referrer_party_id, referrer_ik, status, intent, selected_clinic_ik, current_version, latest_hash, created_at, updated_at
          FROM ${t.request}
         WHERE identifier = ANY(${keys.identifiers}::text[])
        UNION
        SELECT id, identifier, referrer_party_id, referrer_ik, status, intent, selected_clinic_ik, current_version, latest_hash, created_at, updated_at
          FROM ${t.request}
         WHERE id IN (SELECT request_id FROM ${t.task} WHERE id = ANY(${keys.taskIds}::uuid[]))),
      requests AS (
        SELECT f.*, EXISTS (SELECT 1 FROM ${t.erasure} e WHERE e.request_id = f.id) AS erased FROM found f)
      SELECT
        (SELECT coalesce(json_agg(r), '[]') FROM requests r) AS requests,
        (SELECT coalesce(json_agg(x ORDER BY x.authored_on, x.id), '[]')
           FROM (SELECT id, request_id, clinic_ik, status, business_status, sealed_notes, sent_version, authored_on, last_modified, cancelled_at, revision
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
    const [notes, verdicts] = await Promise.all([
      Promise.all(row.tasks.map((task) => open<TaskNote[]>(sealedFor.notes(task.id), task.sealed_notes))),
      Promise.all(
        row.inbox.map(async (entry) => [entry.message_id, await open<IntakeVerdictV1>(sealedFor.verdict(entry.message_id), entry.sealed_verdict)] as const),
      ),
    ]);
    return {
      requests: row.requests.map((request) => ({
        id: request.id,
        identifier: request.identifier,
        referrerPartyId: request.referrer_party_id,
        referrerIk: request.referrer_ik,
        status: request.status as ServiceRequestStatus,
        intent: request.intent as ServiceRequestIntent,
        selectedClinicIk: request.selected_clinic_ik,
        currentVersion: request.current_version,
        latestHash: request.latest_hash,
        createdAt: new Date(request.created_at),
        updatedAt: new Date(request.updated_at),
        ...(request.erased ? { erased: true } : {}),
      })),
      tasks: row.tasks.map((task, index) => ({
        id: task.id,
        requestId: task.request_id,
        clinicIk: task.clinic_ik,
        status: task.status as TaskStatus,
        businessStatus: task.business_status as BusinessStatus | null,
        notes: notes[index] ?? [],
        sentVersion: task.sent_version,
        authoredOn: new Date(task.authored_on),
        lastModified: new Date(task.last_modified),
        cancelledAt: task.cancelled_at ? new Date(task.cancelled_at) : null,
        revision: task.revision,
      })),
      verdicts: new Map(verdicts),
      documents: row.documents.map((document) => ({ requestId: document.request_id, hash: document.canonical_hash })),
    };
  }

  /**
   * Writes every change of a batch in one statement, each changed row only if it is still as the
   * batch read it (see the class comment). The inbox rows are plain INSERTs: a message that another
   * process committed meanwhile makes the statement fail, and the batch is tried again (it then finds
   * the verdict). New requests likewise meet a concurrent creation at the unique identifier, a
   * document stored meanwhile at its unique hash. Outbox rows are inserted in the order the messages
   * were caused.
   *
   * The audit entries of the changes are appended last (`append_audit_events`, of the baseline migration),
   * once every other write of the statement is done (each CTE is counted before it; AND evaluates
   * left to right): the append holds its day's chain lock until the commit, so it must not wait
   * for any other lock meanwhile. The expect_rows checks come first: a batch that lost a race
   * appends nothing.
   */
  async write(changes: BatchChanges): Promise<void> {
    const t = this.t;
    const fields = this.fields;
    // Sealed values travel in the statement's JSON as base64, decoded into bytea by the statement.
    const sealed = (context: string, value: unknown) => fields.seal(context, value).toString('base64');
    const requestRow = (request: StoredRequest) => ({
      id: request.id,
      identifier: request.identifier,
      referrer_party_id: request.referrerPartyId,
      referrer_ik: request.referrerIk,
      status: request.status,
      intent: request.intent,
      selected_clinic_ik: request.selectedClinicIk,
      current_version: request.currentVersion,
      latest_hash: request.latestHash,
      created_at: request.createdAt,
      updated_at: request.updatedAt,
    });
    const payload = JSON.stringify({
      inbox: changes.inbox.map((entry) => ({
        message_id: entry.messageId,
        message_type: entry.messageType,
        sealed_verdict: sealed(sealedFor.verdict(entry.messageId), entry.verdict),
        request_identifier: entry.verdict.requestIdentifier ?? null,
      })),
      created: changes.createdRequests.map(requestRow),
      changed: changes.changedRequests.map((request) => ({ ...requestRow(request), expected_version: request.expectedVersion })),
      versions: changes.versions.map((version) => ({
        request_id: version.requestId,
        version: version.version,
        sealed_bundle: sealed(sealedFor.bundle(version.requestId, version.version), version.bundle),
        sealed_summary: sealed(sealedFor.summary(version.requestId, version.version), bundleSummaryOf(version.bundle)),
        canonical_hash: version.canonicalHash,
        message_id: version.messageId,
        received_at: version.receivedAt,
      })),
      tasks: changes.tasks.map((task) => ({
        id: task.id,
        request_id: task.requestId,
        clinic_ik: task.clinicIk,
        status: task.status,
        business_status: task.businessStatus,
        sealed_notes: sealed(sealedFor.notes(task.id), task.notes),
        sent_version: task.sentVersion,
        authored_on: task.authoredOn,
        last_modified: task.lastModified,
        cancelled_at: task.cancelledAt,
        revision: task.revision,
      })),
      documents: changes.documents.map((document) => ({
        id: document.id,
        request_id: document.requestId,
        sealed_bundle: sealed(sealedFor.document(document.id), document.bundle),
        canonical_hash: document.canonicalHash,
        message_id: document.messageId,
        received_at: document.receivedAt,
        expected_version: document.expectedVersion,
      })),
      outbox: changes.outbox.map((record) => ({ routing_key: record.routingKey, envelope: record.envelope })),
    });
    const audit = appendPayload(changes.audit);
    await this.run.rows(Prisma.sql`
      WITH changes AS (SELECT ${payload}::jsonb AS c),
      inbox AS (
        INSERT INTO ${t.inbox} (message_id, message_type, sealed_verdict, request_identifier)
        SELECT x.message_id, x.message_type, decode(x.sealed_verdict, 'base64'), x.request_identifier
          FROM changes, jsonb_to_recordset(c -> 'inbox') AS x(message_id uuid, message_type text, sealed_verdict text, request_identifier text)
        RETURNING 1),
      created AS (
        INSERT INTO ${t.request} (id, identifier, referrer_party_id, referrer_ik, status, intent, selected_clinic_ik, current_version, latest_hash, created_at, updated_at)
        SELECT x.id, x.identifier, x.referrer_party_id, x.referrer_ik, x.status, x.intent, x.selected_clinic_ik, x.current_version, x.latest_hash, x.created_at, x.updated_at
          FROM changes, jsonb_to_recordset(c -> 'created') AS x(id uuid, identifier text, referrer_party_id text, referrer_ik text, status text, intent text,
               selected_clinic_ik text, current_version integer, latest_hash text, created_at timestamptz, updated_at timestamptz)
        RETURNING 1),
      changed AS (
        UPDATE ${t.request} AS r
           SET status = x.status, intent = x.intent, selected_clinic_ik = x.selected_clinic_ik, current_version = x.current_version,
               latest_hash = x.latest_hash, updated_at = x.updated_at
          FROM changes, jsonb_to_recordset(c -> 'changed') AS x(id uuid, status text, intent text, selected_clinic_ik text, current_version integer,
               latest_hash text, updated_at timestamptz, expected_version integer)
         WHERE r.id = x.id AND r.current_version = x.expected_version
           -- A request erased since the batch read it (RequestErasureRepository) takes no new version.
           AND NOT EXISTS (SELECT 1 FROM ${t.erasure} e WHERE e.request_id = r.id)
        RETURNING 1),
      versions AS (
        INSERT INTO ${t.version} (request_id, version, sealed_bundle, sealed_summary, canonical_hash, message_id, received_at)
        SELECT x.request_id, x.version, decode(x.sealed_bundle, 'base64'), decode(x.sealed_summary, 'base64'), x.canonical_hash, x.message_id, x.received_at
          FROM changes, jsonb_to_recordset(c -> 'versions') AS x(request_id uuid, version integer, sealed_bundle text, sealed_summary text, canonical_hash text,
               message_id uuid, received_at timestamptz)
        RETURNING 1),
      tasks AS (
        INSERT INTO ${t.task} (id, request_id, clinic_ik, status, business_status, sealed_notes, sent_version, authored_on, last_modified, cancelled_at, revision)
        SELECT x.id, x.request_id, x.clinic_ik, x.status, x.business_status, decode(x.sealed_notes, 'base64'), x.sent_version, x.authored_on, x.last_modified,
               x.cancelled_at, x.revision
          FROM changes, jsonb_to_recordset(c -> 'tasks') AS x(id uuid, request_id uuid, clinic_ik text, status text, business_status text, sealed_notes text,
               sent_version integer, authored_on timestamptz, last_modified timestamptz, cancelled_at timestamptz, revision integer)
        ON CONFLICT (id) DO UPDATE
           SET status = EXCLUDED.status, business_status = EXCLUDED.business_status, sealed_notes = EXCLUDED.sealed_notes,
               sent_version = EXCLUDED.sent_version,
               last_modified = EXCLUDED.last_modified, cancelled_at = EXCLUDED.cancelled_at, revision = EXCLUDED.revision
         -- A batch raises a Task's revision by one: it is still the Task it read only if it is one below.
         WHERE ${t.task}.revision = EXCLUDED.revision - 1
        RETURNING 1),
      documents AS (
        INSERT INTO ${t.document} (id, request_id, sealed_bundle, canonical_hash, message_id, received_at)
        SELECT x.id, x.request_id, decode(x.sealed_bundle, 'base64'), x.canonical_hash, x.message_id, x.received_at
          FROM changes, jsonb_to_recordset(c -> 'documents') AS x(id uuid, request_id uuid, sealed_bundle text, canonical_hash text, message_id uuid, received_at timestamptz,
               expected_version integer)
         -- Accepted for the request as read (not revoked meanwhile); one created by this batch is new.
         WHERE x.expected_version IS NULL
            OR EXISTS (SELECT 1 FROM ${t.request} r WHERE r.id = x.request_id AND r.current_version = x.expected_version
                         AND NOT EXISTS (SELECT 1 FROM ${t.erasure} e WHERE e.request_id = r.id))
        RETURNING 1),
      outbox AS (
        INSERT INTO ${t.outbox} (routing_key, envelope)
        SELECT x.routing_key, x.envelope
          FROM changes, ROWS FROM (jsonb_to_recordset(c -> 'outbox') AS (routing_key text, envelope jsonb)) WITH ORDINALITY AS x(routing_key, envelope, n)
         ORDER BY x.n
        RETURNING 1)
      SELECT ${t.expectRows}(${changes.changedRequests.length}, (SELECT count(*) FROM changed), 'requests')
         AND ${t.expectRows}(${changes.tasks.length}, (SELECT count(*) FROM tasks), 'Tasks')
         AND ${t.expectRows}(${changes.documents.length}, (SELECT count(*) FROM documents), 'documents')
         AND (SELECT count(*) FROM inbox) + (SELECT count(*) FROM created) + (SELECT count(*) FROM versions) + (SELECT count(*) FROM outbox) >= 0
         AND ${t.appendAudit}(${audit}::jsonb) >= 0 AS written`);
  }
}

export function taskViewOf(
  task: { id: string; clinicIk: string; status: string; businessStatus: string | null; notes: unknown; authoredOn: Date; lastModified: Date },
  request: { identifier: string; referrerIk: string },
): ClinicTaskView {
  return {
    id: task.id,
    clinicIk: task.clinicIk,
    status: task.status as TaskStatus,
    businessStatus: task.businessStatus as BusinessStatus | null,
    notes: (task.notes as TaskNote[]) ?? [],
    authoredOn: task.authoredOn,
    lastModified: task.lastModified,
    requestIdentifier: request.identifier,
    referrerIk: request.referrerIk,
  };
}
