import type { Bundle, Task } from '@medplum/fhirtypes';
import { z } from 'zod';
import type { FhirSystems } from '@bedrequest/fhir-model';
import type { StoredTask, TaskReadRepository } from './task-read.repository';
import { toFhirTask, type ClinicTaskView } from './task-resource';
import { subsetOf } from './result-parameters';
import { answerParts, parseTaskRead, parseTaskSearch, type QueryRefusal, type TaskShape, type Viewer } from './task-search';

/** Task ids are the `uuid` column's: 8-4-4-4-12 hex digits, in either case. */
const TaskId = z.guid();

/** Reads for the gateway: Task search and read, and what a clinic may read of its Task's request. */
export class TaskReadService {
  constructor(
    private readonly tasks: TaskReadRepository,
    private readonly systems: FhirSystems,
  ) {}

  /**
   * A searchset (search.html#return): `total` unless `_total=none`, a `self` link and a `next` link
   * while more pages follow, both with every parameter of the query (the result parameters too),
   * and one entry per Task of the page (none for `_summary=count` and `_count=0`).
   */
  async search(query: Record<string, unknown>, viewer: Viewer, links: { base: string; path: string }): Promise<{ ok: true; bundle: Bundle } | QueryRefusal> {
    const parsed = parseTaskSearch(query, viewer);
    if (!parsed.ok) return parsed;
    const { search } = parsed;
    const page = await this.tasks.search(search);
    const pageUrl = (pageOffset: number) => {
      const params = new URLSearchParams();
      for (const [name, value] of Object.entries(query)) {
        if (name === '_offset') continue;
        for (const single of Array.isArray(value) ? value : [value]) params.append(name, String(single));
      }
      if (pageOffset > 0) params.set('_offset', String(pageOffset));
      const parameters = params.toString();
      return `${links.base}${links.path}${parameters ? `?${parameters}` : ''}`;
    };
    const entries = answerParts(search).entries ? page.tasks : undefined;
    return {
      ok: true,
      bundle: {
        resourceType: 'Bundle',
        type: 'searchset',
        ...(page.total === undefined ? {} : { total: page.total }),
        link: [{ relation: 'self', url: pageUrl(search.offset) }, ...(page.more ? [{ relation: 'next', url: pageUrl(search.offset + search.count) }] : [])],
        // FHIR JSON has no empty arrays: a page without matches has no `entry`.
        ...(entries && entries.length > 0
          ? {
              entry: entries.map((task) => ({
                fullUrl: `${links.base}${links.path}/${task.id}`,
                resource: this.shaped(task, search),
                search: { mode: 'match' as const },
              })),
            }
          : {}),
      },
    };
  }

  /** One Task the viewer may see (`task` undefined for any other), shaped as the query asks. */
  async read(taskId: string, query: Record<string, unknown>, viewer: Viewer): Promise<{ ok: true; task: Task | undefined } | QueryRefusal> {
    const parsed = parseTaskRead(query);
    if (!parsed.ok) return parsed;
    const task = await this.findVisible(taskId, viewer);
    return { ok: true, task: task && this.shaped(task, parsed.shape) };
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

  /** The FHIR Task, with only the elements `_elements` names (and the mandatory ones) if it names any. */
  private shaped(task: ClinicTaskView, shape: TaskShape): Task {
    const resource = toFhirTask(task, this.systems);
    return shape.elements ? subsetOf(resource, shape.elements) : resource;
  }
}
