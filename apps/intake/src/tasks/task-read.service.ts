import type { Bundle, Task } from '@medplum/fhirtypes';
import { z } from 'zod';
import type { FhirSystems } from '@bedrequest/fhir-model';
import { personOf, requestGrantOf, taskAccess, type Caller, type RequestGrant, type Viewer } from '../access';
import type { AuditAgent, AuditRecord, AuditTrail } from '../audit';
import { MAX_PAGE_BYTES, nextPosition, pageOf, pageQueryString, positionOf, type Page, type PageQuery, type Position, type QueryRefusal } from '../search';
import type { SearchedTask, StoredTask, TaskPage, TaskReadRepository } from './task-read.repository';
import { toFhirTask } from './task-resource';
import { subsetOf } from './result-parameters';
import { taskTagOf } from './task-tag';
import { answerParts, parseTaskRead, parseTaskSearch, TASK_KEYS, type TaskShape } from './task-search';

/**
 * What a clinic's read of its Task's request finds: nothing it may see, the mark of an erasure (the
 * Task is left as a tombstone, its request's data is gone), or the data.
 */
export type ClinicRead<T> = { outcome: 'not-found' } | { outcome: 'erased'; erasedAt: Date } | { outcome: 'found'; value: T };

/** Task ids are the `uuid` column's: 8-4-4-4-12 hex digits, in either case. */
const TaskId = z.guid();

/**
 * Reads for the gateway: Task search and read, and what a clinic may read of its Task's request.
 * Every read that answers patient data is recorded in the audit trail before it is answered.
 */
export class TaskReadService {
  constructor(
    private readonly tasks: TaskReadRepository,
    private readonly systems: FhirSystems,
    private readonly audit: Pick<AuditTrail, 'record'>,
    private readonly options: { maxPageBytes?: number | undefined } = {},
  ) {}

  /**
   * A searchset (search.html#return): `total` unless `_total=none`, a `self` link and a `next` link
   * while more pages follow, both with every parameter of the query (the result parameters too;
   * the next page's position by `_offset` or `_cursor`, search/paging.ts), and one entry per Task of
   * the page (none for `_summary=count` and `_count=0`).
   */
  async search(query: Record<string, unknown>, caller: Caller, links: { base: string; path: string }): Promise<{ ok: true; bundle: Bundle } | QueryRefusal> {
    const parsed = parseTaskSearch(query, caller.viewer);
    if (!parsed.ok) return parsed;
    const { search } = parsed;
    const found = await this.tasks.search(search);
    if (found.tasks.some((task) => !taskAccess.allows(caller.viewer, task))) {
      throw new Error('the Task search found a Task the access policy does not allow: its SQL and its check disagree');
    }
    const page = withinBytes(found, this.options.maxPageBytes ?? MAX_PAGE_BYTES);
    const pageUrl = (position: Position) => `${links.base}${links.path}${pageQueryString(query, position)}`;
    const self = positionOf(search, TASK_KEYS);
    const last = page.tasks.at(-1);
    const entries = answerParts(search).entries ? page.tasks : undefined;
    if (entries?.length) await this.audit.record(searchRecords(entries, caller, pageQueryString(query, self).slice(1)));
    return {
      ok: true,
      bundle: {
        resourceType: 'Bundle',
        type: 'searchset',
        ...(page.total === undefined ? {} : { total: page.total }),
        link: [
          { relation: 'self', url: pageUrl(self) },
          ...(page.more && last
            ? [{ relation: 'next', url: pageUrl(nextPosition(search, page.tasks.length, [last.lastModified.toISOString(), last.id], TASK_KEYS)) }]
            : []),
        ],
        // FHIR JSON has no empty arrays: a page without matches has no `entry`.
        ...(entries && entries.length > 0
          ? {
              entry: entries.map((task) => ({
                fullUrl: `${links.base}${links.path}/${task.id}`,
                resource: this.shaped(task, search, caller.viewer),
                search: { mode: 'match' as const },
              })),
            }
          : {}),
      },
    };
  }

