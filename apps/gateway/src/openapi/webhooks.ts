import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { AdmissionOverdueWebhook, AdmissionResponseWebhook, HeartbeatWebhook } from '@bedrequest/contracts';
import { json, NO_TOKEN } from './responses';

/** The event types a subscription can be for, each with what it tells and the body it is sent with. */
const EVENTS = [
  {
    type: 'AdmissionResponse',
    summary:
      "A clinic's answer, POSTed to the callbackUrl of each subscription to AdmissionResponse; `data` is the whole Task (payload `full`) or its ids and state only (payload `id-only`: read the Task with GET /api/v2/fhir/Task/{id})",
    body: AdmissionResponseWebhook,
  },
  {
    type: 'AdmissionOverdue',
    summary:
      "A clinic's Task past its answer deadline unanswered, POSTed to the callbackUrl of each subscription to AdmissionOverdue; numbered in that subscription's own sequence; `data` whole or id-only as the subscription's payload says",
    body: AdmissionOverdueWebhook,
  },
  {
    type: 'Heartbeat',
    summary:
      'To a subscription with heartbeatSeconds, when nothing was delivered to it for that long: no sequence number of its own, `data.lastSequence` the subscription’s latest one (seen less? ask events?since=<your last>). One attempt, not retried, not in the delivery log; signed like the events',
    body: HeartbeatWebhook,
  },
] as const;

/**
 * What the service sends, not what it answers (OpenAPI 3.1 `webhooks`): the deliveries of the
 * notifier, one per event type (docs/webhooks.md), signed as Standard Webhooks sign
 * (https://www.standardwebhooks.com): `v1,` + base64 HMAC-SHA256 of `{webhook-id}.{webhook-timestamp}.{body}`
 * keyed with the base64-decoded part of the subscription's secret after `whsec_`.
 */
export function registerWebhooks(registry: OpenAPIRegistry): void {
  for (const event of EVENTS) registerWebhook(registry, event);
}

function registerWebhook(registry: OpenAPIRegistry, event: (typeof EVENTS)[number]): void {
  registry.registerWebhook({
    method: 'post',
    path: event.type,
    operationId: `receive${event.type}`,
    summary: event.summary,
    // The service presents no token to the receiver: the signature headers below authenticate it.
    security: NO_TOKEN,
    description: [
      'At least once: deduplicate by webhook-id. Events of one request arrive in the order they happened; `sequence` counts the subscription’s events without gaps (a jump: ask GET /api/v1/subscriptions/{id}/events?since=<last>).',
      'Verify the signature over the raw body and refuse a webhook-timestamp more than 5 minutes off. Redirects are not followed; an attempt without an answer within 10 s failed.',
    ].join(' '),
    request: {
      headers: z.object({
        'webhook-id': z.uuid().describe('The event id, the same on every attempt (and the body’s id); a heartbeat’s own id'),
        'webhook-timestamp': z.string().regex(/^\d+$/).describe('When this attempt was made, in Unix seconds; signed'),
        'webhook-signature': z
          .string()
          .regex(/^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$/)
          .describe(
            'Space-separated `v1,<base64 HMAC-SHA256>` signatures of `{webhook-id}.{webhook-timestamp}.{body}`: one with the current secret, and after a rotation (POST /api/v1/subscriptions/{id}/rotate-secret) until previousSecretExpiresAt a second one with the previous secret; accept the webhook if any one verifies',
          ),
      }),
      body: { required: true, content: json(event.body) },
    },
    responses: event.type === 'Heartbeat' ? HEARTBEAT_RESPONSES : EVENT_RESPONSES,
  });
}

/** A heartbeat is one attempt: what the receiver answers changes nothing (docs/webhooks.md, "Heartbeats"). */
const HEARTBEAT_RESPONSES = {
  '2XX': { description: 'Received' },
  default: { description: 'Anything else, or no answer: not retried, the subscription unchanged; the next heartbeat follows after heartbeatSeconds' },
};

const EVENT_RESPONSES = {
  '2XX': { description: 'Delivered' },
  410: { description: 'Gone: the subscription is disabled; no more attempts until its address is set again (PUT)' },
  429: { description: 'Not before Retry-After (seconds or an HTTP date, at most 24 h ahead), nor before the schedule’s next delay' },
  503: { description: 'As 429: not before Retry-After' },
  default: {
    description: 'Anything else, or no answer: tried again on the schedule (5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h; ±10 %), then given up',
  },
};
