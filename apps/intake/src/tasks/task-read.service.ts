import type { Bundle, Task } from '@medplum/fhirtypes';
import { z } from 'zod';
import type { FhirSystems, Issue } from '@bedrequest/fhir-model';
import type { StoredTask, TaskReadRepository } from './task-read.repository';
import { toFhirTask } from './task-resource';
import { parseTaskSearch, type Viewer } from './task-search';

/** Task ids are the `uuid` column's: 8-4-4-4-12 hex digits, in either case. */
const TaskId = z.guid();

/** Reads for the gateway: Task search and read, and what a clinic may read of its Task's request. */
export class TaskReadService {
  constructor(
    private readonly tasks: TaskReadRepository,
    private readonly systems: FhirSystems,
  ) {}

  async search(query: Record<string, unknown>, viewer: Viewer, links: { base: string; path: string }): Promise<{ ok: true; bundle: Bundle } | { ok: false; issues: Issue[] }> {
    const parsed = parseTaskSearch(query, viewer);
    if (!parsed.ok) return parsed;
    const { count, offset } = parsed.search;
    const { total, tasks } = await this.tasks.search(parsed.search);
    const pageUrl = (pageOffset: number) => {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query)) {
        if (name === '_offset') continue;
        for (const single of Array.isArray(value) ? value : [value]) params.append(name, String(single));
      }
      if (pageOffset > 0) params.set('_offset', String(pageOffset));
      const search = params.toString();
      return `${links.base}${links.path}${search ? `?${search}` : ''}`;
    };
    return {
      ok: true,
      bundle: {
        resourceType: 'Bundle',
        type: 'searchset',
        total,
        link: [
          { relation: 'self', url: pageUrl(offset) },
          ...(offset + tasks.length < total ? [{ relation: 'next', url: pageUrl(offset + count) }] : []),
        ],
        entry: tasks.map((task) => ({
          fullUrl: `${links.base}${links.path}/${task.id}`,
          resource: toFhirTask(task, this.systems),
          search: { mode: 'match' },
        })),
      },
    };
  }

  async read(taskId: string, viewer: Viewer): Promise<Task | undefined> {
    const task = await this.findVisible(taskId, viewer);
    return task && toFhirTask(task, this.systems);
  }

  /**
   * The latest bundle version the clinic was sent (decisions.md: after a cancellation, never a
   * later one; only the selected clinic ever receives full master data).
   */
  async bundleForClinic(taskId: string, viewer: Viewer): Promise<unknown> {
    if (viewer.role !== 'clinic') return undefined;
    const task = await this.findVisible(taskId, viewer);
    return task && this.tasks.findBundle(task.requestId, task.sentVersion);
  }

  /**
   * The DocumentBundles sent for the request of a Task the clinic may see, oldest first; for a
   * cancelled Task only those received before the cancellation (like the bundle versions).
   */
  async documentsForClinic(taskId: string, viewer: Viewer): Promise<unknown[] | undefined> {
    if (viewer.role !== 'clinic') return undefined;
    const task = await this.findVisible(taskId, viewer);
    return task && this.tasks.findDocuments(task.requestId, task.cancelledAt);
  }

  private async findVisible(taskId: string, viewer: Viewer): Promise<StoredTask | undefined> {
    // Anything else would fail PostgreSQL's uuid cast instead of finding nothing.
    if (!TaskId.safeParse(taskId).success) return undefined;
    const task = await this.tasks.findTask(taskId);
    if (!task) return undefined;
    const visible = viewer.role === 'referrer' ? task.referrerPartyId === viewer.partyId : viewer.ikNumbers.includes(task.clinicIk);
    return visible ? task : undefined;
  }
}
