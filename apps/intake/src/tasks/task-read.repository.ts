import type { BusinessStatus, TaskStatus } from '@bedrequest/contracts';
import { taskAccess } from '../access';
import { Prisma, type PrismaClient } from '../generated/prisma/client';
import { intakeTable, sealedFor, type SealedFields } from '../persistence';
import { instantIn } from '../search';
import { askedByRuleOf, type ClinicTaskView, type TaskNote } from './task-resource';
import { answerParts, type TaskKey, type TaskSearch } from './task-search';

/** A Task with what only intake needs to decide what its clinic may read. */
export interface StoredTask extends ClinicTaskView {
  requestId: string;
  referrerPartyId: string;
  sentVersion: number;
  /** Raised by every change of the Task: with sentVersion, its entity tag (task-tag.ts). */
  revision: number;
  cancelledAt: Date | null;
  /** When its request's patient data was erased: the Task is a tombstone, its bundle and documents are gone. */
  erasedAt: Date | null;
}

interface TaskRow {
  id: string;
  clinic_ik: string;
  status: string;
  business_status: string | null;
  sealed_notes: Uint8Array | null;
  authored_on: Date;
  last_modified: Date;
  identifier: string;
  referrer_ik: string;
  referrer_party_id: string;
  answer_deadline: Date | null;
  overdue_at: Date | null;
  asked_by_rule: unknown;
}

const TASK_COLUMNS = Prisma.raw(
  't.id, t.clinic_ik, t.status, t.business_status, t.sealed_notes, t.authored_on, t.last_modified, r.identifier, r.referrer_ik, r.referrer_party_id, t.answer_deadline, t.overdue_at, t.asked_by_rule',
);

/** A Task a search found, with the referrer owning its request (whom the read's audit entry concerns). */
export interface SearchedTask extends ClinicTaskView {
  referrerPartyId: string;
}

/** One page of a Task search: its Tasks, whether more follow, and the number of all matches unless `_total=none`. */
export interface TaskPage {
  tasks: SearchedTask[];
  more: boolean;
  total?: number;
}

/** All of intake's SQL for reading Tasks (the gateway's Task search and read, the clinic API). */
export class TaskReadRepository {
  /** The Tasks joined with their requests, as every search reads them. */
  private readonly from: Prisma.Sql;
  /**
   * The Tasks alone: a count needs nothing of the request (every search condition but `based-on`
   * is the Task's own, and the referrer's too), so it reads one index of the Task table only.
   */
  private readonly task: Prisma.Sql;
  private readonly document: Prisma.Sql;

  constructor(
    private readonly prisma: PrismaClient,
    schema: string,
    /** Notes, bundles and documents are stored sealed (docs/data-protection.md). */
    private readonly fields: SealedFields,
  ) {
    this.task = Prisma.sql`${intakeTable(schema, 'clinic_task')} t`;
    this.from = Prisma.sql`${this.task} JOIN ${intakeTable(schema, 'admission_request')} r ON r.id = t.request_id`;
    this.document = intakeTable(schema, 'request_document');
  }

  /**
   * One page of a Task search and the number of all matching Tasks, in one statement (one round
   * trip), the access policy applied in SQL with the search's conditions (docs/api.md, "Tasks":
   * ordered by lastModified, then id). A page begins `offset` Tasks in or just after the cursor's
   * Task (search/paging.ts); the total counts every match either way. What the search does not ask
   * for (`_total=none`, `_summary=count`, `_count=0`) is not computed.
   */
  async search(search: TaskSearch): Promise<TaskPage> {
    const matching = Prisma.join(this.conditions(search), ' AND ');
    const wanted = answerParts(search);
    if (search.requestIdentifiers.length) return this.searchOneRequest(search, matching);
    if (!wanted.entries) return wanted.total ? { total: await this.count(matching), tasks: [], more: false } : { tasks: [], more: false };
    const page = search.after ? Prisma.sql`${matching} AND ${after(search.after)}` : matching;
    return wanted.total ? this.searchPage(search, matching, page) : this.searchPageWithoutTotal(search, page);
  }

