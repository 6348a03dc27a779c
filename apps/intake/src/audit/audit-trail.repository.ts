import type { AuditEvent } from '@medplum/fhirtypes';
import { Prisma } from '../generated/prisma/client';
import { intakeTable } from '../persistence/intake-table';
import type { SqlRunner } from '../persistence/sql-runner';
import { canonicalEntry, type StoredAuditEntry } from './audit-chain';
import { auditColumnsOf, type AuditEntry } from './audit-event';
import type { AuditSearch } from './audit-search';

/** What `append_audit_events` (the baseline migration) takes for each entry: its search columns and its canonical JSON. */
export function appendPayload(entries: readonly AuditEntry[]): string {
  return JSON.stringify(entries.map((entry) => ({ ...auditColumnsOf(entry), canonical: canonicalEntry(entry) })));
}

/** A page of an AuditEvent search and the number of all matches. */
export interface AuditPage {
  events: AuditEvent[];
  total: number;
}

interface StoredRow {
  day: string;
  seq: number;
  id: string;
  recorded: Date;
  request_identifier: string;
  owner_party_id: string;
  agent_user: string | null;
  agent_ik: string | null;
  resource: AuditEvent;
  previous_hash: string;
  hash: string;
}

/** Entries a verification reads per statement: a day of polling can hold millions. */
const CHAIN_PAGE_SIZE = 5000;

/** All of intake's SQL about the audit trail. Raw statements name the schema (they run on the connection's search_path). */
export class AuditTrailRepository {
  private readonly table: Prisma.Sql;
  private readonly append: Prisma.Sql;
  private readonly anchors: Prisma.Sql;

  constructor(
    private readonly run: SqlRunner,
    schema: string,
  ) {
    this.table = intakeTable(schema, 'audit_events');
    this.anchors = intakeTable(schema, 'audit_anchors');
    this.append = intakeTable(schema, 'append_audit_events');
  }

  /** Appends entries to their days' chains in one statement, its own transaction. */
  async appendEntries(entries: readonly AuditEntry[]): Promise<void> {
    if (entries.length === 0) return;
    await this.run.rows(Prisma.sql`SELECT ${this.append}(${appendPayload(entries)}::jsonb) AS appended`);
  }

  /**
   * One page of a search, ordered by `recorded` then id, and the number of all matches, in one
   * statement. The viewer's rule comes first: a referrer sees the entries about its own requests,
   * a clinic those whose agent is one of its IKs.
   */
  async search(search: AuditSearch): Promise<AuditPage> {
    const viewer = search.viewer;
    const conditions = [
      viewer.role === 'referrer'
        ? Prisma.sql`owner_party_id = ${viewer.partyId}`
        : viewer.ikNumbers.length
          ? Prisma.sql`agent_ik IN (${Prisma.join(viewer.ikNumbers)})`
          : Prisma.sql`false`,
      ...search.requestIdentifiers.map((identifier) => Prisma.sql`request_identifier = ${identifier}`),
      ...search.agents.map(({ value, ikOnly }) => (ikOnly ? Prisma.sql`agent_ik = ${value}` : Prisma.sql`(agent_user = ${value} OR agent_ik = ${value})`)),
      ...search.recorded.map((range) => {
        const bounds = [
          ...(range.from ? [Prisma.sql`recorded >= ${sqlInstant(range.from)}::timestamptz`] : []),
          ...(range.before ? [Prisma.sql`recorded < ${sqlInstant(range.before)}::timestamptz`] : []),
        ];
        const within = Prisma.join(bounds, ' AND ');
        return range.outside ? Prisma.sql`NOT (${within})` : Prisma.sql`(${within})`;
      }),
    ];
    const matching = Prisma.join(conditions, ' AND ');
    const rows = await this.run.rows<{ total: number; resource: AuditEvent | null }>(Prisma.sql`
      WITH page AS (
        SELECT resource, recorded, day, seq FROM ${this.table}
         WHERE ${matching}
         -- Entries of one instant (a batch's changes) in the order they were appended, the chain's.
         ORDER BY recorded, day, seq
         LIMIT ${search.count}::int OFFSET ${search.offset}::bigint
      )
      SELECT matched.total, page.resource
        FROM (SELECT count(*)::int AS total FROM ${this.table} WHERE ${matching}) matched
        LEFT JOIN page ON true
       ORDER BY page.recorded, page.day, page.seq`);
    return {
      total: rows[0]?.total ?? 0,
      events: rows.flatMap((row) => (row.resource ? [row.resource] : [])),
    };
  }

