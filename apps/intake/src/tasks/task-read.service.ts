import type { Bundle, Task } from '@medplum/fhirtypes';
import type { FhirSystems, Issue } from '@bedrequest/fhir-model';
import type { PrismaClient } from '../generated/prisma/client';
import { taskViewOf } from '../requests/admission-request.repository';
import { toFhirTask } from './task-resource';
import { parseTaskSearch, type Viewer } from './task-search';

/** Reads for the gateway: Task search and read, and what a clinic may read of its Task's request. */
export class TaskReadService {
  constructor(
    private readonly prisma: PrismaClient,
    private readonly systems: FhirSystems,
  ) {}

  async search(query: Record<string, unknown>, viewer: Viewer, links: { base: string; path: string }): Promise<{ ok: true; bundle: Bundle } | { ok: false; issues: Issue[] }> {
    const parsed = parseTaskSearch(query, viewer);
    if (!parsed.ok) return parsed;
    const { where, count, offset } = parsed.query;
    const [total, rows] = await Promise.all([
      this.prisma.clinicTask.count({ where }),
      this.prisma.clinicTask.findMany({
        where,
        include: { request: { select: { identifier: true, referrerIk: true } } },
        orderBy: [{ lastModified: 'asc' }, { id: 'asc' }],
        skip: offset,
        take: count,
      }),
    ]);
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
          ...(offset + rows.length < total ? [{ relation: 'next', url: pageUrl(offset + count) }] : []),
        ],
        entry: rows.map((row) => ({
          fullUrl: `${links.base}${links.path}/${row.id}`,
          resource: toFhirTask(taskViewOf(row, row.request), this.systems),
          search: { mode: 'match' },
        })),
      },
    };
  }

  async read(taskId: string, viewer: Viewer): Promise<Task | undefined> {
    const row = await this.findVisible(taskId, viewer);
    return row && toFhirTask(taskViewOf(row, row.request), this.systems);
  }

  /**
   * The latest bundle version the clinic was sent (decisions.md: after a cancellation, never a
   * later one; only the selected clinic ever receives full master data).
   */
  async bundleForClinic(taskId: string, viewer: Viewer): Promise<unknown> {
    if (viewer.role !== 'clinic') return undefined;
    const row = await this.findVisible(taskId, viewer);
    if (!row) return undefined;
    const version = await this.prisma.requestVersion.findUnique({
      where: { requestId_version: { requestId: row.requestId, version: row.sentVersion } },
      select: { bundle: true },
    });
    return version?.bundle;
  }

  /**
   * The DocumentBundles sent for the request of a Task the clinic may see, oldest first; for a
   * cancelled Task only those received before the cancellation (like the bundle versions).
   */
  async documentsForClinic(taskId: string, viewer: Viewer): Promise<unknown[] | undefined> {
    if (viewer.role !== 'clinic') return undefined;
    const row = await this.findVisible(taskId, viewer);
    if (!row) return undefined;
    const documents = await this.prisma.requestDocument.findMany({
      where: { requestId: row.requestId, ...(row.cancelledAt ? { receivedAt: { lte: row.cancelledAt } } : {}) },
      orderBy: { receivedAt: 'asc' },
      select: { bundle: true },
    });
    return documents.map((document) => document.bundle);
  }

  private async findVisible(taskId: string, viewer: Viewer) {
    if (!/^[0-9a-f-]{36}$/i.test(taskId)) return undefined;
    const row = await this.prisma.clinicTask.findUnique({
      where: { id: taskId },
      include: { request: { select: { identifier: true, referrerIk: true, referrerPartyId: true } } },
    });
    if (!row) return undefined;
    const visible = viewer.role === 'referrer' ? row.request.referrerPartyId === viewer.partyId : viewer.ikNumbers.includes(row.clinicIk);
    return visible ? row : undefined;
  }
}
