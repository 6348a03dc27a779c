import type { ClinicAnswerSubmittedV1, Submitter } from '@bedrequest/contracts';
import type { AuditRecord } from '../audit';
import type { StoredRequest } from './request-records';

// Who and what the audit trail records of a batch's changes (docs/data-protection.md).

/**
 * The referrer's person as its message names them (with their display name), for the IK its
 * request names, and the address they connected from (when the gateway knew it).
 */
export function referrerAgent(submitter: Submitter, request: StoredRequest): AuditRecord['agent'] {
  const person = { user: senderOf(submitter), ...(submitter.userName === undefined ? {} : { name: submitter.userName }) };
  return { kind: 'referrer', ...person, ik: request.referrerIk, ...(submitter.clientAddress ? { address: submitter.clientAddress } : {}) };
}

/** The person who sent a bundle: their user id, as versions and documents store it (`submitted_by`). */
export function senderOf(submitter: Submitter): string {
  // Without userId (an earlier gateway's message), partyId was its party's only user: read until release 1.2 (docs/compatibility.md).
  return submitter.userId ?? submitter.partyId;
}

/** Who answered: the clinic's person (with their display name), or routing for an automatic answer (made on the clinic's behalf from bed counts: not the clinic's own access). */
export function answerAgent(answer: ClinicAnswerSubmittedV1): AuditRecord['agent'] {
  if (answer.source !== 'clinic') return { kind: 'service', service: 'routing' };
  const name = answer.userName === undefined ? {} : { name: answer.userName };
  return { kind: 'clinic', ik: answer.clinicIk, user: answer.user, ...name, ...(answer.clientAddress ? { address: answer.clientAddress } : {}) };
}

/** The request as the audit trail names it: its identifier, its owner and, for a new version, that version. */
export function auditedRequest(request: StoredRequest, version?: number): AuditRecord['request'] {
  return { identifier: request.identifier, ownerPartyId: request.referrerPartyId, ...(version === undefined ? {} : { version }) };
}
