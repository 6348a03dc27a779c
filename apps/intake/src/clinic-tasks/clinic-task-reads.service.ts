import { z } from 'zod';
import { TASK_STATUSES_OF_LIST_STATE, TaskListState, type ClinicTaskList, type RequestVersion } from '@bedrequest/contracts';
import type { FhirSystems } from '@bedrequest/fhir-model';
import type { AuditRecord } from '../audit/audit-event';
import type { AuditTrail, Caller } from '../audit/audit-trail.service';
import type { ClinicRead } from '../tasks/task-read.service';
import type { ClinicTaskReadsRepository, TaskOfClinic, VersionRow } from './clinic-task-reads.repository';
import { listStateOf, summaryOf, type SummaryRow } from './clinic-task-summary';
import { MAX_PAGE_BYTES, pageOf, type Page, type VersionPageQuery } from './pages';
import { versionsSentTo } from './versions-sent';

export const DEFAULT_LIST_SIZE = 100;
/** A whole inbox of 1,000 rows in one answer (about 0.5 MB of JSON); more is paged with `_offset`. */
export const MAX_LIST_SIZE = 1000;

/**
 * `GET /api/v1/clinic/tasks`: `state` (one or more of new, answered, selected, cancelled,
 * comma-separated), `since` (an instant with offset: Tasks changed at or after it), `_count`
 * (1–1000, default 100), `_offset`. Anything else is refused, like the Task search.
 */
export const ClinicTaskListQuery = z.strictObject(
  {
    state: z
      .string()
      .transform((value) => value.split(','))
      .pipe(
        z.array(
          z.enum(TaskListState.options, {
            error: `state: one or more of ${TaskListState.options.join(', ')}, comma-separated`,
          }),
        ),
      )
      .optional(),
    since: z.iso.datetime({ offset: true, error: 'since: an instant with time zone, e.g. 2026-11-21T10:00:00Z' }).optional(),
    _count: z.coerce
      .number({ error: `_count: a whole number from 1 to ${MAX_LIST_SIZE}` })
      .int()
      .min(1)
      .max(MAX_LIST_SIZE)
      .default(DEFAULT_LIST_SIZE),
    _offset: z.coerce.number({ error: '_offset: a whole number from 0' }).int().min(0).default(0),
  },
  { error: (issue) => (issue.code === 'unrecognized_keys' ? `unknown parameter ${issue.keys.join(', ')} (known: state, since, _count, _offset)` : undefined) },
);
export type ClinicTaskListQuery = z.infer<typeof ClinicTaskListQuery>;

/**
 * What a clinic reads of its Tasks beyond the FHIR Task reads: list rows and request versions. Both
 * show patient data (age, gender, diagnosis; whole bundles), so each read is recorded in the audit
 * trail before it is answered, like the FHIR reads (a list page: one entry per request it shows).
 */
export class ClinicTaskReadsService {
  constructor(
    private readonly reads: ClinicTaskReadsRepository,
    private readonly systems: FhirSystems,
    private readonly audit: Pick<AuditTrail, 'record'>,
    private readonly options: { now?: () => Date; maxPageBytes?: number | undefined } = {},
  ) {}

  async list(caller: Caller, clinicIks: readonly string[], query: ClinicTaskListQuery): Promise<ClinicTaskList> {
    const statuses = query.state?.flatMap((state) => TASK_STATUSES_OF_LIST_STATE[state]);
    const [rows, byStatus] = await Promise.all([
      this.reads.summaries({
        clinicIks,
        ...(statuses ? { statuses } : {}),
        ...(query.since ? { modifiedSince: new Date(query.since) } : {}),
        count: query._count,
        offset: query._offset,
      }),
      this.reads.countsByStatus(clinicIks),
    ]);
    const counts = Object.fromEntries(TaskListState.options.map((state) => [state, 0])) as ClinicTaskList['counts'];
    for (const [status, count] of byStatus) {
      const state = listStateOf(status);
      if (state) counts[state] += count;
    }
    if (rows.length > 0) await this.audit.record(listRecords(rows, caller, queryStringOf(query)));
    const today = (this.options.now ?? (() => new Date()))();
    const items = rows.map((row) => summaryOf(row, this.systems, today));
    const total = [...new Set(query.state ?? TaskListState.options)].reduce((sum, state) => sum + counts[state], 0);
    return { total, counts, items };
  }

