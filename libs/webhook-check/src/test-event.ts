import { randomBytes, randomUUID } from 'node:crypto';
import { Webhook } from 'standardwebhooks';
import type { AdmissionResponseWebhook } from '@bedrequest/contracts';
import { ADMISSION_RESPONSE_STATUSES, IK_NUMBER_SYSTEM, URI_IDENTIFIER_SYSTEM, fhirSystems } from '@bedrequest/fhir-model';

/** FHIR's label for test data (v3-ActReason HTEST), so that a receiver that looks can tell. */
const TEST_DATA_LABEL = { system: 'http://terminology.hl7.org/CodeSystem/v3-ActReason', code: 'HTEST', display: 'test health data' };
/** No IK is all zeros, and `.invalid` never resolves (RFC 2606): neither can be taken for a real party or request. */
const NO_PARTY_IK = '000000000';
const NO_REQUEST_BASE = 'https://receiver-check.invalid/fhir/ServiceRequest';

/**
 * An `AdmissionResponse` event in the shape of a real delivery's body (docs/webhooks.md, "Delivery";
 * libs/contracts `AdmissionResponseWebhook`): a clinic accepted a request. Every part of it is made
 * up: no request, party or patient is behind it, and the Task says so (HTEST, a `receiver-check-`
 * request identifier, a note).
 */
export function testEvent(now: Date): AdmissionResponseWebhook {
  const at = now.toISOString();
  const party = { identifier: { system: IK_NUMBER_SYSTEM, value: NO_PARTY_IK } };
  return {
    id: randomUUID(),
    type: 'AdmissionResponse',
    timestamp: at,
    sequence: 1,
    data: {
      resourceType: 'Task',
      id: randomUUID(),
      meta: { lastUpdated: at, security: [TEST_DATA_LABEL] },
      status: 'accepted',
      intent: 'order',
      basedOn: [{ identifier: { system: URI_IDENTIFIER_SYSTEM, value: `${NO_REQUEST_BASE}/receiver-check-${randomUUID()}` } }],
      owner: party,
      requester: party,
      authoredOn: at,
      lastModified: at,
      businessStatus: {
        coding: [{ system: fhirSystems().admissionResponseStatusSystem, code: 'accepted', display: ADMISSION_RESPONSE_STATUSES.accepted }],
      },
      note: [{ text: 'Test event of the receiver check (docs/webhooks.md, "Checking your receiver"): no request and no patient behind it.', time: at }],
    },
  };
}

export interface SignedRequest {
  readonly body: string;
  readonly headers: Record<string, string>;
}

/**
 * The POST of `body` as the notifier makes it (apps/notifier/src/delivery/webhook-message.ts,
 * webhook-sender.ts): the same headers, signed with `secret` over "{id}.{timestamp}.{body}" by the
 * `standardwebhooks` package, `attemptTime` as webhook-timestamp.
 */
export function signedRequest(id: string, body: string, secret: string, attemptTime: Date): SignedRequest {
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'user-agent': 'bedrequest-webhooks/1',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(attemptTime.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(id, attemptTime, body),
    },
  };
}

/** A secret of the service's form that is not the subscription's: what a forged webhook would be signed with. */
export function anotherSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}
