import type { AuditEvent } from '@medplum/fhirtypes';
import { auditEventAccess, type AuditEntryFacts } from '../access';
import { Prisma } from '../generated/prisma/client';
import { intakeTable, type SqlRunner } from '../persistence';
import { instantIn } from '../search';
import type { AnchorRecord } from './anchor-chain';
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

/** The columns of `audit_anchors` as an AnchorRecord. */
const ANCHOR_COLUMNS = Prisma.sql`day::text AS day, head_seq AS "headSeq", head_hash AS "headHash", previous_hash AS "previousHash", hash, kek_id AS "kekId", mac`;

/** Entries a verification reads per statement: a day of polling can hold millions. */
const CHAIN_PAGE_SIZE = 5000;

/** All of intake's SQL about the audit trail. Raw statements name the schema (they run on the connection's search_path). */
export class AuditTrailRepository {
  private readonly table: Prisma.Sql;
  private readonly append: Prisma.Sql;
  private readonly anchorTable: Prisma.Sql;

  constructor(
    private readonly run: SqlRunner,
    schema: string,
  ) {
    this.table = intakeTable(schema, 'audit_events');
    this.anchorTable = intakeTable(schema, 'audit_anchors');
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

  /** Every anchor, oldest first (one a day: a few thousand rows over years). */
  async anchors(since?: string): Promise<AnchorRecord[]> {
    return this.run.rows<AnchorRecord>(Prisma.sql`
      SELECT ${ANCHOR_COLUMNS} FROM ${this.anchorTable}
       WHERE ${since === undefined ? Prisma.sql`true` : Prisma.sql`day >= ${since}::date`}
       ORDER BY day`);
  }

  /** The last anchor that names the one before it (or the last of all, where none does yet) and every anchor after it, oldest first. */
  async lastAnchors(): Promise<AnchorRecord[]> {
    return this.run.rows<AnchorRecord>(Prisma.sql`
      SELECT ${ANCHOR_COLUMNS} FROM ${this.anchorTable}
       WHERE day >= coalesce((SELECT max(day) FROM ${this.anchorTable} WHERE previous_hash IS NOT NULL), (SELECT max(day) FROM ${this.anchorTable}))
       ORDER BY day`);
  }

  /** The first day with entries. */
  async firstEntryDay(): Promise<string | undefined> {
    const [row] = await this.run.rows<{ day: string | null }>(Prisma.sql`SELECT min(day)::text AS day FROM ${this.table}`);
    return row?.day ?? undefined;
  }

  /** The head (last entry) of each day from `from` to before `before` that has entries: one index probe a day. */
  async heads(from: string, before: string): Promise<ChainHead[]> {
    return this.run.rows<ChainHead>(Prisma.sql`
      SELECT d.day::date::text AS day, h.seq, h.hash
        FROM generate_series(${from}::date, ${before}::date - 1, interval '1 day') AS d(day)
        JOIN LATERAL (SELECT e.seq, e.hash FROM ${this.table} e WHERE e.day = d.day::date ORDER BY e.seq DESC LIMIT 1) h ON true
       ORDER BY 1`);
  }

  /**
   * Records anchors in one statement, all or none: a day another process anchored meanwhile fails it
   * with a unique violation (23505), and the anchors after that day, which name the hash of its
   * anchor as this process made it, are not stored beside another.
   */
  async addAnchors(anchors: readonly AnchorRecord[]): Promise<number> {
    if (anchors.length === 0) return 0;
    const rows = await this.run.rows<{ day: string }>(Prisma.sql`
      INSERT INTO ${this.anchorTable} (day, head_seq, head_hash, previous_hash, hash, kek_id, mac)
      SELECT day, "headSeq", "headHash", "previousHash", hash, "kekId", mac
        FROM jsonb_to_recordset(${JSON.stringify(anchors)}::jsonb)
          AS a(day date, "headSeq" integer, "headHash" text, "previousHash" text, hash text, "kekId" text, mac text)
      RETURNING day::text AS day`);
    return rows.length;
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
