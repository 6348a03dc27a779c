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
 * a receiver can refuse replays of old attempts. With several secrets (the current one first, then
 * one rotated out whose overlap runs) `webhook-signature` holds one signature each, space-separated.
 */
export function signedWebhook(event: WebhookEvent, secrets: string | readonly string[], attemptTime: Date): { body: string; headers: Record<string, string> } {
  return signedBody(event.id, JSON.stringify(webhookBody(event)), secrets, attemptTime);
}

/** The headers of a signed POST of `body` (an event's or a heartbeat's), signed with each of `secrets` in turn. */
export function signedBody(
  id: string,
  body: string,
  secrets: string | readonly string[],
  attemptTime: Date,
): { body: string; headers: Record<string, string> } {
  const keys = typeof secrets === 'string' ? [secrets] : secrets;
  return {
    body,
    headers: {
      'content-type': 'application/json',
      'webhook-id': id,
      'webhook-timestamp': String(Math.floor(attemptTime.getTime() / 1000)),
      'webhook-signature': keys.map((secret) => new Webhook(secret).sign(id, attemptTime, body)).join(' '),
    },
  };
}
