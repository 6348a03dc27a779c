import type { AuditEvent, AuditEventAgent } from '@medplum/fhirtypes';
import { Prisma } from '../generated/prisma/client';

/**
 * Who may see what of intake's data, in one place: every read path asks this module, searches for
 * its SQL predicate, reads of one thing for its check of that thing (as medplum's AccessPolicy is
 * applied both ways). A read path never writes its own condition on a party or an IK.
 *
 * The rules (docs/decisions.md, "Parties and credentials", "Errors"): a referrer sees its own
 * requests, a clinic the Tasks addressed to it, anything else is as if it did not exist (404, or no
 * match in a search). A clinic whose Task was cancelled keeps reading what it was sent before the
 * cancellation and never anything later. Service tokens never reach a read path: intake's internal
 * read API takes party tokens only (start.ts: `tokenVerifierFor(config, { services: false })`), and
 * the operator's command line reads by its own authority and records that itself.
 */

/** Who reads: the party of the verified access token. */
export type Viewer = ReferrerViewer | ClinicViewer;

export interface ReferrerViewer {
  role: 'referrer';
  partyId: string;
}

export interface ClinicViewer {
  role: 'clinic';
  ikNumbers: readonly string[];
}

/**
 * How a viewer stands to a Task and its request: the referrer that owns the request, the clinic
 * the Task is addressed to (open), the same clinic once its Task was cancelled (another clinic
 * selected, the selection withdrawn, the request revoked), or none of these.
 */
export type Relation = 'owner' | 'addressed' | 'cancelled' | 'none';

/** What the policy reads of a Task and its request. */
export interface TaskFacts {
  /** The referrer party owning the Task's request. */
  referrerPartyId: string;
  clinicIk: string;
  /** When the Task was cancelled; null while it is open (a reopened Task is open again). */
  cancelledAt: Date | null;
}

export function relationOf(viewer: Viewer, task: TaskFacts): Relation {
  if (viewer.role === 'referrer') return ownsRequest(viewer.partyId, task) ? 'owner' : 'none';
  if (!viewer.ikNumbers.includes(task.clinicIk)) return 'none';
  return task.cancelledAt ? 'cancelled' : 'addressed';
}

/** Whether `partyId` is the referrer owning a request: it alone may change, erase or send documents for it. */
export function ownsRequest(partyId: string, request: { referrerPartyId: string }): boolean {
  return request.referrerPartyId === partyId;
}

/**
 * Tasks: every relation but `none` sees the Task (a cancelled clinic sees it cancelled). `where`
 * is the SQL over the Task `t` alone (the Task carries its request's referrer), so that either
 * party's list pages on one index of the Task table without the join.
 */
export const taskAccess = {
  allows: (viewer: Viewer, task: Pick<TaskFacts, 'referrerPartyId' | 'clinicIk'>): boolean => relationOf(viewer, { ...task, cancelledAt: null }) !== 'none',
  /**
   * Whether the viewer is shown who of the clinic wrote each of the Task's notes: the clinic the
   * Task is addressed to (open or cancelled) sees its own people; the referrer sees the notes and
   * not the clinic's staff, as `asSeenBy` hides another party's people in the audit trail.
   */
  showsAuthors: (viewer: Viewer, task: Pick<TaskFacts, 'referrerPartyId' | 'clinicIk'>): boolean =>
    viewer.role === 'clinic' && relationOf(viewer, { ...task, cancelledAt: null }) === 'addressed',
  where(viewer: Viewer): Prisma.Sql {
    if (viewer.role === 'referrer') return Prisma.sql`t.referrer_party_id = ${viewer.partyId}`;
    return clinicIkIn(viewer, Prisma.raw('t.clinic_ik'));
  },
};