  /**
   * One Task the caller may see (`task` undefined for any other), shaped as the query asks, with its
   * entity tag (task-tag.ts), which a clinic's answer names in `If-Match`.
   */
  async read(taskId: string, query: Record<string, unknown>, caller: Caller): Promise<{ ok: true; task: Task | undefined; tag?: string } | QueryRefusal> {
    const parsed = parseTaskRead(query);
    if (!parsed.ok) return parsed;
    const task = await this.findVisible(taskId, caller);
    if (!task) return { ok: true, task: undefined };
    await this.audit.record([readRecord('read', task, caller, [{ type: 'Task', id: task.id }])]);
    return { ok: true, task: this.shaped(task, parsed.shape, caller.viewer), tag: taskTagOf(task) };
  }

  /**
   * The latest bundle version the clinic was sent (docs/decisions.md: after a cancellation, never a
   * later one; only the selected clinic ever receives full master data).
   */
  async bundleForClinic(taskId: string, caller: Caller): Promise<ClinicRead<unknown>> {
    const task = await this.findForClinic(taskId, caller);
    if (task.outcome !== 'found') return task;
    const bundle = await this.tasks.findBundle(task.value.requestId, task.value.grant.versionsUpTo);
    if (!bundle) {
      // Erased between the two reads: its versions went with the erasure's commit.
      const erasedAt = (await this.tasks.findTask(task.value.id))?.erasedAt;
      return erasedAt ? { outcome: 'erased', erasedAt } : { outcome: 'not-found' };
    }
    await this.audit.record([readRecord('vread', task.value, caller, [{ type: 'Task', id: task.value.id }], task.value.grant.versionsUpTo)]);
    return { outcome: 'found', value: bundle };
  }

  /**
   * A page of the DocumentBundles sent for the request of a Task the clinic may see, oldest first
   * (search/pages.ts), as far as the access policy grants them (for a cancelled Task only those
   * received before the cancellation). Only the page's documents are opened.
   */
  async documentsForClinic(taskId: string, caller: Caller, query: PageQuery): Promise<ClinicRead<Page<unknown>>> {
    const task = await this.findForClinic(taskId, caller);
    if (task.outcome !== 'found') return task;
    const rows = await this.tasks.documentRows(task.value.requestId, task.value.grant.documentsReceivedUpTo);
    const page = pageOf(rows, query, this.options.maxPageBytes ?? MAX_PAGE_BYTES);
    const documents = await this.tasks.documentsOf(page.rows.map((row) => row.id));
    await this.recordDocumentRead(task.value, caller, documents);
    return { outcome: 'found', value: { total: page.total, items: documents.map((document) => document.bundle), ...(page.next ? { next: page.next } : {}) } };
  }

  /** One DocumentBundle by its position in that order (from 0), without opening the others; not found past the last. */
  async documentForClinic(taskId: string, caller: Caller, position: number): Promise<ClinicRead<unknown>> {
    const task = await this.findForClinic(taskId, caller);
    if (task.outcome !== 'found') return task;
    const row = (await this.tasks.documentRows(task.value.requestId, task.value.grant.documentsReceivedUpTo))[position];
    const [document] = row ? await this.tasks.documentsOf([row.id]) : [];
    if (!document) return { outcome: 'not-found' };
    await this.recordDocumentRead(task.value, caller, [document]);
    return { outcome: 'found', value: document.bundle };
  }

  private async recordDocumentRead(task: StoredTask, caller: Caller, documents: readonly { id: string }[]): Promise<void> {
    if (documents.length === 0) return;
    const resources = [{ type: 'Task' as const, id: task.id }, ...documents.map((document) => ({ type: 'DocumentBundle' as const, id: document.id }))];
    await this.audit.record([readRecord('read', task, caller, resources)]);
  }

