import { randomUUID } from 'node:crypto';
import type { IntakeVerdictV1 } from '@bedrequest/contracts';
import { ownsRequest } from '../access';
import type { BatchState } from './batch-state';
import type { FingerprintedCommand } from './intake-commands';
import { auditedRequest, referrerAgent, senderOf } from './request-audit';
import { DEFAULT_REQUEST_LIMITS, holdingsOf, overLimit } from './request-limits';
import { erased, rejected, verdict } from './verdicts';

/**
 * A DocumentBundle applied to the batch (docs/decisions.md, "Requests": a document for a request
 * that does not exist is 404, for another referrer's 403; none for a revoked request): stored once
 * (a retransmission is recognised by its fingerprint), within what one request may hold.
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
