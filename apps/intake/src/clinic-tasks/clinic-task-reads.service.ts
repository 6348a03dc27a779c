import { z } from 'zod';
import { TASK_STATUSES_OF_LIST_STATE, TaskListState, type ClinicTaskList, type RequestVersion } from '@bedrequest/contracts';
import type { FhirSystems } from '@bedrequest/fhir-model';
import { personOf, requestGrantOf, type Caller, type ClinicViewer, type RequestGrant } from '../access';
import type { AuditRecord, AuditTrail } from '../audit';
import { MAX_PAGE_BYTES, nextPosition, pageOf, type Page, type VersionPageQuery } from '../search';
import type { ClinicRead } from '../tasks';
import { LIST_KEYS, listQueryString, type ClinicTaskListQuery, type ListKey } from './clinic-task-list-query';
import type { ClinicTaskReadsRepository, VersionRow } from './clinic-task-reads.repository';
import { listStateOf, summaryOf, type SummaryRow } from './clinic-task-summary';
import { versionsSentTo } from './versions-sent';

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

  /**
   * A page of the Tasks the access policy lets the clinic see, from `_offset` or after `_cursor`,
   * with `next` while more follow (by `_offset` while that stays within MAX_OFFSET, then by
   * `_cursor`: search/paging.ts), and the counts of its tabs.
   */
  async list(caller: Caller & { viewer: ClinicViewer }, query: ClinicTaskListQuery): Promise<ClinicTaskList> {
    const statuses = query.state?.flatMap((state) => TASK_STATUSES_OF_LIST_STATE[state]);
    const paging = { count: query._count, offset: query._offset, ...(query._cursor ? { after: LIST_KEYS.decode(query._cursor) } : {}) };
    const [found, byStatus] = await Promise.all([
      this.reads.summaries({
        viewer: caller.viewer,
        ...(statuses ? { statuses } : {}),
        ...(query.since ? { modifiedSince: new Date(query.since) } : {}),
        // One row more than the page: whether another follows.
        count: query._count + 1,
        offset: query._offset,
        ...(paging.after ? { after: paging.after } : {}),
      }),
      this.reads.countsByStatus(caller.viewer),
    ]);
    const rows = found.slice(0, query._count);
    const counts = Object.fromEntries(TaskListState.options.map((state) => [state, 0])) as ClinicTaskList['counts'];
    for (const [status, count] of byStatus) {
      const state = listStateOf(status);
      if (state) counts[state] += count;
    }
    if (rows.length > 0) await this.audit.record(listRecords(rows, caller, listQueryString(query, { offset: query._offset }).slice(1)));
    const today = (this.options.now ?? (() => new Date()))();
    const items = rows.map((row) => summaryOf(row, this.systems, today));
    const total = [...new Set(query.state ?? TaskListState.options)].reduce((sum, state) => sum + counts[state], 0);
    const last = rows.at(-1);
    const next = found.length > rows.length && last ? listQueryString(query, nextPosition(paging, rows.length, keyOf(last), LIST_KEYS)) : undefined;
    return { total, counts, items, ...(next ? { next } : {}) };
  }

  /**
   * A page of the versions of the Task's request that its clinic was sent (search/pages.ts), as far
   * as the access policy grants them; not found for a Task it may not see; erased once the
   * request's patient data was erased. Only the page's bundles are opened: which versions went to
   * the clinic is recorded with each version. A request with versions stored before that (migration
   * 0004) is replayed over all its bundles, once per read.
   */
  async versions(taskId: string, caller: Caller, query: VersionPageQuery): Promise<ClinicRead<Page<RequestVersion>>> {
    if (!z.guid().safeParse(taskId).success) return { outcome: 'not-found' };
    const task = await this.reads.findTask(taskId);
    const grant = task && requestGrantOf(caller.viewer, { ...task, referrerPartyId: task.request.referrerPartyId });
    if (!task || !grant) return { outcome: 'not-found' };
    if (task.erasedAt) return { outcome: 'erased', erasedAt: task.erasedAt };
    const rows = await this.reads.versionRows(task.requestId, grant.versionsUpTo);
    const sent = rows.some((row) => row.sentTo === null)
      ? await this.replayedSent(task.requestId, grant, rows)
      : rows.filter((row) => row.version === grant.versionsUpTo || row.sentTo?.includes(grant.clinicIk));
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
  private async replayedSent(requestId: string, grant: RequestGrant, rows: readonly VersionRow[]): Promise<VersionRow[]> {
    const versions = await this.reads.versionsUpTo(requestId, grant.versionsUpTo);
    const sent = new Set(versionsSentTo(grant.clinicIk, versions).map((version) => version.version));
    // The latest one the Task records was sent by definition.
    sent.add(grant.versionsUpTo);
    return rows.filter((row) => sent.has(row.version));
  }
}

function clinicAgent(caller: Caller, ik: string): AuditRecord['agent'] {
  return { kind: 'clinic', ...personOf(caller), ik };
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

/** A list row's place in the list's order, for the cursor of the page after it. */
function keyOf(row: SummaryRow): ListKey {
  return [row.status === 'requested', row.last_modified.toISOString(), row.id];
}
