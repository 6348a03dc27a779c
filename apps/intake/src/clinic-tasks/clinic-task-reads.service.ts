import { z } from 'zod';
import { TASK_STATUSES_OF_LIST_STATE, TaskListState, type ClinicTaskList, type RequestVersion } from '@bedrequest/contracts';
import type { FhirSystems } from '@bedrequest/fhir-model';
import { personOf, requestGrantOf, type Caller, type ClinicViewer, type RequestGrant } from '../access';
import type { AuditRecord, AuditTrail } from '../audit';
import { MAX_PAGE_BYTES, nextPosition, pageOf, type Page, type VersionPageQuery } from '../search';
import type { ClinicRead } from '../tasks';
import { HttpError } from '@bedrequest/http';
import { listQueryString, type ClinicTaskListQuery } from './clinic-task-list-query';
import { compareRows, SQL_ORDERS, sqlSortOf } from './clinic-task-order';
import { listSearchOf, matchesText } from './clinic-task-search';
import type { ClinicTaskReadsRepository, VersionRow } from './clinic-task-reads.repository';
import { listStateOf, summaryOf, type SummaryRow } from './clinic-task-summary';
import { versionsSentTo } from './versions-sent';

/**
 * What a clinic reads of its Tasks beyond the FHIR Task reads: list rows and request versions. Both
 * show patient data (age, gender, diagnosis; whole bundles), so each read is recorded in the audit
 * trail before it is answered, like the FHIR reads (a list page: one entry per request it shows).
 */
/**
 * The most rows a list sorted by the admission date or searched by text reads and opens (about
 * 0.5 kB each): a clinic's open and answered requests of months, read in well under a second.
 */
export const MAX_SCAN = 5000;

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
   * `_cursor`: search/paging.ts), and the counts of its tabs. In the order `_sort` names, chosen in
   * SQL on the Task's columns; sorted by the admission date or searched with `q`, which the sealed
   * summaries hold (docs/data-protection.md), the clinic's rows of the query (at most MAX_SCAN) are
   * read and sorted and searched in memory, and paged by `_offset`.
   */
  async list(caller: Caller & { viewer: ClinicViewer }, query: ClinicTaskListQuery): Promise<ClinicTaskList> {
    const statuses = query.state?.flatMap((state) => TASK_STATUSES_OF_LIST_STATE[state]);
    const search = query.q === undefined ? undefined : listSearchOf(query.q);
    const sqlSort = search ? undefined : sqlSortOf(query._sort);
    const order = sqlSort && SQL_ORDERS[sqlSort];
    const after = order && query._cursor ? order.keys.decode(query._cursor) : undefined;
    const paging = { count: query._count, offset: query._offset, ...(after ? { after } : {}) };
    const filters = {
      viewer: caller.viewer,
      ...(statuses ? { statuses } : {}),
      ...(query.since ? { modifiedSince: new Date(query.since) } : {}),
      ...(search && search.kind !== 'text' ? { search } : {}),
    };
    const [page, byStatus] = await Promise.all([
      sqlSort
        ? this.reads
            // One row more than the page: whether another follows.
            .summaries({ ...filters, sort: sqlSort, count: query._count + 1, offset: query._offset, ...(after ? { after } : {}) })
            .then((found) => ({ rows: found.slice(0, query._count), more: found.length > query._count, matched: undefined }))
        : this.inMemory(filters, query, search?.kind === 'text' ? search.text : undefined),
      this.reads.countsByStatus(caller.viewer),
    ]);
    const { rows } = page;
    const counts = Object.fromEntries(TaskListState.options.map((state) => [state, 0])) as ClinicTaskList['counts'];
    for (const [status, count] of byStatus) {
      const state = listStateOf(status);
      if (state) counts[state] += count;
    }
    if (rows.length > 0) await this.audit.record(listRecords(rows, caller, auditedQuery(query, search?.kind)));
    const today = (this.options.now ?? (() => new Date()))();
    const items = rows.map((row) => summaryOf(row, this.systems, today));
    const total = page.matched ?? [...new Set(query.state ?? TaskListState.options)].reduce((sum, state) => sum + counts[state], 0);
    const last = rows.at(-1);
    const position = order && last ? nextPosition(paging, rows.length, order.keyOf(last), order.keys) : { offset: query._offset + rows.length };
    const next = page.more && last ? listQueryString(query, position) : undefined;
    return { total, counts, items, ...(next ? { next } : {}) };
  }

  /**
   * The page of a list sorted by the admission date or searched by text: the clinic's rows of the
   * query, at most MAX_SCAN (beyond it 400: narrow the list by state or since), sorted and searched
   * here; `matched` counts a search's rows.
   */
  private async inMemory(
    filters: Omit<Parameters<ClinicTaskReadsRepository['summaries']>[0], 'count' | 'offset'>,
    query: ClinicTaskListQuery,
    text: string | undefined,
  ): Promise<{ rows: SummaryRow[]; more: boolean; matched: number | undefined }> {
    const scanned = await this.reads.summaries({ ...filters, count: MAX_SCAN + 1, offset: 0 });
    if (scanned.length > MAX_SCAN) {
      throw new HttpError(
        'invalid_request',
        `more than ${MAX_SCAN} Tasks to sort by occurrence or search by text: narrow the list with state or since, or search by request number or IK`,
      );
    }
    const matching = (text === undefined ? scanned : scanned.filter((row) => matchesText(row, text))).sort(compareRows(query._sort));
    const rows = matching.slice(query._offset, query._offset + query._count);
    return { rows, more: matching.length > query._offset + rows.length, matched: query.q === undefined ? undefined : matching.length };
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

/**
 * The list's query as the audit trail records it: identifiers only (docs/data-protection.md, "Audit
 * trail"), so a text search (which may name a diagnosis) is recorded as `q=*`.
 */
function auditedQuery(query: ClinicTaskListQuery, search: string | undefined): string {
  const recorded = search === 'text' ? { ...query, q: '*' } : query;
  return listQueryString(recorded, { offset: query._offset }).slice(1);
}