  /**
   * `based-on` names one request (the identifier is unique), so at most its few Tasks (one per
   * clinic it ever named) match: they are read whole, two index lookups (admission_request
   * identifier, then clinic_task (request_id, clinic_ik)), and counted and paged here. The
   * cheapest statement for the hot path of polling (nothing to plan twice, no window to compute).
   */
  private async searchOneRequest(search: TaskSearch, matching: Prisma.Sql): Promise<TaskPage> {
    const rows = await this.prisma.$queryRaw<TaskRow[]>`
      SELECT ${TASK_COLUMNS}
        FROM ${this.from}
       WHERE ${matching}
       ORDER BY t.last_modified, t.id`;
    const wanted = answerParts(search);
    const start = search.after ? countUpTo(rows, search.after) : search.offset;
    const page = wanted.entries ? rows.slice(start, start + search.count) : [];
    return {
      tasks: await this.taskViews(page),
      more: wanted.entries && start + search.count < rows.length,
      ...(wanted.total ? { total: rows.length } : {}),
    };
  }

  /**
   * Any other search can match millions of Tasks (a clinic's whole list): the page stops after
   * `count` rows of the index order (and one more, which tells whether another page follows), and
   * the total is a scalar subquery over the conditions without the cursor, so it is right on every
   * page, also past the last one (then the only row carries no Task).
   */
  private async searchPage(search: TaskSearch, matching: Prisma.Sql, page: Prisma.Sql): Promise<TaskPage> {
    const rows = await this.prisma.$queryRaw<(Partial<TaskRow> & { total: number })[]>`
      WITH page AS (
        SELECT ${TASK_COLUMNS}
          FROM ${this.from}
         WHERE ${page}
         ORDER BY t.last_modified, t.id
         LIMIT ${search.count + 1}::int OFFSET ${search.offset}::bigint
      )
      SELECT matched.total, page.*
        FROM (SELECT count(*)::int AS total FROM ${this.task} WHERE ${matching}) matched
        LEFT JOIN page ON true
       -- A join promises no order: the page (at most _count rows) is sorted again.
       ORDER BY page.last_modified, page.id`;
    const found = rows.filter((row): row is TaskRow & { total: number } => row.id != null);
    return { tasks: await this.taskViews(found.slice(0, search.count)), more: found.length > search.count, total: rows[0]?.total ?? 0 };
  }

  /** `_total=none`: no count, and one row beyond the page tells whether another page follows. */
  private async searchPageWithoutTotal(search: TaskSearch, page: Prisma.Sql): Promise<TaskPage> {
    const rows = await this.prisma.$queryRaw<TaskRow[]>`
      SELECT ${TASK_COLUMNS}
        FROM ${this.from}
       WHERE ${page}
       ORDER BY t.last_modified, t.id
       LIMIT ${search.count + 1}::int OFFSET ${search.offset}::bigint`;
    return { tasks: await this.taskViews(rows.slice(0, search.count)), more: rows.length > search.count };
  }

  /** `_summary=count` and `_count=0`: the number of matches alone. */
  private async count(matching: Prisma.Sql): Promise<number> {
    const [row] = await this.prisma.$queryRaw<{ total: number }[]>`SELECT count(*)::int AS total FROM ${this.task} WHERE ${matching}`;
    return row?.total ?? 0;
  }

  async findTask(taskId: string): Promise<StoredTask | undefined> {
    const row = await this.prisma.clinicTask.findUnique({
      where: { id: taskId },
      include: { request: { select: { identifier: true, referrerIk: true, referrerPartyId: true, erasure: { select: { erasedAt: true } } } } },
    });
    if (!row) return undefined;
    const notes = await this.notesOf(row.id, row.sealedNotes);
    return {
      id: row.id,
      clinicIk: row.clinicIk,
      status: row.status as TaskStatus,
      businessStatus: row.businessStatus as BusinessStatus | null,
      notes,
      authoredOn: row.authoredOn,
      lastModified: row.lastModified,
      requestIdentifier: row.request.identifier,
      referrerIk: row.request.referrerIk,
      requestId: row.requestId,
      referrerPartyId: row.request.referrerPartyId,
      sentVersion: row.sentVersion,
      revision: row.revision,
      cancelledAt: row.cancelledAt,
      erasedAt: row.request.erasure?.erasedAt ?? null,
      answerDeadline: row.answerDeadline,
      overdueSince: row.overdueAt,
      askedByRule: askedByRuleOf(row.askedByRule),
    };
  }

  async findBundle(requestId: string, version: number): Promise<unknown> {
    const row = await this.prisma.requestVersion.findUnique({
      where: { requestId_version: { requestId, version } },
      select: { sealedBundle: true },
    });
    return row ? this.fields.open(sealedFor.bundle(requestId, version), row.sealedBundle) : undefined;
  }