/**
 * What a clinic may read of its Task's request through the clinic API: the bundle versions it was
 * sent up to the Task's `sentVersion` (a cancelled Task is sent nothing more, so that is the last
 * one before the cancellation: docs/decisions.md, "Errors"), and the documents received up to the
 * cancellation (all of them while the Task is open). The referrer holds its own bundles and reads
 * none back (a referrer token on the clinic endpoints is 403 at the gateway); nobody else reads any.
 */
export interface RequestGrant {
  relation: 'addressed' | 'cancelled';
  clinicIk: string;
  versionsUpTo: number;
  documentsReceivedUpTo: Date | null;
}

export function requestGrantOf(viewer: Viewer, task: TaskFacts & { sentVersion: number }): RequestGrant | undefined {
  const relation = relationOf(viewer, task);
  if (relation !== 'addressed' && relation !== 'cancelled') return undefined;
  return { relation, clinicIk: task.clinicIk, versionsUpTo: task.sentVersion, documentsReceivedUpTo: relation === 'cancelled' ? task.cancelledAt : null };
}

/** What the policy reads of an audit entry: the columns of `audit_events` it filters on, and the role of its agent. */
export interface AuditEntryFacts {
  ownerPartyId: string;
  agentIk: string | null;
  agentRole: string | undefined;
}

/**
 * AuditEvents: a referrer sees every entry about its own requests, a clinic the entries of its own
 * access, which are those whose agent is a clinic of one of its IKs (an acute hospital's referrer
 * account may carry the same IK as a rehabilitation clinic; its entries are not the clinic's).
 * `where` is the SQL over `audit_events`; `asSeenBy` hides other parties' people.
 */
export const auditEventAccess = {
  allows(viewer: Viewer, entry: AuditEntryFacts): boolean {
    if (viewer.role === 'referrer') return entry.ownerPartyId === viewer.partyId;
    return entry.agentRole === 'clinic' && entry.agentIk !== null && viewer.ikNumbers.includes(entry.agentIk);
  },
  where(viewer: Viewer): Prisma.Sql {
    if (viewer.role === 'referrer') return Prisma.sql`owner_party_id = ${viewer.partyId}`;
    // The agent's role as auditEntryOf writes it (agent[0].role[0].text), which the hash chain covers.
    return Prisma.sql`${clinicIkIn(viewer, Prisma.raw('agent_ik'))} AND resource #>> '{agent,0,role,0,text}' = 'clinic'`;
  },
  factsOf(ownerPartyId: string, agentIk: string | null, event: AuditEvent): AuditEntryFacts {
    return { ownerPartyId, agentIk, agentRole: event.agent[0]?.role?.[0]?.text };
  },
  asSeenBy,
};

/**
 * An entry as `viewer` may see it: who of a party acted (`altId`, the person's user id, and `name`,
 * their display name) and from where (`network`) only when the viewer is of that party, so that a referrer sees which clinic read
 * or answered its request, or that an administrator did, and not the clinic's people or the
 * operator. A referrer's own agents are the referrer's (its requests only ever carry its own); a
 * clinic sees only entries of its own access. The stored entry, which the hash chain covers, is unchanged.
 */
function asSeenBy(viewer: Viewer, event: AuditEvent): AuditEvent {
  const own = (agent: AuditEventAgent) => agent.role?.[0]?.text === viewer.role;
  if (event.agent.every(own)) return event;
  return { ...event, agent: event.agent.map((agent) => (own(agent) ? agent : withoutPerson(agent))) };
}

function withoutPerson(agent: AuditEventAgent): AuditEventAgent {
  const rest = { ...agent };
  delete rest.altId;
  delete rest.name;
  delete rest.network;
  return rest;
}

/** `column IN (the clinic's IKs)`; a clinic token without IKs sees nothing. */
function clinicIkIn(viewer: ClinicViewer, column: Prisma.Sql): Prisma.Sql {
  return viewer.ikNumbers.length ? Prisma.sql`${column} IN (${Prisma.join(viewer.ikNumbers)})` : Prisma.sql`false`;
}
