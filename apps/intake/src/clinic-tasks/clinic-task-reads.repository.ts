import { ICD10GM_SYSTEM } from '@bedrequest/fhir-model';
import { Prisma, type PrismaClient } from '../generated/prisma/client';
import type { SummaryRow } from './clinic-task-summary';
import type { RequestVersionView } from './versions-sent';

export interface SummaryQuery {
  clinicIks: readonly string[];
  /** Task statuses to list; all when absent. */
  statuses?: readonly string[];
  /** Only Tasks changed at or after this instant (a poller's cursor). */
  modifiedSince?: Date;
  count: number;
  offset: number;
}

/** A Task with what decides which versions of its request its clinic may read. */
export interface TaskOfClinic {
  id: string;
  clinicIk: string;
  requestId: string;
  sentVersion: number;
}

/**
 * The clinic's list reads (the clinic inbox and `GET /api/v1/clinic/tasks`): raw SQL on intake's own
 * tables, schema-qualified like every raw statement of intake (raw SQL runs on the search_path).
 */
export class ClinicTaskReadsRepository {
  private readonly task: Prisma.Sql;
  private readonly request: Prisma.Sql;
  private readonly version: Prisma.Sql;

  constructor(
    private readonly prisma: PrismaClient,
    schema: string,
  ) {
    if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`unsafe schema name ${schema}`);
    const table = (name: string) => Prisma.raw(`"${schema}"."${name}"`);
    this.task = table('clinic_task');
    this.request = table('admission_request');
    this.version = table('request_version');
  }

  /**
   * One page of the clinic's Tasks, open ones (`requested`) first, then the most recently changed,
   * each with the fields of its list row read from the version the clinic was sent. The page is
   * chosen on the Task table alone (index `clinic_ik, last_modified`), and only its rows' bundles
   * are read: `entry` is taken out of each once (one detoasting of the stored JSON), the JSON paths
   * then run on that value.
   */
  async summaries(query: SummaryQuery): Promise<SummaryRow[]> {
    if (query.clinicIks.length === 0) return [];
    return this.prisma.$queryRaw<SummaryRow[]>`
      WITH page AS (
        SELECT t.id, t.request_id, t.status, t.business_status, t.authored_on, t.last_modified, t.sent_version
          FROM ${this.task} t
         WHERE ${Prisma.join(this.conditions(query), ' AND ')}
         ORDER BY (t.status = 'requested') DESC, t.last_modified DESC, t.id DESC
         LIMIT ${query.count}::int OFFSET ${query.offset}::bigint
      ), parts AS (
        SELECT p.*, r.referrer_ik, e.entries,
               jsonb_path_query_first(e.entries, '$[*].resource ? (@.resourceType == "ServiceRequest")') AS sr,
               jsonb_path_query_first(e.entries, '$[*].resource ? (@.resourceType == "Patient")') AS pat
          FROM page p
          JOIN ${this.request} r ON r.id = p.request_id
          JOIN ${this.version} v ON v.request_id = p.request_id AND v.version = p.sent_version
         CROSS JOIN LATERAL (SELECT v.bundle -> 'entry' AS entries) e
      )
      SELECT id, status, business_status, authored_on, last_modified, sent_version, referrer_ik,
             sr ->> 'status' AS request_status,
             sr ->> 'intent' AS intent,
             sr #>> '{orderDetail,0,coding,0,code}' AS order_detail,
             sr #>> '{code,coding,0,code}' AS service_type,
             sr ->> 'occurrenceDateTime' AS occurrence_date,
             sr #> '{performerType,coding}' AS performer_type,
             jsonb_path_query_first(entries, '$[*] ? (@.fullUrl == $ref).resource.name', jsonb_build_object('ref', sr #> '{requester,reference}')) #>> '{}' AS requester_name,
             pat ->> 'gender' AS gender,
             pat ->> 'birthDate' AS birth_date,
             jsonb_path_exists(pat, '$.name[*]._family.extension[*] ? (@.valueCode == "MSK")') AS masked,
             d.diagnosis ->> 'code' AS diagnosis_code,
             d.diagnosis ->> 'display' AS diagnosis_display
        FROM parts
       CROSS JOIN LATERAL (
         SELECT jsonb_path_query_first(entries, '$[*].resource ? (@.resourceType == "Condition").code.coding[*] ? (@.system == $icd)', jsonb_build_object('icd', ${ICD10GM_SYSTEM}::text)) AS diagnosis
       ) d
       ORDER BY (status = 'requested') DESC, last_modified DESC, id DESC`;
  }

  /** How many of the clinic's Tasks are in each status. */
  async countsByStatus(clinicIks: readonly string[]): Promise<Map<string, number>> {
    if (clinicIks.length === 0) return new Map();
    const rows = await this.prisma.$queryRaw<{ status: string; count: number }[]>`
      SELECT t.status, count(*)::int AS count FROM ${this.task} t WHERE t.clinic_ik IN (${Prisma.join(clinicIks)}) GROUP BY t.status`;
    return new Map(rows.map((row) => [row.status, row.count]));
  }

  async findTask(taskId: string): Promise<TaskOfClinic | undefined> {
    const row = await this.prisma.clinicTask.findUnique({ where: { id: taskId }, select: { id: true, clinicIk: true, requestId: true, sentVersion: true } });
    return row ?? undefined;
  }

  /** The request's versions up to `upTo`, oldest first. */
  async versionsUpTo(requestId: string, upTo: number): Promise<RequestVersionView[]> {
    const rows = await this.prisma.requestVersion.findMany({
      where: { requestId, version: { lte: upTo } },
      orderBy: { version: 'asc' },
      select: { version: true, receivedAt: true, bundle: true },
    });
    return rows.map((row) => ({ version: row.version, receivedAt: row.receivedAt.toISOString(), bundle: row.bundle }));
  }

  private conditions(query: SummaryQuery): Prisma.Sql[] {
    return [
      Prisma.sql`t.clinic_ik IN (${Prisma.join(query.clinicIks)})`,
      ...(query.statuses ? [Prisma.sql`t.status IN (${Prisma.join(query.statuses)})`] : []),
      ...(query.modifiedSince ? [Prisma.sql`t.last_modified >= ${query.modifiedSince.toISOString()}::timestamptz`] : []),
    ];
  }
}