  /**
   * A page of the versions of the Task's request that its clinic was sent (pages.ts); not found for
   * a Task it may not see; erased once the request's patient data was erased. Only the page's
   * bundles are opened: which versions went to the clinic is recorded with each version. A request
   * with versions stored before that (migration 0004) is replayed over all its bundles, once per read.
   */
  async versions(taskId: string, caller: Caller, clinicIks: readonly string[], query: VersionPageQuery): Promise<ClinicRead<Page<RequestVersion>>> {
    if (!z.guid().safeParse(taskId).success) return { outcome: 'not-found' };
    const task = await this.reads.findTask(taskId);
    if (!task || !clinicIks.includes(task.clinicIk)) return { outcome: 'not-found' };
    if (task.erasedAt) return { outcome: 'erased', erasedAt: task.erasedAt };
    const rows = await this.reads.versionRows(task.requestId, task.sentVersion);
    const sent = rows.some((row) => row.sentTo === null)
      ? await this.replayedSent(task, rows)
      : rows.filter((row) => row.version === task.sentVersion || row.sentTo?.includes(task.clinicIk));
    const page = pageOf(query._sort === '-version' ? sent.toReversed() : sent, query, this.options.maxPageBytes ?? MAX_PAGE_BYTES);
    const items = await this.reads.versionsOf(task.requestId, page.rows);
    await this.audit.record(
      items.map((version) => ({
        interaction: 'vread',
        agent: clinicAgent(caller, task.clinicIk),
        request: { identifier: task.request.identifier, ownerPartyId: task.request.referrerPartyId, version: version.version },
        resources: [{ type: 'Task', id: task.id }],
        source: 'intake',
      })),
    );
    return { outcome: 'found', value: { total: page.total, items, ...(page.next ? { next: page.next } : {}) } };
  }

  /** Which of the rows went to the Task's clinic, by the request state machine's rules replayed over the bundles (versions-sent.ts). */
  private async replayedSent(task: TaskOfClinic, rows: readonly VersionRow[]): Promise<VersionRow[]> {
    const versions = await this.reads.versionsUpTo(task.requestId, task.sentVersion);
    const sent = new Set(versionsSentTo(task.clinicIk, versions).map((version) => version.version));
    // The latest one the Task records was sent by definition.
    sent.add(task.sentVersion);
    return rows.filter((row) => sent.has(row.version));
  }
}

function clinicAgent(caller: Caller, ik: string): AuditRecord['agent'] {
  return { kind: 'clinic', user: caller.user, ik, ...(caller.address ? { address: caller.address } : {}) };
}

/** One search entry per request a list page shows, naming its Tasks: each referrer sees the reads of its own requests only. */
function listRecords(rows: readonly SummaryRow[], caller: Caller, query: string): AuditRecord[] {
  const byRequest = new Map<string, AuditRecord & { resources: { type: 'Task'; id: string }[] }>();
  for (const row of rows) {
    const known = byRequest.get(row.request_identifier);
    if (known) known.resources.push({ type: 'Task', id: row.id });
    else {
      byRequest.set(row.request_identifier, {
        interaction: 'search-type',
        agent: clinicAgent(caller, row.clinic_ik),
        request: { identifier: row.request_identifier, ownerPartyId: row.referrer_party_id },
        resources: [{ type: 'Task', id: row.id }],
        query,
        source: 'intake',
      });
    }
  }
  return [...byRequest.values()];
}

function queryStringOf(query: ClinicTaskListQuery): string {
  const parameters = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (value !== undefined) parameters.set(name, Array.isArray(value) ? value.join(',') : String(value));
  }
  return parameters.toString();
}