  /** The head (last entry) of every day before `before` (YYYY-MM-DD) that has entries and no anchor yet, oldest first. */
  async unanchoredHeads(before: string): Promise<ChainHead[]> {
    return this.run.rows<ChainHead>(Prisma.sql`
      SELECT DISTINCT ON (e.day) e.day::text AS day, e.seq, e.hash
        FROM ${this.table} e
       WHERE e.day < ${before}::date AND NOT EXISTS (SELECT 1 FROM ${this.anchors} a WHERE a.day = e.day)
       ORDER BY e.day, e.seq DESC`);
  }

  /** Records a day's anchor; a second one for the same day (another intake process) changes nothing. */
  async addAnchor(anchor: AuditAnchorRow): Promise<boolean> {
    const rows = await this.run.rows<{ day: string }>(Prisma.sql`
      INSERT INTO ${this.anchors} (day, head_seq, head_hash, kek_id, mac)
      VALUES (${anchor.day}::date, ${anchor.headSeq}::int, ${anchor.headHash}, ${anchor.kekId}, ${anchor.mac})
      ON CONFLICT (day) DO NOTHING
      RETURNING day::text AS day`);
    return rows.length > 0;
  }

  async anchorOf(day: string): Promise<AuditAnchorRow | undefined> {
    const [row] = await this.run.rows<AuditAnchorRow>(Prisma.sql`
      SELECT day::text AS day, head_seq AS "headSeq", head_hash AS "headHash", kek_id AS "kekId", mac FROM ${this.anchors} WHERE day = ${day}::date`);
    return row;
  }

  /** The days that have entries, oldest first; with `day`, that one if it has any. */
  async days(day?: string): Promise<string[]> {
    const rows = await this.run.rows<{ day: string }>(
      day === undefined
        ? Prisma.sql`SELECT DISTINCT day::text AS day FROM ${this.table} ORDER BY 1`
        : Prisma.sql`SELECT DISTINCT day::text AS day FROM ${this.table} WHERE day = ${day}::date`,
    );
    return rows.map((row) => row.day);
  }

  /** A day's chain in `seq` order, read a page at a time. */
  async *chain(day: string): AsyncGenerator<StoredAuditEntry> {
    let after = 0;
    for (;;) {
      const rows = await this.run.rows<StoredRow>(Prisma.sql`
        SELECT day::text AS day, seq, id::text AS id, recorded, request_identifier, owner_party_id, agent_user, agent_ik, resource, previous_hash, hash
          FROM ${this.table}
         WHERE day = ${day}::date AND seq > ${after}::int
         ORDER BY seq
         LIMIT ${CHAIN_PAGE_SIZE}::int`);
      for (const row of rows) {
        yield {
          day: row.day,
          seq: row.seq,
          columns: {
            id: row.id,
            recorded: row.recorded.toISOString(),
            request_identifier: row.request_identifier,
            owner_party_id: row.owner_party_id,
            agent_user: row.agent_user,
            agent_ik: row.agent_ik,
          },
          entry: { ownerPartyId: row.owner_party_id, resource: row.resource },
          previousHash: row.previous_hash,
          hash: row.hash,
        };
        after = row.seq;
      }
      if (rows.length < CHAIN_PAGE_SIZE) return;
    }
  }
}

/** The last entry of a day's chain. */
export interface ChainHead {
  day: string;
  seq: number;
  hash: string;
}

/** A row of `audit_anchors` (migration 0003): a day's head, and the MAC over it under the key derived from KEK `kekId`. */
export interface AuditAnchorRow {
  day: string;
  headSeq: number;
  headHash: string;
  kekId: string;
  mac: string;
}

/** An instant as PostgreSQL reads it (years past 9999 lose toISOString's `+0`, as in the Task search). */
function sqlInstant(instant: Date): string {
  return instant.toISOString().replace(/^\+0*/, '');
}
