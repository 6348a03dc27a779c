import type { RequestVersion } from '@bedrequest/contracts';
import { taskAccess, type ClinicViewer } from '../access';
import { Prisma, type PrismaClient } from '../generated/prisma/client';
import { intakeTable, sealedFor, type SealedFields } from '../persistence';
import { bundleSummaryOf, type BundleSummary } from './bundle-summary';
import { afterSql, keyColumnsSql, orderBySql, SQL_ORDERS, type OrderKey, type SqlSort } from './clinic-task-order';
import type { ListSearch } from './clinic-task-search';
import type { SummaryRow } from './clinic-task-summary';
import { answeredAutomatically, type StoredNote } from './automatic-answers';

/** The Task's and request's own columns of a list row (the rest is the version's summary). */
type TaskOfRow = Omit<SummaryRow, keyof BundleSummary | 'answered_automatically'> & { request_id: string };

export interface SummaryQuery {
  viewer: ClinicViewer;
  /** Task statuses to list; all when absent. */
  statuses?: readonly string[];
  /** Only Tasks changed at or after this instant (a poller's cursor). */
  modifiedSince?: Date;
  /** A request number (a range of Task ids) or a referrer's IK (clinic-task-search.ts); text is searched in memory. */
  search?: Exclude<ListSearch, { kind: 'text' }>;
  /** The order of the Task's columns the page follows (clinic-task-order.ts); the default without. */
  sort?: SqlSort;
  count: number;
  offset: number;
  /** The row after which the page begins (keyset), instead of an offset. */
  after?: OrderKey;
}

/** A list row's stored part: the version's summary (sealed), or the erased request's states. */
interface ErasedOrStored {
  sealed_summary: Uint8Array | null;
  /** The Task's notes, read for an answered Task alone: whether its answer was automatic. */
  sealed_notes: Uint8Array | null;
  erased_request_status: string;
  erased_intent: string;
}

/** The summary of an erased request's Task: the request's states, nothing of a bundle (there is none left). */
function erasedSummary(status: string, intent: string): BundleSummary {
  return { ...bundleSummaryOf(undefined), request_status: status, intent };
}

/** A version without its bundle: what decides whether a clinic reads it, and on which page. */
export interface VersionRow {
  version: number;
  receivedAt: Date;
  /** The IKs of the clinics it was sent to; null for a version stored before migration 0004. */
  sentTo: string[] | null;
  bytes: number;
}

/** A Task with what decides which versions of its request its clinic may read. */
export interface TaskOfClinic {
  id: string;
  clinicIk: string;
  requestId: string;
  sentVersion: number;
  /** When the Task was cancelled, for the access policy (a cancelled clinic reads what it was sent before). */
  cancelledAt: Date | null;
  /** The request, for the access policy and the audit trail: its ServiceRequest identifier and the referrer owning it. */
  request: { identifier: string; referrerPartyId: string };
  /** When the request's patient data was erased: its versions are gone. */
  erasedAt: Date | null;
}

/**
 * The clinic's list reads (the clinic inbox and `GET /api/v1/clinic/tasks`): raw SQL on intake's own
 * tables, schema-qualified like every raw statement of intake (raw SQL runs on the search_path).
 */
export class ClinicTaskReadsRepository {
  private readonly task: Prisma.Sql;
  private readonly request: Prisma.Sql;
  private readonly version: Prisma.Sql;
  private readonly erasure: Prisma.Sql;

  constructor(
    private readonly prisma: PrismaClient,
    schema: string,
    /** Versions and their summaries are stored sealed (docs/data-protection.md). */
    private readonly fields: SealedFields,
  ) {
    const table = (name: string) => intakeTable(schema, name);
    this.task = table('clinic_task');
    this.request = table('admission_request');
    this.version = table('request_version');
    this.erasure = table('request_erasure');
  }

  /**
   * One page of the clinic's Tasks in the order asked for (clinic-task-order.ts; by default open
   * ones (`requested`) first, then the most recently changed), each with the fields of its list row
   * from the version the clinic was sent. The page is chosen on the Task table alone (index
   * `clinic_ik, last_modified`; the other orders sort the clinic's rows); each row's summary was
   * computed when its version was stored (bundle-summary.ts) and is kept sealed beside it, so a row
   * costs one small value to open, not a bundle to read, and an answered Task's notes, whether its
   * answer was automatic (automatic-answers.ts). A Task of an erased request keeps its row as a
   * tombstone: its request's states, no summary (its versions are gone).
   */
  async summaries(query: SummaryQuery): Promise<SummaryRow[]> {
    const order = SQL_ORDERS[query.sort ?? 'default'];
    const rows = await this.prisma.$queryRaw<(TaskOfRow & ErasedOrStored)[]>`
      WITH page AS (
        SELECT t.id, t.request_id, t.clinic_ik, t.status, t.business_status, t.authored_on, t.last_modified, t.sent_version, t.documents_supplied_at,
               t.answer_deadline, t.overdue_at,
               CASE WHEN t.status IN ('accepted', 'rejected') THEN t.sealed_notes END AS sealed_notes, ${keyColumnsSql(order)}
          FROM ${this.task} t
         WHERE ${Prisma.join(this.conditions(query, order), ' AND ')}
         ORDER BY ${orderBySql(order)}
         LIMIT ${query.count}::int OFFSET ${query.offset}::bigint
      )
      SELECT p.id, p.request_id, p.status, p.business_status, p.authored_on, p.last_modified, p.sent_version, p.clinic_ik, p.sealed_notes, p.documents_supplied_at,
             p.answer_deadline, p.overdue_at,
             r.referrer_ik, r.identifier AS request_identifier, r.referrer_party_id,
             e.erased_at, r.status AS erased_request_status, r.intent AS erased_intent,
             v.sealed_summary
        FROM page p
        JOIN ${this.request} r ON r.id = p.request_id
        LEFT JOIN ${this.version} v ON v.request_id = p.request_id AND v.version = p.sent_version
        LEFT JOIN ${this.erasure} e ON e.request_id = p.request_id
       WHERE v.request_id IS NOT NULL OR e.request_id IS NOT NULL
       ORDER BY ${orderBySql(order, 'p')}`;
    return Promise.all(
      rows.map(
        async ({
          request_id: requestId,
          sealed_summary: sealedSummary,
          sealed_notes: sealedNotes,
          erased_request_status: erasedStatus,
          erased_intent: erasedIntent,
          ...task
        }) => {
          const automatic =
            sealedNotes && !task.erased_at
              ? answeredAutomatically(await this.fields.open<StoredNote[]>(sealedFor.notes(task.id), sealedNotes), task.last_modified)
              : false;
          const own = task;
          if (own.erased_at || !sealedSummary) return { ...own, ...erasedSummary(erasedStatus, erasedIntent), answered_automatically: false };
          return {
            ...own,
            ...(await this.fields.open<BundleSummary>(sealedFor.summary(requestId, own.sent_version), sealedSummary)),
            answered_automatically: automatic,
          };
        },
      ),
    );
  }

