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

  constructor(
    private readonly run: SqlRunner,
    schema: string,
  ) {
    this.table = intakeTable(schema, 'audit_events');
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

/** An instant as PostgreSQL reads it (years past 9999 lose toISOString's `+0`, as in the Task search). */
function sqlInstant(instant: Date): string {
  return instant.toISOString().replace(/^\+0*/, '');
}
