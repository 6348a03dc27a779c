import { Webhook } from 'standardwebhooks';
import type { WebhookBody } from '@bedrequest/contracts';

export interface WebhookEvent {
  id: string;
  type: string;
  occurredAt: Date;
  sequence: number;
  data: unknown;
}

/** docs/decisions.md: the delivery body (`WebhookBody`), also one item of `GET /api/v1/subscriptions/{id}/events`. */
export function webhookBody(event: WebhookEvent): WebhookBody {
  return { id: event.id, type: event.type, timestamp: event.occurredAt.toISOString(), sequence: event.sequence, data: event.data };
}

/**
 * One attempt's request (Standard Webhooks): `webhook-id` is the event id on every attempt, so a
 * receiver can deduplicate; `webhook-timestamp` is the attempt's time, signed together with id and
 * body (`v1,` + base64 HMAC-SHA256 of "{id}.{timestamp}.{body}" keyed with the secret's bytes), so
 * a receiver can refuse replays of old attempts.
 */
export function signedWebhook(event: WebhookEvent, secret: string, attemptTime: Date): { body: string; headers: Record<string, string> } {
  const body = JSON.stringify(webhookBody(event));
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': event.id,
      'webhook-timestamp': String(Math.floor(attemptTime.getTime() / 1000)),
      'webhook-signature': new Webhook(secret).sign(event.id, attemptTime, body),
    },
  };
}
