import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { AdmissionOverdueWebhook, AdmissionResponseWebhook } from '@bedrequest/contracts';
import { json } from './responses';

/** The event types a subscription can be for, each with what it tells and the body it is sent with. */
const EVENTS = [
  {
    type: 'AdmissionResponse',
    summary: "A clinic's answer, POSTed to the callbackUrl of each subscription to AdmissionResponse",
    body: AdmissionResponseWebhook,
  },
  {
    type: 'AdmissionOverdue',
    summary:
      "A clinic's Task past its answer deadline unanswered, POSTed to the callbackUrl of each subscription to AdmissionOverdue; numbered in that subscription's own sequence",
    body: AdmissionOverdueWebhook,
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
    summary: event.summary,
    description: [
      'At least once: deduplicate by webhook-id. Events of one request arrive in the order they happened; `sequence` counts the subscription’s events without gaps (a jump: ask GET /api/v1/subscriptions/{id}/events?since=<last>).',
      'Verify the signature over the raw body and refuse a webhook-timestamp more than 5 minutes off. Redirects are not followed; an attempt without an answer within 10 s failed.',
    ].join(' '),
    request: {
      headers: z.object({
        'webhook-id': z.uuid().describe('The event id, the same on every attempt (and the body’s id)'),
        'webhook-timestamp': z.string().regex(/^\d+$/).describe('When this attempt was made, in Unix seconds; signed'),
        'webhook-signature': z
          .string()
          .regex(/^v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*$/)
          .describe('Space-separated `v1,<base64 HMAC-SHA256>` signatures of `{webhook-id}.{webhook-timestamp}.{body}`'),
      }),
      body: { required: true, content: json(event.body) },
    },
    responses: {
      '2XX': { description: 'Delivered' },
      410: { description: 'Gone: the subscription is disabled; no more attempts until its address is set again (PUT)' },
      429: { description: 'Not before Retry-After (seconds or an HTTP date, at most 24 h ahead), nor before the schedule’s next delay' },
      503: { description: 'As 429: not before Retry-After' },
      default: {
        description:
          'Anything else, or no answer: tried again on the schedule (5 s, 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h; ±10 %), then given up',
      },
    },
  });
}
