import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { RequestDispatchedV1, type ClinicRecord, type TaskStatus } from '@bedrequest/contracts';
import type { Coding } from '@medplum/fhirtypes';
import { resolveDepartment, type FhirSystems } from '@bedrequest/fhir-model';
import { outboxRecord, outboxRow, PeriodicRun } from '@bedrequest/messaging';
import { appendPayload, entriesOf, type AuditRecord } from '../audit';
import type { BundleSummary } from '../clinic-tasks';
import type { Prisma } from '../generated/prisma/client';
import { intakeTable, requestWriterTables, sealedFor, type IntakeDatabase, type SealedFields } from '../persistence';
import type { AskedByRule, StoredHistoryEntry } from '../tasks';
import { clinicsToAsk, stillOpen } from './escalation';
import { escalationOf } from './referrer-settings.repository';
import { defaultAnswerDeadline, type AnswerDeadlineRule } from './working-days';

interface DueRequest {
  id: string;
  identifier: string;
  referrer_party_id: string;
  current_version: number;
  escalation: unknown;
  sealed_summary: Uint8Array | null;
}

interface TaskRow {
  clinic_ik: string;
  status: string;
  overdue: boolean;
}

/** What the job needs besides the database: the registry in memory and the party's default deadline. */
export interface EscalationSources {
  clinics: { list(): Promise<ClinicRecord[]> };
  deadlineRule: (partyId: string) => Promise<AnswerDeadlineRule>;
}

/**
 * Asking by rule (docs/api.md, "Asking by rule"): after a request's deadline, when fewer of its
 * clinics than the party's rule says are still open, the next clinics are asked. A request is looked
 * at again whenever its Tasks changed since the last look (an overdue mark, a decline): the sum of
 * their revisions plus their number differs from `escalation_seen_changes`.
 *
 * Each request is one transaction that takes the request row `FOR UPDATE SKIP LOCKED`: two intake
 * replicas never look at one request at once, and the second, after the first's commit, finds the
 * sum it stored and passes on. The new Tasks are inserted `ON CONFLICT (request_id, clinic_ik) DO
 * NOTHING`, so that a clinic already asked, also by a version stored meanwhile, is never asked twice;
 * only the Tasks inserted are dispatched. The request keeps its version: the new Tasks are sent the
 * current one.
 */
export class EscalationSweep {
  private readonly t;
  private readonly settings;
  private readonly job: PeriodicRun<number>;

  constructor(
    private readonly prisma: IntakeDatabase,
    schema: string,
    private readonly fields: SealedFields,
    private readonly systems: FhirSystems,
    private readonly sources: EscalationSources,
    private readonly options: { logger: Logger; intervalMs: number; now?: () => Date; onAsked?: () => void },
  ) {
    this.t = requestWriterTables(schema);
    this.settings = intakeTable(schema, 'referrer_settings');
    this.job = new PeriodicRun({
      work: () => this.askAllDue(),
      idle: 0,
      intervalMs: options.intervalMs,
      logger: options.logger,
      failureMessage: 'asking clinics by rule failed; will retry',
    });
  }

  start(): void {
    this.job.start();
  }

  async stop(): Promise<void> {
    await this.job.stop();
  }

  /** One run: looks at every request due and resolves with how many clinics this process asked (never rejects). */
  run(): Promise<number> {
    return this.job.run();
  }

  private async askAllDue(): Promise<number> {
    let asked = 0;
    for (;;) {
      const result = await this.askForNextRequest();
      if (result === undefined) return asked;
      asked += result;
      if (result > 0) this.options.onAsked?.();
    }
  }

  /** One transaction for one request due; undefined when none is (or every one is held by another replica). */
  async askForNextRequest(): Promise<number | undefined> {
    const now = (this.options.now ?? (() => new Date()))();
    const clinics = await this.sources.clinics.list();
    return this.prisma.$transaction(async (tx) => {
      const { t } = this;
      const changes = (requestId: string) => tx.$queryRaw<{ sum: bigint }[]>`
        SELECT coalesce(sum(revision + 1), 0)::bigint AS sum FROM ${t.task} WHERE request_id = ${requestId}::uuid`;
      const [request] = await tx.$queryRaw<DueRequest[]>`
        SELECT r.id, r.identifier, r.referrer_party_id, r.current_version, s.escalation, v.sealed_summary
          FROM ${t.request} r
          JOIN ${this.settings} s ON s.referrer_party_id = r.referrer_party_id
          LEFT JOIN ${t.version} v ON v.request_id = r.id AND v.version = r.current_version
         WHERE s.escalation IS NOT NULL AND r.status = 'active' AND r.intent = 'proposal'
           AND r.answer_deadline IS NOT NULL AND r.answer_deadline <= ${now}
           AND NOT EXISTS (SELECT 1 FROM ${t.erasure} e WHERE e.request_id = r.id)
           -- Only what happened after the rule was set makes it ask.
           AND EXISTS (SELECT 1 FROM ${t.task} x WHERE x.request_id = r.id AND x.last_modified >= s.escalation_set_at)
           AND r.escalation_seen_changes IS DISTINCT FROM (SELECT coalesce(sum(x.revision + 1), 0) FROM ${t.task} x WHERE x.request_id = r.id)
         ORDER BY r.answer_deadline
         LIMIT 1
           FOR UPDATE OF r SKIP LOCKED`;
      if (!request) return undefined;
      // What this look has seen is read before it reads the Tasks: a change another transaction
      // commits meanwhile (an overdue mark) leaves the sum different, so the next look is not
      // skipped. The Tasks it adds itself (revision 0) count as seen.
      const [before] = await changes(request.id);
      const asked = await this.askFor(tx, request, clinics, now);
      const seen = (before?.sum ?? 0n) + BigInt(asked);
      await tx.$executeRaw`UPDATE ${t.request} SET escalation_seen_changes = ${seen} WHERE id = ${request.id}::uuid`;
      return asked;
    });
  }

