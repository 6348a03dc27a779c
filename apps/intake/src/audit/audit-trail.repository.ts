import type { AuditEvent } from '@medplum/fhirtypes';
import { auditEventAccess, type AuditEntryFacts } from '../access';
import { Prisma } from '../generated/prisma/client';
import { intakeTable, type SqlRunner } from '../persistence';
import { instantIn } from '../search';
import { canonicalEntry, type StoredAuditEntry } from './audit-chain';
import { auditColumnsOf, type AuditEntry } from './audit-event';
import type { AuditKey, AuditSearch } from './audit-search';

/** What `append_audit_events` (the baseline migration) takes for each entry: its search columns and its canonical JSON. */
export function appendPayload(entries: readonly AuditEntry[]): string {
  return JSON.stringify(entries.map((entry) => ({ ...auditColumnsOf(entry), canonical: canonicalEntry(entry) })));
}

/** An entry a search found: the AuditEvent, what the access policy reads of it, and its place in the search's order. */
export interface FoundAuditEvent {
  resource: AuditEvent;
  facts: AuditEntryFacts;
  key: AuditKey;
}

/** A page of an AuditEvent search, whether more follow, and the number of all matches when it was asked for. */
export interface AuditPage {
  events: FoundAuditEvent[];
  more: boolean;
  total?: number;
}

interface FoundRow {
  resource: AuditEvent;
  owner_party_id: string;
  agent_ik: string | null;
  recorded: Date;
  day: string;
  seq: number;
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
   * One page of a search in the chain's order (`recorded`, then `day` and `seq`: the entries of one
   * instant in the order they were appended), from `offset` or after the cursor's entry, with one
   * entry more that tells whether another page follows; with `_total=accurate` the number of all
   * matches too, in the same statement. The access policy's condition comes first.
   */
  async search(search: AuditSearch): Promise<AuditPage> {
    const conditions = [
      auditEventAccess.where(search.viewer),
      ...search.requestIdentifiers.map((identifier) => Prisma.sql`request_identifier = ${identifier}`),
      ...search.agents.map(({ value, ikOnly }) => (ikOnly ? Prisma.sql`agent_ik = ${value}` : Prisma.sql`(agent_user = ${value} OR agent_ik = ${value})`)),
      ...search.recorded.map((range) => instantIn(Prisma.raw('recorded'), range)),
    ];
    const matching = Prisma.join(conditions, ' AND ');
    const after = search.after
      ? Prisma.sql` AND (recorded, day, seq) > (${search.after[0]}::timestamptz, ${search.after[1]}::date, ${search.after[2]}::int)`
      : Prisma.empty;
    const page = Prisma.sql`
      SELECT resource, owner_party_id, agent_ik, recorded, day::text AS day, seq FROM ${this.table}
       WHERE ${matching}${after}
       ORDER BY recorded, day, seq
       LIMIT ${search.count === 0 ? 0 : search.count + 1}::int OFFSET ${search.offset}::bigint`;
    const rows = search.total
      ? await this.run.rows<Partial<FoundRow> & { total: number }>(Prisma.sql`
          WITH page AS (${page})
          SELECT matched.total, page.*
            FROM (SELECT count(*)::int AS total FROM ${this.table} WHERE ${matching}) matched
            LEFT JOIN page ON true
           ORDER BY page.recorded, page.day, page.seq`)
      : await this.run.rows<FoundRow>(page);
    const found = rows.filter((row): row is FoundRow => row.resource != null);
    return {
      events: found.slice(0, search.count).map((row) => ({
        resource: row.resource,
        facts: auditEventAccess.factsOf(row.owner_party_id, row.agent_ik, row.resource),
        key: [row.recorded.toISOString(), row.day, row.seq],
      })),
      more: found.length > search.count,
      ...(search.total ? { total: (rows[0] as { total?: number } | undefined)?.total ?? 0 } : {}),
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