  /**
   * The request's documents without their bundles, in the order they arrived ((received_at, seq),
   * migration 0004), with their stored sizes; with `receivedUpTo`, only those received until then.
   */
  async documentRows(requestId: string, receivedUpTo: Date | null): Promise<{ id: string; bytes: number }[]> {
    return this.prisma.$queryRaw<{ id: string; bytes: number }[]>`
      SELECT d.id, octet_length(d.sealed_bundle)::int AS bytes
        FROM ${this.document} d
       WHERE d.request_id = ${requestId}::uuid
         AND (${receivedUpTo}::timestamptz IS NULL OR d.received_at <= ${receivedUpTo}::timestamptz)
       ORDER BY d.received_at, d.seq`;
  }

  /** The documents of the given ids, opened, in the order given. */
  async documentsOf(ids: readonly string[]): Promise<{ id: string; bundle: unknown }[]> {
    const rows = await this.prisma.requestDocument.findMany({ where: { id: { in: [...ids] } }, select: { id: true, sealedBundle: true } });
    const sealed = new Map(rows.map((row) => [row.id, row.sealedBundle]));
    return Promise.all(
      ids.flatMap((id) => {
        const bundle = sealed.get(id);
        return bundle ? [this.fields.open(sealedFor.document(id), bundle).then((opened) => ({ id, bundle: opened }))] : [];
      }),
    );
  }

  /** The rows' Tasks, each with its notes opened. */
  private taskViews(rows: readonly TaskRow[]): Promise<SearchedTask[]> {
    return Promise.all(rows.map(async (row) => toTaskView(row, await this.notesOf(row.id, row.sealed_notes))));
  }

  /** A Task's notes, opened; none once its request was erased (or for a Task stored without). */
  private async notesOf(taskId: string, sealed: Uint8Array | null): Promise<TaskNote[]> {
    return sealed ? this.fields.open<TaskNote[]>(sealedFor.notes(taskId), sealed) : [];
  }

  /** The search's conditions, ANDed, the access policy's first (docs/decisions.md). */
  private conditions(search: TaskSearch): Prisma.Sql[] {
    return [
      taskAccess.where(search.viewer),
      ...search.requestIdentifiers.map((identifier) => Prisma.sql`r.identifier = ${identifier}`),
      ...(search.ownerIk === undefined ? [] : [Prisma.sql`t.clinic_ik = ${search.ownerIk}`]),
      ...(search.businessStatuses ? [Prisma.sql`t.business_status IN (${Prisma.join(search.businessStatuses)})`] : []),
      ...(search.statuses ? [Prisma.sql`t.status IN (${Prisma.join(search.statuses)})`] : []),
      ...search.lastModified.map((range) => instantIn(Prisma.raw('t.last_modified'), range)),
      // `overdue` (docs/api.md, "Answer deadlines"): true is served by the partial index of the overdue ones.
      ...(search.overdue === undefined ? [] : [search.overdue ? Prisma.sql`t.overdue_at IS NOT NULL` : Prisma.sql`t.overdue_at IS NULL`]),
    ];
  }
}

/** The Tasks after the cursor's in the search's order (t.last_modified, t.id): what the index (last_modified) serves. */
function after([lastModified, id]: TaskKey): Prisma.Sql {
  return Prisma.sql`(t.last_modified, t.id) > (${lastModified}::timestamptz, ${id}::uuid)`;
}

/** How many of the rows (in the search's order) come up to and including the cursor's Task: where the next page begins. */
function countUpTo(rows: readonly TaskRow[], [lastModified, id]: TaskKey): number {
  const at = Date.parse(lastModified);
  const following = rows.findIndex((row) => row.last_modified.getTime() > at || (row.last_modified.getTime() === at && row.id > id.toLowerCase()));
  return following === -1 ? rows.length : following;
}

function toTaskView(row: TaskRow, notes: TaskNote[]): SearchedTask {
  return {
    referrerPartyId: row.referrer_party_id,
    id: row.id,
    clinicIk: row.clinic_ik,
    status: row.status as TaskStatus,
    businessStatus: row.business_status as BusinessStatus | null,
    notes,
    authoredOn: row.authored_on,
    lastModified: row.last_modified,
    requestIdentifier: row.identifier,
    referrerIk: row.referrer_ik,
    answerDeadline: row.answer_deadline,
    overdueSince: row.overdue_at,
    askedByRule: askedByRuleOf(row.asked_by_rule),
  };
}
