import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { AdmissionOverdueV1 } from '@bedrequest/contracts';
import type { FhirSystems } from '@bedrequest/fhir-model';
import { outboxRecord, outboxRow, PeriodicRun } from '@bedrequest/messaging';
import { intakeTable, sealedFor, type IntakeDatabase, type SealedFields } from '../persistence';
import { appendedHistory, askedByRuleOf, toFhirTask, type StoredHistoryEntry, type TaskNote } from '../tasks';
import type { BusinessStatus, TaskStatus } from '@bedrequest/contracts';

/** Tasks marked per transaction; a run goes on until none is due. */
const BATCH = 100;

interface DueRow {
  id: string;
  clinic_ik: string;
  status: string;
  business_status: string | null;
  sealed_notes: Uint8Array | null;
  sealed_history: Uint8Array | null;
  authored_on: Date;
  answer_deadline: Date;
  overdue_deadline: Date | null;
  identifier: string;
  referrer_ik: string;
  referrer_party_id: string;
  asked_by_rule: unknown;
}

/**
 * Marks the Tasks whose clinic has not answered by their deadline (docs/api.md, "Answer deadlines"):
 * `requested` with `answer_deadline` passed and no mark yet. Each batch is one transaction that
 * takes its Tasks `FOR UPDATE SKIP LOCKED`, so two intake replicas sweeping at once mark each Task
 * once: the second skips what the first holds and, after its commit, no longer finds it due. With the
 * mark it appends `overdue` to the Task's history, raises its revision (a batch that read it before
 * is tried again) and writes AdmissionOverdueV1 to the outbox, unless one was already published for
 * this Task and deadline (a Task reopened past the same deadline is marked again, silently).
 */
export class OverdueSweep {
  private readonly task;
  private readonly request;
  private readonly outbox;
  private readonly job: PeriodicRun<number>;

  constructor(
    private readonly prisma: IntakeDatabase,
    schema: string,
    private readonly fields: SealedFields,
    private readonly systems: FhirSystems,
    private readonly options: { logger: Logger; intervalMs: number; now?: () => Date; onMarked?: () => void },
  ) {
    this.task = intakeTable(schema, 'clinic_task');
    this.request = intakeTable(schema, 'admission_request');
    this.outbox = intakeTable(schema, 'outbox_message');
    this.job = new PeriodicRun({
      work: () => this.markAllDue(),
      idle: 0,
      intervalMs: options.intervalMs,
      logger: options.logger,
      failureMessage: 'marking overdue Tasks failed; will retry',
    });
  }

  start(): void {
    this.job.start();
  }

  async stop(): Promise<void> {
    await this.job.stop();
  }

  /** One run: marks every Task due and resolves with how many this process marked (never rejects). */
  run(): Promise<number> {
    return this.job.run();
  }

  private async markAllDue(): Promise<number> {
    let marked = 0;
    for (;;) {
      const count = await this.markBatch();
      marked += count;
      if (count > 0) this.options.onMarked?.();
      if (count < BATCH) return marked;
    }
  }

  /** One transaction: up to BATCH due Tasks locked (skipping those another sweep holds), marked, their messages in the outbox. */
  async markBatch(): Promise<number> {
    const now = (this.options.now ?? (() => new Date()))();
    return this.prisma.$transaction(async (tx) => {
      const due = await tx.$queryRaw<DueRow[]>`
        SELECT t.id, t.clinic_ik, t.status, t.business_status, t.sealed_notes, t.sealed_history, t.authored_on, t.answer_deadline, t.overdue_deadline, t.asked_by_rule,
               r.identifier, r.referrer_ik, r.referrer_party_id
          FROM ${this.task} t JOIN ${this.request} r ON r.id = t.request_id
         WHERE t.status = 'requested' AND t.overdue_at IS NULL AND t.answer_deadline IS NOT NULL AND t.answer_deadline <= ${now}
         ORDER BY t.answer_deadline
         LIMIT ${BATCH}::int
           FOR UPDATE OF t SKIP LOCKED`;
      for (const row of due) {
        const deadline = row.answer_deadline;
        const history = row.sealed_history
          ? this.fields.seal(
              sealedFor.history(row.id),
              appendedHistory(await this.fields.open<StoredHistoryEntry[]>(sealedFor.history(row.id), row.sealed_history), {
                kind: 'overdue',
                at: now.toISOString(),
                deadline: deadline.toISOString(),
              }),
            )
          : null;
        await tx.$executeRaw`
          UPDATE ${this.task}
             SET overdue_at = ${now}, overdue_deadline = answer_deadline, last_modified = ${now}, revision = revision + 1,
                 sealed_history = coalesce(${history}::bytea, sealed_history)
           WHERE id = ${row.id}::uuid`;
        if (row.overdue_deadline?.getTime() === deadline.getTime()) continue;
        const notes = row.sealed_notes ? await this.fields.open<TaskNote[]>(sealedFor.notes(row.id), row.sealed_notes) : [];
        // The referrer's view of the Task: its notes without their authors (docs/api.md, "Tasks").
        const task = toFhirTask(
          {
            id: row.id,
            clinicIk: row.clinic_ik,
            status: row.status as TaskStatus,
            businessStatus: row.business_status as BusinessStatus | null,
            notes,
            authoredOn: row.authored_on,
            lastModified: now,
            requestIdentifier: row.identifier,
            referrerIk: row.referrer_ik,
            answerDeadline: deadline,
            overdueSince: now,
            askedByRule: askedByRuleOf(row.asked_by_rule),
          },
          this.systems,
          { authors: false },
        );
        const message = outboxRow(
          outboxRecord(
            AdmissionOverdueV1,
            { eventId: randomUUID(), referrerPartyId: row.referrer_party_id, requestIdentifier: row.identifier, task, deadline: deadline.toISOString() },
            { correlationId: randomUUID() },
          ),
        );
        await tx.$executeRaw`
          INSERT INTO ${this.outbox} (routing_key, envelope, trace_context)
          VALUES (${message.routing_key}, ${JSON.stringify(message.envelope)}::jsonb, ${message.trace_context && JSON.stringify(message.trace_context)}::jsonb)`;
      }
      return due.length;
    });
  }
}
