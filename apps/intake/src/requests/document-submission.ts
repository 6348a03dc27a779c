import { randomUUID } from 'node:crypto';
import type { IntakeVerdictV1, TaskStatus } from '@bedrequest/contracts';
import { ownsRequest } from '../access';
import type { BatchState } from './batch-state';
import type { FingerprintedCommand } from './intake-commands';
import type { StoredTask } from './request-records';
import { auditedRequest, referrerAgent, senderOf } from './request-audit';
import { DEFAULT_REQUEST_LIMITS, holdingsOf, overLimit } from './request-limits';
import { erased, rejected, verdict } from './verdicts';

/**
 * A DocumentBundle applied to the batch (docs/decisions.md, "Requests": a document for a request
 * that does not exist is 404, for another referrer's 403; none for a revoked request): stored once
 * (a retransmission is recognised by its fingerprint), within what one request may hold. Every
 * Task that receives it (all but the cancelled ones) changes, so that its clinic sees it (its
 * `lastModified`, its history); one whose clinic asked for more data is reopened (`delivered`).
 * No message: the clinic did not answer (no AdmissionResponse), and the request has no new version
 * for routing to fan out.
 */
export function submitDocument(batch: BatchState, command: Extract<FingerprintedCommand, { kind: 'document' }>): IntakeVerdictV1 {
  const state = batch.request(command.requestIdentifier);
  if (!state) return rejected('not-found', 'not-found', 'there is no request with this identifier');
  if (!ownsRequest(command.submitter.partyId, state.request)) return rejected('forbidden', 'forbidden', 'the request belongs to another referrer');
  if (state.request.erased) return erased();
  // docs/decisions.md: further bundles for a revoked identifier are rejected with 409, documents too.
  if (state.request.status === 'revoked') return rejected('conflict', 'conflict', 'the request was revoked; no further bundles are accepted for it');
  if (batch.documentHashes(state.request.id).includes(command.fingerprint.value)) return verdict('unchanged', { requestIdentifier: command.requestIdentifier });
  const refusal = overLimit(batch.context.limits ?? DEFAULT_REQUEST_LIMITS, holdingsOf(state.request), { kind: 'document', bytes: command.fingerprint.bytes });
  if (refusal) return refusal;
  state.request.documentCount += 1;
  state.request.storedBytes += command.fingerprint.bytes;
  batch.addDocumentHash(state.request.id, command.fingerprint.value);
  const { count, kinds } = documentsOf(command.bundle);
  for (const task of state.tasks) {
    const delivery = delivered(task);
    if (delivery) batch.recordDocuments(task, { ...delivery, count, kinds });
  }
  const id = randomUUID();
  batch.audit({
    interaction: 'create',
    agent: referrerAgent(command.submitter, state.request),
    request: auditedRequest(state.request),
    resources: [{ type: 'DocumentBundle', id }],
  });
  batch.changes.documents.push({
    id,
    requestId: state.request.id,
    bundle: command.bundle,
    canonicalHash: command.fingerprint.value,
    messageId: command.meta.messageId,
    receivedAt: batch.context.now,
    expectedVersion: state.isNew ? null : state.readVersion,
    submittedBy: senderOf(command.submitter),
  });
  return verdict('accepted', { requestIdentifier: command.requestIdentifier });
}

/**
 * What documents do to a Task (docs/decisions.md, "Requests"): a cancelled one does not receive
 * them (its clinic reads what came before the cancellation). One whose latest answer is
 * `more-data-required` and that waits for the referrer (`on-hold`), or was reopened already, is
 * `requested` again and keeps that answer until the next one, as after a supplement; the selected
 * clinic's stays `in-progress`. Any other keeps its status.
 */
export function delivered(task: Pick<StoredTask, 'status' | 'businessStatus'>): { status: TaskStatus; reopened: boolean } | undefined {
  if (task.status === 'cancelled') return undefined;
  const reopens = task.businessStatus === 'more-data-required' && (task.status === 'on-hold' || task.status === 'requested');
  return reopens ? { status: 'requested', reopened: true } : { status: task.status, reopened: false };
}

/** At most this many kinds, of at most this many characters, per delivery in the history. */
const MAX_KINDS = 20;
const MAX_KIND_LENGTH = 200;

/**
 * How many documents a DocumentBundle carries (its DocumentReference entries) and their kinds for
 * the history: each one's `type` (text, else its first coding's display or code), else its first
 * attachment's title; distinct, in order.
 */
export function documentsOf(bundle: Record<string, unknown>): { count: number; kinds: string[] } {
  const entries = Array.isArray(bundle.entry) ? (bundle.entry as unknown[]) : [];
  const references = entries.map((entry) => (entry as { resource?: DocumentReferenceLike } | null)?.resource).filter(isDocumentReference);
  const kinds = references.flatMap((reference) => {
    const coding = reference.type?.coding?.[0];
    const kind = [reference.type?.text, coding?.display, coding?.code, reference.content?.[0]?.attachment?.title].find(
      (value): value is string => typeof value === 'string' && value.trim() !== '',
    );
    return kind ? [kind.trim().slice(0, MAX_KIND_LENGTH)] : [];
  });
  return { count: references.length, kinds: [...new Set(kinds)].slice(0, MAX_KINDS) };
}

interface DocumentReferenceLike {
  resourceType?: unknown;
  type?: { text?: unknown; coding?: { display?: unknown; code?: unknown }[] };
  content?: { attachment?: { title?: unknown } }[];
}

function isDocumentReference(resource: DocumentReferenceLike | undefined): resource is DocumentReferenceLike {
  return typeof resource === 'object' && resource !== null && resource.resourceType === 'DocumentReference';
}
