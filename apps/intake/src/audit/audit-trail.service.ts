import { randomUUID } from 'node:crypto';
import type { Bundle } from '@medplum/fhirtypes';
import { HttpError } from '@bedrequest/http';
import { auditEventAccess, type Viewer } from '../access';
import { nextPosition, pageQueryString, positionOf, type Position, type QueryRefusal } from '../search';
import type { AuditAnchors } from './audit-anchors';
import { exportDifference, type AnchorExport } from './anchor-export';
import { ChainChecker, type ChainBreak } from './audit-chain';
import { auditEntryOf, type AuditEntry, type AuditRecord } from './audit-event';
import { AUDIT_KEYS, parseAuditSearch } from './audit-search';
import type { AuditTrailRepository } from './audit-trail.repository';
import { GroupCommit } from './group-commit';

/** What `verify` found: the days and entries checked, and the first entry that breaks its chain (or the first day, where no entry is to blame), if any. */
export interface ChainReport {
  days: string[];
  entries: number;
  broken?: ChainBreak | DayBreak;
}

/** A day that does not hold as a whole: its anchor missing, not following the one before, or not the exported one. */
export interface DayBreak {
  day: string;
  reason: string;
}

/**
 * The audit trail (docs/data-protection.md, "Audit trail"): records reads (committed before the
 * read is answered) and serves the AuditEvent search and the chain verification. Changes are
 * recorded by the request batch in its own statement (AdmissionRequestRepository.write), with
 * entries made by `entriesOf` alike.
 */
export class AuditTrail {
  private readonly reads: GroupCommit<AuditEntry>;

  constructor(
    private readonly repository: AuditTrailRepository,
    private readonly now: () => Date = () => new Date(),
    /** Where given, `verify` checks each day against its anchor and the anchors' chain too (the command line's). */
    private readonly anchors?: AuditAnchors,
  ) {
    this.reads = new GroupCommit((entries) => repository.appendEntries(entries));
  }

  /**
   * Records reads: resolves once their entries are committed. A read whose entry cannot be stored
   * is not answered (503): no patient data leaves without its record.
   */
  async record(records: readonly AuditRecord[]): Promise<void> {
    try {
      await this.reads.add(entriesOf(records, this.now()));
    } catch (error) {
      throw new HttpError('unavailable', 'the access could not be recorded in the audit trail; please retry', { retryAfterSeconds: 5, cause: error });
    }
  }

  /**
   * A searchset of the AuditEvents the access policy lets the viewer see (search.html#return): a
   * `self` link and a `next` link while more pages follow, both with every parameter of the query
   * (the next page's position by `_offset` or `_cursor`, search/paging.ts), and `total` with
   * `_total=accurate`. Each entry is checked against the policy again before it leaves, and shown
   * as the viewer may see it.
   */
  async search(query: Record<string, unknown>, viewer: Viewer, links: { base: string; path: string }): Promise<{ ok: true; bundle: Bundle } | QueryRefusal> {
    const parsed = parseAuditSearch(query, viewer);
    if (!parsed.ok) return parsed;
    const { search } = parsed;
    const page = await this.repository.search(search);
    if (page.events.some((event) => !auditEventAccess.allows(viewer, event.facts))) {
      throw new Error('the AuditEvent search found an entry the access policy does not allow: its SQL and its check disagree');
    }
    const pageUrl = (position: Position) => `${links.base}${links.path}${pageQueryString(query, position)}`;
    const last = page.events.at(-1);
    return {
      ok: true,
      bundle: {
        resourceType: 'Bundle',
        type: 'searchset',
        ...(page.total === undefined ? {} : { total: page.total }),
        link: [
          { relation: 'self', url: pageUrl(positionOf(search, AUDIT_KEYS)) },
          ...(page.more && last ? [{ relation: 'next', url: pageUrl(nextPosition(search, page.events.length, last.key, AUDIT_KEYS)) }] : []),
        ],
        // FHIR JSON has no empty arrays: a page without matches has no `entry`.
        ...(page.events.length > 0
          ? {
              entry: page.events.map(({ resource }) => ({
                fullUrl: `${links.base}${links.path}/${resource.id}`,
                // resourceType first, as FHIR JSON is written (jsonb orders keys by length).
                resource: { ...auditEventAccess.asSeenBy(viewer, resource), resourceType: 'AuditEvent' as const },
                search: { mode: 'match' as const },
              })),
            }
          : {}),
      },
    };
  }

  /**
   * Recomputes the chains of every day (or of `day`, YYYY-MM-DD) and, where the anchors are given,
   * checks each day against its anchor and the anchors' chain (audit-anchors.ts), and with `exported`
   * the database's anchors against an export of them (anchor-export.ts); names the first broken day
   * or entry. The days are those with entries or an anchor, and every day since the anchors' chain
   * began, whose anchor it must hold.
   */
  async verify(options: { day?: string; exported?: AnchorExport } = {}): Promise<ChainReport> {
    const { day, exported } = options;
    const chain = await this.anchors?.chain();
    const withEntries = await this.repository.days(day);
    const exportedDays = exported ? [...exported.anchors.keys()] : [];
    const all = chain ? chain.days([...withEntries, ...exportedDays]) : [...new Set([...withEntries, ...exportedDays])].sort();
    const days = day === undefined ? all : all.filter((candidate) => candidate === day);
    const entryDays = new Set(withEntries);
    let entries = 0;
    for (const chainDay of days) {
      // The export first: where it differs, it is what the database no longer shows.
      const dayFault = (exported && exportDifference(exported, chainDay, chain?.anchorOf(chainDay))) || chain?.check(chainDay, entryDays.has(chainDay));
      if (dayFault) return { days, entries, broken: { day: chainDay, reason: dayFault } };
      const checker = new ChainChecker(chainDay);
      let head: { seq: number; hash: string; id: string } | undefined;
      for await (const stored of this.repository.chain(chainDay)) {
        entries += 1;
        const broken = checker.check(stored);
        if (broken) return { days, entries, broken };
        head = { seq: stored.seq, hash: stored.hash, id: stored.columns.id };
      }
      const unanchored = chain?.checkHead(chainDay, head);
      if (unanchored) return { days, entries, broken: { day: chainDay, ...(head ? { seq: head.seq, id: head.id } : {}), reason: unanchored } };
    }
    return { days, entries };
  }
}

/** The entries of records made now: each a new id and this instant. */
export function entriesOf(records: readonly AuditRecord[], recorded: Date): AuditEntry[] {
  return records.map((record) => auditEntryOf(record, randomUUID(), recorded));
}
