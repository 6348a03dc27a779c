import { randomUUID } from 'node:crypto';
import { AdmissionResponseV1, RequestErasedV1 } from '@bedrequest/contracts';
import { outboxRecord, outboxRow } from '@bedrequest/messaging';
import { ownsRequest, type ReferrerViewer } from '../access';
import { appendPayload, entriesOf, type AuditAgent } from '../audit';
import { intakeTable, requestWriterTables, type IntakeDatabase } from '../persistence';
import type { RequestRowBase } from '../requests';

/** Why a request's patient data is erased. */
export type ErasureReason = RequestErasedV1['reason'];

/** What is left of an erased request: identifier, dates, states and counts; nothing about the patient. */
export interface Tombstone {
  identifier: string;
  referrerPartyId: string;
  status: string;
  intent: string;
  createdAt: Date;
  updatedAt: Date;
  erasedAt: Date;
  reason: ErasureReason;
  versions: number;
  documents: number;
  tasks: { id: string; clinicIk: string; status: string; businessStatus: string | null }[];
}

export type ErasureResult = { outcome: 'erased' | 'already-erased'; tombstone: Tombstone } | { outcome: 'not-found' };

interface RequestRow extends RequestRowBase {
  created_at: Date;
  updated_at: Date;
}

/**
 * Erases the patient data of one request in one transaction (docs/data-protection.md, "Retention
 * and erasure"): deletes its versions (sealed bundles and list summaries) and documents, drops the
 * clinics' notes from its Tasks (cancelling those still open), from its answers still in the outbox
 * and the verdicts kept for its messages, deletes its referrer's case number, marks it erased
 * (`request_erasure`), and records the erasure in the audit trail and, for the notifier and
 * routing, in the outbox (`request.erased.v1`). The request row and its Tasks stay: the tombstone.
 * Its messages in the dead-letter queues are removed after the commit (`onErased`).
 *
 * The request row is locked first (FOR UPDATE): a batch writing to it meanwhile waits, then finds
 * its `current_version` unchanged and writes; it is refused later by `load`, which no longer hands
 * out an erased request's data. The audit append comes last (it holds its day's chain lock until
 * the commit).
 */
export class RequestErasureRepository {
  private readonly t: ReturnType<typeof requestWriterTables>;
  private readonly caseNumbers: ReturnType<typeof intakeTable>;
  private readonly readyForTransfer: ReturnType<typeof intakeTable>;
  private readonly now: () => Date;

  constructor(
    private readonly prisma: IntakeDatabase,
    schema: string,
    private readonly options: {
      now?: () => Date;
      /**
       * Told after every erasure (and every request for one already done), once committed: the
       * sweep that removes the request's messages from the dead-letter queues (dead-letter-sweep.ts).
       */
      onErased?: () => void;
    } = {},
  ) {
    this.t = requestWriterTables(schema);
    this.caseNumbers = intakeTable(schema, 'referrer_case_number');
    this.readyForTransfer = intakeTable(schema, 'referrer_ready_for_transfer');
    this.now = options.now ?? (() => new Date());
  }

  /**
   * Erases the request `identifier`, asked `by` a referrer (only the owner may: another's request is
   * not found, access/access-policy.ts) or by the operator (`by` absent). A request erased before
   * answers its tombstone and changes nothing.
   */
  async erase(
    request: { identifier: string; by?: ReferrerViewer },
    /** `agent`: who asked, or a function of the request's referrer IK (a referrer asking for its own). */
    by: { agent: AuditAgent | ((referrerIk: string) => AuditAgent); reason: ErasureReason; correlationId: string },
  ): Promise<ErasureResult> {
    const result = await this.eraseInTransaction(request, by);
    if (result.outcome !== 'not-found') this.options.onErased?.();
    return result;
  }

