import { randomUUID } from 'node:crypto';
import type { AuditEvent, AuditEventAgent, Bundle } from '@medplum/fhirtypes';
import { HttpError } from '@bedrequest/http';
import type { QueryRefusal, Viewer } from '../tasks/task-search';
import type { AuditAnchors } from './audit-anchors';
import { ChainChecker, type ChainBreak } from './audit-chain';
import { auditEntryOf, type AuditEntry, type AuditRecord } from './audit-event';
import { parseAuditSearch } from './audit-search';
import type { AuditTrailRepository } from './audit-trail.repository';
import { GroupCommit } from './group-commit';

/** Who reads: the visibility rule's party, the access token's `sub`, and the client's address the gateway forwarded. */
export interface Caller {
  viewer: Viewer;
  user: string;
  address?: string;
}

/** What `verify` found: the days and entries checked, and the first entry that breaks its chain, if any. */
export interface ChainReport {
  days: string[];
  entries: number;
  broken?: ChainBreak;
}

/**
 * The audit trail (issue 14): records reads (committed before the read is answered) and serves the
 * AuditEvent search and the chain verification. Changes are recorded by the request batch in its
 * own statement (AdmissionRequestRepository.write), with entries made by `entriesOf` alike.
 */
export class AuditTrail {
  private readonly reads: GroupCommit<AuditEntry>;

  constructor(
    private readonly repository: AuditTrailRepository,
    private readonly now: () => Date = () => new Date(),
    /** Where given, `verify` checks each day's head against its anchor too (the command line's). */
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
   * A searchset of the AuditEvents the viewer may see (search.html#return): `total`, a `self` link
   * and a `next` link while more pages follow, both with every parameter of the query.
   */
  async search(query: Record<string, unknown>, viewer: Viewer, links: { base: string; path: string }): Promise<{ ok: true; bundle: Bundle } | QueryRefusal> {
    const parsed = parseAuditSearch(query, viewer);
    if (!parsed.ok) return parsed;
    const { search } = parsed;
    const page = await this.repository.search(search);
    const pageUrl = (offset: number) => `${links.base}${links.path}${queryStringOf(query, offset)}`;
    const more = search.count > 0 && search.offset + search.count < page.total;
    return {
      ok: true,
      bundle: {
        resourceType: 'Bundle',
        type: 'searchset',
        total: page.total,
        link: [{ relation: 'self', url: pageUrl(search.offset) }, ...(more ? [{ relation: 'next', url: pageUrl(search.offset + search.count) }] : [])],
        // FHIR JSON has no empty arrays: a page without matches has no `entry`.
        ...(page.events.length > 0
          ? {
              entry: page.events.map((event) => ({
                fullUrl: `${links.base}${links.path}/${event.id}`,
                // resourceType first, as FHIR JSON is written (jsonb orders keys by length).
                resource: { ...asSeenBy(viewer, event), resourceType: 'AuditEvent' as const },
                search: { mode: 'match' as const },
              })),
            }
          : {}),
      },
    };
  }

  /** Recomputes the chains of every day (or of `day`, YYYY-MM-DD) and names the first broken entry. */
  async verify(day?: string): Promise<ChainReport> {
    const days = await this.repository.days(day);
    let entries = 0;
    for (const chainDay of days) {
      const checker = new ChainChecker(chainDay);
      let head: { seq: number; hash: string; id: string } | undefined;
      for await (const stored of this.repository.chain(chainDay)) {
        entries += 1;
        const broken = checker.check(stored);
        if (broken) return { days, entries, broken };
        head = { seq: stored.seq, hash: stored.hash, id: stored.columns.id };
      }
      const unanchored = head && (await this.anchors?.check({ day: chainDay, seq: head.seq, hash: head.hash }));
      if (head && unanchored) return { days, entries, broken: { day: chainDay, seq: head.seq, id: head.id, reason: unanchored } };
    }
    return { days, entries };
  }
}

/**
 * An entry as `viewer` may see it: who of a party acted (`altId`, the access token's `sub`) and from
 * where (`network`) only when the viewer is of that party, so that a referrer sees which clinic read
 * or answered its request, or that an administrator did, and not the clinic's people or the
 * operator. A referrer's own agents are the referrer's (its requests only ever carry its own); a
 * clinic sees only entries of its own access. The stored entry, which the hash chain covers, is unchanged.
 */
export function asSeenBy(viewer: Viewer, event: AuditEvent): AuditEvent {
  const own = (agent: AuditEventAgent) => agent.role?.[0]?.text === viewer.role;
  if (event.agent.every(own)) return event;
  return { ...event, agent: event.agent.map((agent) => (own(agent) ? agent : withoutPerson(agent))) };
}

function withoutPerson(agent: AuditEventAgent): AuditEventAgent {
  const rest = { ...agent };
  delete rest.altId;
  delete rest.network;
  return rest;
}

/** The entries of records made now: each a new id and this instant. */
export function entriesOf(records: readonly AuditRecord[], recorded: Date): AuditEntry[] {
  return records.map((record) => auditEntryOf(record, randomUUID(), recorded));
}

/** The query string of a search page (`?…`, empty for none): the query's parameters, `_offset` replaced. */
export function queryStringOf(query: Record<string, unknown>, offset: number): string {
  const params = new URLSearchParams();
  for (const [name, value] of Object.entries(query)) {
    if (name === '_offset') continue;
    for (const single of Array.isArray(value) ? value : [value]) params.append(name, String(single));
  }
  if (offset > 0) params.set('_offset', String(offset));
  const parameters = params.toString();
  return parameters ? `?${parameters}` : '';
}