  /** A Task whose request the access policy lets the caller read (as its clinic), with what it grants, or the erasure that left only its tombstone. */
  private async findForClinic(taskId: string, { viewer }: Caller): Promise<ClinicRead<StoredTask & { grant: RequestGrant }>> {
    const task = await this.findTask(taskId);
    const grant = task && requestGrantOf(viewer, task);
    if (!task || !grant) return { outcome: 'not-found' };
    return task.erasedAt ? { outcome: 'erased', erasedAt: task.erasedAt } : { outcome: 'found', value: { ...task, grant } };
  }

  private async findVisible(taskId: string, { viewer }: Caller): Promise<StoredTask | undefined> {
    const task = await this.findTask(taskId);
    return task && taskAccess.allows(viewer, task) ? task : undefined;
  }

  private async findTask(taskId: string): Promise<StoredTask | undefined> {
    // Anything else would fail PostgreSQL's uuid cast instead of finding nothing.
    return TaskId.safeParse(taskId).success ? this.tasks.findTask(taskId) : undefined;
  }

  /**
   * The FHIR Task as `viewer` may see it (its notes' authors for its own clinic only), with only the
   * elements `_elements` names (and the mandatory ones) if it names any.
   */
  private shaped(task: SearchedTask, shape: TaskShape, viewer: Viewer): Task {
    const resource = toFhirTask(task, this.systems, { authors: taskAccess.showsAuthors(viewer, task) });
    return shape.elements ? subsetOf(resource, shape.elements) : resource;
  }
}

/**
 * Who read a Task's data: a referrer for the IK its request names, a clinic for the IK the Task is
 * addressed to (a party may hold several; this is the one it acted for).
 */
function agentOf(task: SearchedTask, caller: Caller): AuditAgent {
  const ik = caller.viewer.role === 'referrer' ? task.referrerIk : task.clinicIk;
  return { kind: caller.viewer.role, ...personOf(caller), ik };
}

function readRecord(interaction: 'read' | 'vread', task: SearchedTask, caller: Caller, resources: AuditRecord['resources'], version?: number): AuditRecord {
  return {
    interaction,
    agent: agentOf(task, caller),
    request: { identifier: task.requestIdentifier, ownerPartyId: task.referrerPartyId, ...(version === undefined ? {} : { version }) },
    resources,
    source: 'intake',
  };
}

/** One entry per request whose Tasks a search page answered: each owner sees the reads of its own requests only. */
function searchRecords(tasks: readonly SearchedTask[], caller: Caller, query: string): AuditRecord[] {
  const byRequest = new Map<string, AuditRecord>();
  for (const task of tasks) {
    const record = byRequest.get(task.requestIdentifier);
    if (record) {
      record.resources = [...(record.resources ?? []), { type: 'Task', id: task.id }];
      continue;
    }
    byRequest.set(task.requestIdentifier, {
      interaction: 'search-type',
      agent: agentOf(task, caller),
      request: { identifier: task.requestIdentifier, ownerPartyId: task.referrerPartyId },
      resources: [{ type: 'Task', id: task.id }],
      query,
      source: 'intake',
    });
  }
  return [...byRequest.values()];
}

/**
 * The page within `maxBytes` of JSON (pages.ts): a Task is small but for its notes (up to
 * TASK_MAX_NOTES of 4000 characters each), so a page of 500 could otherwise grow to hundreds of
 * megabytes. It stops before the Task that would take it over, and always holds one; the Tasks left
 * out come on the next page.
 */
function withinBytes(page: TaskPage, maxBytes: number): TaskPage {
  let bytes = 0;
  for (const [index, task] of page.tasks.entries()) {
    bytes += TASK_BYTES + task.notes.reduce((sum, note) => sum + NOTE_BYTES + Buffer.byteLength(JSON.stringify([note.text, note.author ?? null])), 0);
    if (index > 0 && bytes > maxBytes) return { ...page, tasks: page.tasks.slice(0, index), more: true };
  }
  return page;
}

/** A Task's JSON without its notes (about 1 kB with its identifiers and codings), and a note's besides its text and author's values: generous. */
const TASK_BYTES = 2_048;
const NOTE_BYTES = 128;
