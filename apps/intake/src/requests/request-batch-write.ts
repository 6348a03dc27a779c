import { outboxRow } from '@bedrequest/messaging';
import { Prisma } from '../generated/prisma/client';
import { appendPayload } from '../audit';
import { bundleSummaryOf } from '../clinic-tasks';
import { type requestWriterTables, sealedFor, type SealedFields, type SqlRunner } from '../persistence';
import type { BatchChanges, StoredRequest } from './request-records';

/**
 * Writes every change of a batch in one statement, each changed row only if it is still as the
 * batch read it (see AdmissionRequestRepository). The inbox rows are plain INSERTs: a message that another
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
export async function writeBatch(run: SqlRunner, t: ReturnType<typeof requestWriterTables>, fields: SealedFields, changes: BatchChanges): Promise<void> {
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
    answer_deadline: request.answerDeadline ?? null,
    latest_content_hash: request.latestContentHash ?? null,
  });
  const payload = JSON.stringify({
    inbox: changes.inbox.map((entry) => ({
      message_id: entry.messageId,
      message_type: entry.messageType,
      sealed_verdict: sealed(sealedFor.verdict(entry.messageId), entry.verdict),
      request_identifier: entry.verdict.requestIdentifier ?? null,
    })),
    created: changes.createdRequests.map(requestRow),
    changed: changes.changedRequests.map((request) => ({
      ...requestRow(request),
      expected_version: request.expectedVersion,
      expected_escalation: request.escalationSeenChanges ?? null,
    })),
    versions: changes.versions.map((version) => ({
      request_id: version.requestId,
      version: version.version,
      sealed_bundle: sealed(sealedFor.bundle(version.requestId, version.version), version.bundle),
      sealed_summary: sealed(sealedFor.summary(version.requestId, version.version), bundleSummaryOf(version.bundle)),
      canonical_hash: version.canonicalHash,
      message_id: version.messageId,
      received_at: version.receivedAt,
      sent_to: version.sentTo,
      submitted_by: version.submittedBy,
    })),
    tasks: changes.tasks.map((task) => ({
      id: task.id,
      request_id: task.requestId,
      referrer_party_id: task.referrerPartyId,
      clinic_ik: task.clinicIk,
      status: task.status,
      business_status: task.businessStatus,
      sealed_notes: sealed(sealedFor.notes(task.id), task.notes),
      sent_version: task.sentVersion,
      authored_on: task.authoredOn,
      last_modified: task.lastModified,
      cancelled_at: task.cancelledAt,
      revision: task.revision,
      sealed_history: sealed(sealedFor.history(task.id), task.history ?? []),
      documents_supplied_at: task.documentsSuppliedAt ?? null,
      answer_deadline: task.answerDeadline ?? null,
      // Overdue only while it waits for its clinic (docs/api.md, "Answer deadlines").
      overdue_at: task.status === 'requested' ? (task.overdueSince ?? null) : null,
      overdue_deadline: task.overdueDeadline ?? null,
      department_code: task.departmentCode ?? null,
    })),
    documents: changes.documents.map((document) => ({
      id: document.id,
      request_id: document.requestId,
      sealed_bundle: sealed(sealedFor.document(document.id), document.bundle),
      canonical_hash: document.canonicalHash,
      message_id: document.messageId,
      received_at: document.receivedAt,
      expected_version: document.expectedVersion,
      submitted_by: document.submittedBy,
    })),
    outbox: changes.outbox.map(outboxRow),
    answers: (changes.answerStatistics ?? []).map((row) => ({
      task_id: row.taskId,
      clinic_ik: row.clinicIk,
      department_code: row.departmentCode,
      answered_at: row.answeredAt,
      seconds: row.seconds,
      accepted: row.accepted,
    })),
  });
  const audit = appendPayload(changes.audit);
  await run.rows(Prisma.sql`
      WITH changes AS (SELECT ${payload}::jsonb AS c),
      inbox AS (
        INSERT INTO ${t.inbox} (message_id, message_type, sealed_verdict, request_identifier)
        SELECT x.message_id, x.message_type, decode(x.sealed_verdict, 'base64'), x.request_identifier
          FROM changes, jsonb_to_recordset(c -> 'inbox') AS x(message_id uuid, message_type text, sealed_verdict text, request_identifier text)
        RETURNING 1),
      created AS (
        INSERT INTO ${t.request} (id, identifier, referrer_party_id, referrer_ik, status, intent, selected_clinic_ik, current_version, latest_hash, created_at, updated_at,
               answer_deadline, latest_content_hash)
        SELECT x.id, x.identifier, x.referrer_party_id, x.referrer_ik, x.status, x.intent, x.selected_clinic_ik, x.current_version, x.latest_hash, x.created_at, x.updated_at,
               x.answer_deadline, x.latest_content_hash
          FROM changes, jsonb_to_recordset(c -> 'created') AS x(id uuid, identifier text, referrer_party_id text, referrer_ik text, status text, intent text,
               selected_clinic_ik text, current_version integer, latest_hash text, created_at timestamptz, updated_at timestamptz, answer_deadline timestamptz,
               latest_content_hash text)
        RETURNING 1),
      changed AS (
        UPDATE ${t.request} AS r
           SET status = x.status, intent = x.intent, selected_clinic_ik = x.selected_clinic_ik, current_version = x.current_version,
               latest_hash = x.latest_hash, updated_at = x.updated_at, answer_deadline = x.answer_deadline, latest_content_hash = x.latest_content_hash
          FROM changes, jsonb_to_recordset(c -> 'changed') AS x(id uuid, status text, intent text, selected_clinic_ik text, current_version integer,
               latest_hash text, updated_at timestamptz, expected_version integer, answer_deadline timestamptz, latest_content_hash text,
               expected_escalation bigint)
         WHERE r.id = x.id AND r.current_version = x.expected_version
           -- The party's rule asked clinics meanwhile (deadlines/escalation-sweep.ts): the new version must reach them too.
           AND r.escalation_seen_changes IS NOT DISTINCT FROM x.expected_escalation
           -- A request erased since the batch read it (RequestErasureRepository) takes no new version.
           AND NOT EXISTS (SELECT 1 FROM ${t.erasure} e WHERE e.request_id = r.id)
        RETURNING 1),
      versions AS (
        INSERT INTO ${t.version} (request_id, version, sealed_bundle, sealed_summary, canonical_hash, message_id, received_at, sent_to, submitted_by)
        SELECT x.request_id, x.version, decode(x.sealed_bundle, 'base64'), decode(x.sealed_summary, 'base64'), x.canonical_hash, x.message_id, x.received_at,
               x.sent_to, x.submitted_by
          FROM changes, jsonb_to_recordset(c -> 'versions') AS x(request_id uuid, version integer, sealed_bundle text, sealed_summary text, canonical_hash text,
               message_id uuid, received_at timestamptz, sent_to text[], submitted_by text)
        RETURNING 1),
      tasks AS (
        INSERT INTO ${t.task} (id, request_id, referrer_party_id, clinic_ik, status, business_status, sealed_notes, sent_version, authored_on, last_modified, cancelled_at,
               revision, sealed_history, documents_supplied_at, answer_deadline, overdue_at, overdue_deadline, department_code)
        SELECT x.id, x.request_id, x.referrer_party_id, x.clinic_ik, x.status, x.business_status, decode(x.sealed_notes, 'base64'), x.sent_version, x.authored_on, x.last_modified,
               x.cancelled_at, x.revision, decode(x.sealed_history, 'base64'), x.documents_supplied_at, x.answer_deadline, x.overdue_at, x.overdue_deadline,
               x.department_code
          FROM changes, jsonb_to_recordset(c -> 'tasks') AS x(id uuid, request_id uuid, referrer_party_id text, clinic_ik text, status text, business_status text, sealed_notes text,
               sent_version integer, authored_on timestamptz, last_modified timestamptz, cancelled_at timestamptz, revision integer, sealed_history text,
               documents_supplied_at timestamptz, answer_deadline timestamptz, overdue_at timestamptz, overdue_deadline timestamptz, department_code text)
        ON CONFLICT (id) DO UPDATE
           SET status = EXCLUDED.status, business_status = EXCLUDED.business_status, sealed_notes = EXCLUDED.sealed_notes,
               sent_version = EXCLUDED.sent_version,
               last_modified = EXCLUDED.last_modified, cancelled_at = EXCLUDED.cancelled_at, revision = EXCLUDED.revision,
               sealed_history = EXCLUDED.sealed_history, documents_supplied_at = EXCLUDED.documents_supplied_at,
               answer_deadline = EXCLUDED.answer_deadline, overdue_at = EXCLUDED.overdue_at, overdue_deadline = EXCLUDED.overdue_deadline,
               department_code = coalesce(EXCLUDED.department_code, ${t.task}.department_code)
         -- A batch raises a Task's revision by one: it is still the Task it read only if it is one below.
         WHERE ${t.task}.revision = EXCLUDED.revision - 1
        RETURNING 1),
      documents AS (
        INSERT INTO ${t.document} (id, request_id, sealed_bundle, canonical_hash, message_id, received_at, submitted_by)
        SELECT x.id, x.request_id, decode(x.sealed_bundle, 'base64'), x.canonical_hash, x.message_id, x.received_at, x.submitted_by
          FROM changes, ROWS FROM (jsonb_to_recordset(c -> 'documents') AS (id uuid, request_id uuid, sealed_bundle text, canonical_hash text, message_id uuid,
               received_at timestamptz, expected_version integer, submitted_by text))
               WITH ORDINALITY AS x(id, request_id, sealed_bundle, canonical_hash, message_id, received_at, expected_version, submitted_by, n)
         -- Accepted for the request as read (not revoked meanwhile); one created by this batch is new.
         WHERE x.expected_version IS NULL
            OR EXISTS (SELECT 1 FROM ${t.request} r WHERE r.id = x.request_id AND r.current_version = x.expected_version
                         AND NOT EXISTS (SELECT 1 FROM ${t.erasure} e WHERE e.request_id = r.id))
         -- In the order they arrived: their seq numbers them so (migration 0004).
         ORDER BY x.n
        RETURNING 1),
      outbox AS (
        INSERT INTO ${t.outbox} (routing_key, envelope, trace_context)
        SELECT x.routing_key, x.envelope, x.trace_context
          FROM changes, ROWS FROM (jsonb_to_recordset(c -> 'outbox') AS (routing_key text, envelope jsonb, trace_context jsonb))
               WITH ORDINALITY AS x(routing_key, envelope, trace_context, n)
         ORDER BY x.n
        RETURNING 1),
      -- A Task's first answer by its clinic (answer-statistics/answer-statistic.ts); a retried batch finds its row.
      answers AS (
        INSERT INTO ${t.answerStatistic} (task_id, clinic_ik, department_code, answered_at, seconds, accepted)
        SELECT x.task_id, x.clinic_ik, x.department_code, x.answered_at, x.seconds, x.accepted
          FROM changes, jsonb_to_recordset(c -> 'answers') AS x(task_id uuid, clinic_ik text, department_code text, answered_at timestamptz, seconds integer,
               accepted boolean)
        ON CONFLICT (task_id) DO NOTHING
        RETURNING 1)
      SELECT ${t.expectRows}(${changes.changedRequests.length}, (SELECT count(*) FROM changed), 'requests')
         AND ${t.expectRows}(${changes.tasks.length}, (SELECT count(*) FROM tasks), 'Tasks')
         AND ${t.expectRows}(${changes.documents.length}, (SELECT count(*) FROM documents), 'documents')
         AND (SELECT count(*) FROM inbox) + (SELECT count(*) FROM created) + (SELECT count(*) FROM versions) + (SELECT count(*) FROM outbox)
             + (SELECT count(*) FROM answers) >= 0
         AND ${t.appendAudit}(${audit}::jsonb) >= 0 AS written`);
}