  /** How many of the clinic's Tasks are in each status. */
  async countsByStatus(viewer: ClinicViewer): Promise<Map<string, number>> {
    const rows = await this.prisma.$queryRaw<{ status: string; count: number }[]>`
      SELECT t.status, count(*)::int AS count FROM ${this.task} t WHERE ${taskAccess.where(viewer)} GROUP BY t.status`;
    return new Map(rows.map((row) => [row.status, row.count]));
  }

  async findTask(taskId: string): Promise<TaskOfClinic | undefined> {
    const row = await this.prisma.clinicTask.findUnique({
      where: { id: taskId },
      select: {
        id: true,
        clinicIk: true,
        requestId: true,
        sentVersion: true,
        cancelledAt: true,
        request: { select: { identifier: true, referrerPartyId: true, erasure: { select: { erasedAt: true } } } },
      },
    });
    if (!row) return undefined;
    const { erasure, ...request } = row.request;
    return { ...row, request, erasedAt: erasure?.erasedAt ?? null };
  }

  /**
   * The request's versions up to `upTo`, oldest first, without their bundles: the clinics each was
   * sent to (null for a version stored before migration 0004) and its stored size (read from the
   * value's header, not the value).
   */
  async versionRows(requestId: string, upTo: number): Promise<VersionRow[]> {
    return this.prisma.$queryRaw<VersionRow[]>`
      SELECT v.version, v.received_at AS "receivedAt", v.sent_to AS "sentTo", octet_length(v.sealed_bundle)::int AS bytes
        FROM ${this.version} v
       WHERE v.request_id = ${requestId}::uuid AND v.version <= ${upTo}::int
       ORDER BY v.version`;
  }

  /** The bundles of the given versions of the request, opened, in the order given. */
  async versionsOf(requestId: string, rows: readonly Pick<VersionRow, 'version' | 'receivedAt'>[]): Promise<RequestVersion[]> {
    const stored = await this.prisma.requestVersion.findMany({
      where: { requestId, version: { in: rows.map((row) => row.version) } },
      select: { version: true, sealedBundle: true },
    });
    const sealed = new Map(stored.map((row) => [row.version, row.sealedBundle]));
    return Promise.all(
      rows.flatMap((row) => {
        const bundle = sealed.get(row.version);
        if (!bundle) return [];
        return [
          this.fields
            .open<RequestVersion['bundle']>(sealedFor.bundle(requestId, row.version), bundle)
            .then((opened) => ({ version: row.version, receivedAt: row.receivedAt.toISOString(), bundle: opened })),
        ];
      }),
    );
  }

  /** The request's versions up to `upTo`, oldest first. */
  async versionsUpTo(requestId: string, upTo: number): Promise<RequestVersion[]> {
    const rows = await this.prisma.requestVersion.findMany({
      where: { requestId, version: { lte: upTo } },
      orderBy: { version: 'asc' },
      select: { version: true, receivedAt: true, sealedBundle: true },
    });
    return Promise.all(
      rows.map(async (row) => ({
        version: row.version,
        receivedAt: row.receivedAt.toISOString(),
        // An AdmissionRequestBundle as received (the gateway validated it before intake stored it).
        bundle: await this.fields.open<RequestVersion['bundle']>(sealedFor.bundle(requestId, row.version), row.sealedBundle),
      })),
    );
  }

  /** The list's conditions, the access policy's first (a clinic's names the Task table alone). */
  private conditions(query: SummaryQuery, order: (typeof SQL_ORDERS)[SqlSort]): Prisma.Sql[] {
    const { after, search } = query;
    return [
      taskAccess.where(query.viewer),
      ...(query.statuses ? [Prisma.sql`t.status IN (${Prisma.join(query.statuses)})`] : []),
      ...(query.modifiedSince ? [Prisma.sql`t.last_modified >= ${query.modifiedSince.toISOString()}::timestamptz`] : []),
      // A request number: a range of the primary key.
      ...(search?.kind === 'number' ? [Prisma.sql`t.id BETWEEN ${search.low}::uuid AND ${search.high}::uuid`] : []),
      ...(search?.kind === 'ik' ? [Prisma.sql`EXISTS (SELECT 1 FROM ${this.request} rs WHERE rs.id = t.request_id AND rs.referrer_ik = ${search.ik})`] : []),
      // After the cursor's row in the list's order.
      ...(after ? [afterSql(order, after)] : []),
    ];
  }
}