  private eraseInTransaction(
    request: { identifier: string; by?: ReferrerViewer },
    by: Parameters<RequestErasureRepository['erase']>[1],
  ): Promise<ErasureResult> {
    const t = this.t;
    return this.prisma.$transaction(async (tx) => {
      const [found] = await tx.$queryRaw<RequestRow[]>`
        SELECT id::text AS id, identifier, referrer_party_id, referrer_ik, status, intent, created_at, updated_at
          FROM ${t.request} WHERE identifier = ${request.identifier} FOR UPDATE`;
      if (!found || (request.by && !ownsRequest(request.by.partyId, { referrerPartyId: found.referrer_party_id }))) return { outcome: 'not-found' };
      const previous = await this.tombstoneIn(tx, found);
      if (previous) return { outcome: 'already-erased', tombstone: previous };

      const erasedAt = this.now();
      // The verdicts kept for the request's messages (an answer's holds the Task with its notes); a
      // redelivery of one then gets "unchanged".
      await tx.$executeRaw`UPDATE ${t.inbox} SET sealed_verdict = NULL WHERE request_identifier = ${found.identifier}`;
      const documents = await tx.$executeRaw`DELETE FROM ${t.document} WHERE request_id = ${found.id}::uuid`;
      const versions = await tx.$executeRaw`DELETE FROM ${t.version} WHERE request_id = ${found.id}::uuid`;
      // Every Task loses its notes and history; one still open (waiting for the clinic or for the referrer) is
      // cancelled, as a revocation cancels it: nothing more can be sent, answered or selected for an
      // erased request. A selected clinic's Task stays in progress (the admission was agreed).
      const tasks = await tx.$queryRaw<{ id: string; clinic_ik: string }[]>`
        UPDATE ${t.task}
           SET sealed_notes = NULL, sealed_history = NULL, documents_supplied_at = NULL, revision = revision + 1, last_modified = ${erasedAt},
               status = CASE WHEN status IN ('in-progress', 'cancelled') THEN status ELSE 'cancelled' END,
               cancelled_at = CASE WHEN status IN ('in-progress', 'cancelled') THEN cancelled_at ELSE ${erasedAt} END
         WHERE request_id = ${found.id}::uuid
        RETURNING id::text AS id, clinic_ik`;
      // The clinics' internal notes go with the Tasks' notes (clinic-workspace/).
      await tx.$executeRaw`DELETE FROM ${t.internalNote} WHERE task_id IN (SELECT id FROM ${t.task} WHERE request_id = ${found.id}::uuid)`;
      // So does the referrer's case number of the request (referrer-workspace/).
      await tx.$executeRaw`DELETE FROM ${this.caseNumbers} WHERE referrer_party_id = ${found.referrer_party_id} AND identifier = ${found.identifier}`;
      // And when it declared the patient ready for transfer (payer-record/).
      await tx.$executeRaw`DELETE FROM ${this.readyForTransfer} WHERE referrer_party_id = ${found.referrer_party_id} AND identifier = ${found.identifier}`;
      // Answers not yet published (or published, not yet cleared by the relay) carry the Task with
      // its notes: they go out without them, like the notifier keeps its stored events.
      await tx.$executeRaw`
        UPDATE ${t.outbox} SET envelope = envelope #- '{payload,task,note}'
         WHERE routing_key = ${AdmissionResponseV1.routingKey} AND envelope->'payload'->>'requestIdentifier' = ${found.identifier}`;
      // The latest bundle's fingerprint goes with the bundles (the versions' and documents' went
      // with their rows): whoever had the fingerprint key could confirm a guessed bundle with it.
      await tx.$executeRaw`UPDATE ${t.request} SET latest_hash = '', latest_content_hash = NULL WHERE id = ${found.id}::uuid`;
      await tx.$executeRaw`
        INSERT INTO ${t.erasure} (request_id, erased_at, reason, versions, documents)
        VALUES (${found.id}::uuid, ${erasedAt}, ${by.reason}, ${versions}, ${documents})`;
      const message = outboxRecord(
        RequestErasedV1,
        {
          requestIdentifier: found.identifier,
          referrerPartyId: found.referrer_party_id,
          reason: by.reason,
          erasedAt: erasedAt.toISOString(),
          tasks: tasks.map((task) => ({ taskId: task.id, clinicIk: task.clinic_ik })),
        },
        { correlationId: by.correlationId },
      );
      const row = outboxRow(message);
      await tx.$executeRaw`INSERT INTO ${t.outbox} (routing_key, envelope, trace_context) VALUES (${row.routing_key}, ${JSON.stringify(row.envelope)}::jsonb, ${row.trace_context && JSON.stringify(row.trace_context)}::jsonb)`;
      const audit = entriesOf(
        [
          {
            interaction: 'delete',
            agent: typeof by.agent === 'function' ? by.agent(found.referrer_ik) : by.agent,
            request: { identifier: found.identifier, ownerPartyId: found.referrer_party_id, change: 'erased' },
            resources: tasks.map((task) => ({ type: 'Task' as const, id: task.id })),
            source: 'intake',
          },
        ],
        erasedAt,
      );
      await tx.$queryRaw`SELECT ${t.appendAudit}(${appendPayload(audit)}::jsonb) AS appended`;
      const tombstone = await this.tombstoneIn(tx, found);
      if (!tombstone) throw new Error('the erasure just written was not read back');
      return { outcome: 'erased', tombstone };
    });
  }