  /** Within the request's lock: the clinics to ask, their Tasks, the dispatch and the audit entry; how many were asked. */
  private async askFor(tx: TransactionClient, request: DueRequest, registry: readonly ClinicRecord[], now: Date): Promise<number> {
    const { t } = this;
    const rule = escalationOf(request.escalation);
    if (!rule || !request.sealed_summary) return 0;
    const tasks = await tx.$queryRaw<TaskRow[]>`
      SELECT clinic_ik, status, overdue_at IS NOT NULL AS overdue FROM ${t.task} WHERE request_id = ${request.id}::uuid`;
    const open = stillOpen(tasks.map((task) => ({ clinicIk: task.clinic_ik, status: task.status as TaskStatus, overdue: task.overdue })));
    if (open >= rule.whenOpenBelow) return 0;
    // A version that cannot be opened (its data key gone) must not hold up the other requests: this look is skipped.
    const summary = await this.fields
      .open<BundleSummary>(sealedFor.summary(request.id, request.current_version), request.sealed_summary)
      .catch((error: unknown) => this.options.logger.warn({ err: String(error), request: request.id }, 'the rule cannot read the request; skipped'));
    if (!summary) return 0;
    const department = resolveDepartment({ coding: (summary.performer_type ?? []) as Coding[] }, this.systems.profileBase);
    if (!department) return 0;
    const chosen = clinicsToAsk({ rule, departmentCode: department.departmentCode, registry, asked: new Set(tasks.map((task) => task.clinic_ik)) });
    if (chosen.length === 0) return 0;

    const deadline = defaultAnswerDeadline(now, await this.sources.deadlineRule(request.referrer_party_id));
    const version = request.current_version;
    const created: { taskId: string; clinicIk: string }[] = [];
    for (const clinic of chosen) {
      const id = randomUUID();
      const askedByRule: AskedByRule = { source: clinic.source, whenOpenBelow: rule.whenOpenBelow, askNext: rule.askNext, openBefore: open };
      const history: StoredHistoryEntry[] = [{ kind: 'request', at: now.toISOString(), action: 'answer-requested', status: 'requested', version }];
      const inserted = await tx.$queryRaw<{ id: string }[]>`
        INSERT INTO ${t.task} (id, request_id, referrer_party_id, clinic_ik, status, business_status, sealed_notes, sent_version, authored_on, last_modified,
                               revision, sealed_history, answer_deadline, asked_by_rule, department_code)
        VALUES (${id}::uuid, ${request.id}::uuid, ${request.referrer_party_id}, ${clinic.ik}, 'requested', NULL, ${this.fields.seal(sealedFor.notes(id), [])}, ${version}, ${now}, ${now}, 0,
                ${this.fields.seal(sealedFor.history(id), history)}, ${deadline}, ${JSON.stringify(askedByRule)}::jsonb, ${department.departmentCode})
        ON CONFLICT (request_id, clinic_ik) DO NOTHING
        RETURNING id`;
      if (inserted.length) created.push({ taskId: id, clinicIk: clinic.ik });
    }
    if (created.length === 0) return 0;

    // Routing tells the clinics as it does for a version that only adds clinics (docs/api.md, "Answer deadlines").
    const message = outboxRow(
      outboxRecord(
        RequestDispatchedV1,
        {
          requestIdentifier: request.identifier,
          referrerPartyId: request.referrer_party_id,
          version,
          change: 'supplemented',
          departmentCode: department.departmentCode,
          ...(department.specialty ? { specialty: department.specialty.code } : {}),
          ...(summary.occurrence_date ? { occurrenceDate: summary.occurrence_date } : {}),
          tasks: created.map((task) => ({ ...task, action: 'answer-requested' as const })),
        },
        { correlationId: randomUUID() },
      ),
    );
    await tx.$executeRaw`
      INSERT INTO ${t.outbox} (routing_key, envelope, trace_context)
      VALUES (${message.routing_key}, ${JSON.stringify(message.envelope)}::jsonb, ${message.trace_context && JSON.stringify(message.trace_context)}::jsonb)`;
    const audit: AuditRecord = {
      interaction: 'update',
      agent: { kind: 'service', service: 'intake' },
      request: { identifier: request.identifier, ownerPartyId: request.referrer_party_id, version, change: 'asked-by-rule' },
      resources: created.map((task) => ({ type: 'Task', id: task.taskId })),
      source: 'intake',
    };
    await tx.$queryRaw`SELECT ${t.appendAudit}(${appendPayload(entriesOf([audit], now))}::jsonb) AS appended`;
    this.options.logger.info({ request: request.id, asked: created.length, open }, 'asked further clinics by rule');
    return created.length;
  }
}

type TransactionClient = Prisma.TransactionClient;