  /**
   * Identifiers of requests whose retention ended, oldest first, at most `limit`: revoked before
   * `revokedBefore`, or selected (a clinic chosen) with no change since `selectedBefore` (the last
   * change of a selected request is its selection or later, so none is erased early). Not erased yet.
   * `latest_hash <> ''` (an erasure empties it) lets the two partial indexes of migration 0016 serve
   * each kind up to its bound, so the job reads what is due and not the year's tombstones.
   */
  async dueForRetention(bounds: { revokedBefore: Date; selectedBefore: Date }, limit: number): Promise<string[]> {
    const t = this.t;
    const rows = await this.prisma.$queryRaw<{ identifier: string }[]>`
      SELECT r.identifier FROM ${t.request} r
       WHERE ((r.status = 'revoked' AND r.updated_at < ${bounds.revokedBefore})
              OR (r.selected_clinic_ik IS NOT NULL AND r.updated_at < ${bounds.selectedBefore}))
         AND r.latest_hash <> ''
         AND NOT EXISTS (SELECT 1 FROM ${t.erasure} e WHERE e.request_id = r.id)
       ORDER BY r.updated_at
       LIMIT ${limit}`;
    return rows.map((row) => row.identifier);
  }

  /** The tombstone of an erased request, or undefined for one that was not erased. */
  async tombstone(identifier: string): Promise<Tombstone | undefined> {
    const [found] = await this.prisma.$queryRaw<RequestRow[]>`
      SELECT id::text AS id, identifier, referrer_party_id, referrer_ik, status, intent, created_at, updated_at FROM ${this.t.request} WHERE identifier = ${identifier}`;
    return found ? this.tombstoneIn(this.prisma, found) : undefined;
  }

  private async tombstoneIn(sql: Pick<IntakeDatabase, '$queryRaw'>, request: RequestRow): Promise<Tombstone | undefined> {
    const t = this.t;
    const [erasure] = await sql.$queryRaw<{ erased_at: Date; reason: ErasureReason; versions: number; documents: number }[]>`
      SELECT erased_at, reason, versions, documents FROM ${t.erasure} WHERE request_id = ${request.id}::uuid`;
    if (!erasure) return undefined;
    const tasks = await sql.$queryRaw<{ id: string; clinic_ik: string; status: string; business_status: string | null }[]>`
      SELECT id::text AS id, clinic_ik, status, business_status FROM ${t.task} WHERE request_id = ${request.id}::uuid ORDER BY clinic_ik`;
    return {
      identifier: request.identifier,
      referrerPartyId: request.referrer_party_id,
      status: request.status,
      intent: request.intent,
      createdAt: request.created_at,
      updatedAt: request.updated_at,
      erasedAt: erasure.erased_at,
      reason: erasure.reason,
      versions: erasure.versions,
      documents: erasure.documents,
      tasks: tasks.map((task) => ({ id: task.id, clinicIk: task.clinic_ik, status: task.status, businessStatus: task.business_status })),
    };
  }
}

/** A correlation id for an erasure that no message caused (the retention job, the CLI). */
export const newCorrelationId = (): string => randomUUID();
