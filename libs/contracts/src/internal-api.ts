import { z } from 'zod';
import { DeliveryStatus, WithheldReason } from './delivery-log';
import { FhirTask } from './messages/fhir-task';
import { HeartbeatSeconds, IdOnlyTask, PayloadForm } from './subscription-options';

/** An event's Task: whole for a `full` subscription, ids and state only for an `id-only` one. */
const TaskOfEvent = z.union([FhirTask, IdOnlyTask]);

/**
 * The answers of the services' internal HTTP APIs, as the callers parse them (@bedrequest/http
 * InternalClient): one declaration each, for the service that answers and the one that asks.
 * Backward-compatible changes only, like the messages: new fields optional, callers ignore the rest.
 */

/** `{"error", "message"}` (docs/decisions.md, "Errors"): what every internal JSON API answers a refusal with. */
export const ApiErrorBody = z.object({ error: z.string(), message: z.string() });
export type ApiErrorBody = z.infer<typeof ApiErrorBody>;

/** Auth, `POST /internal/service-tokens`: a service token for the service that asked (libs/tokens `ServiceTokenSource`). */
export const ServiceTokenAnswer = z.object({ accessToken: z.string().min(1), tokenType: z.literal('Bearer'), expiresIn: z.number().int().positive() });
export type ServiceTokenAnswer = z.infer<typeof ServiceTokenAnswer>;

/** Routing, `/internal/clinics/{ik}/capacity`: one published bed count with what is taken of it. */
export const BedCountView = z.object({
  department: z.string(),
  specialty: z.string(),
  date: z.string(),
  freeBeds: z.number().int(),
  held: z.number().int(),
  reserved: z.number().int(),
  available: z.number().int(),
});
export type BedCountView = z.infer<typeof BedCountView>;
export const BedCountList = z.object({ items: z.array(BedCountView) });

/** The notifier, `/internal/subscriptions`: docs/decisions.md's `{id, eventType, callbackUrl, secret}`, plus whether deliveries run. */
export const SubscriptionView = z.object({
  id: z.string(),
  // A string, not the enum: a caller keeps working when the notifier learns an event type first.
  eventType: z.string().describe('The event type subscribed to: AdmissionResponse or AdmissionOverdue (SubscribeRequest.eventType)'),
  callbackUrl: z.string(),
  secret: z.string(),
  status: z.enum(['active', 'disabled']),
  disabledReason: z.string().nullable(),
  // Optional, as every field added to an internal answer: the notifier always sends them.
  payload: PayloadForm.optional(),
  heartbeatSeconds: HeartbeatSeconds.optional(),
  previousSecretExpiresAt: z.iso
    .datetime()
    .nullable()
    .optional()
    .describe('While a rotated-out secret still signs (beside `secret`): until when; null when none does'),
  /** The last failed attempt of any of its deliveries (kept after later successes); null when none failed. Optional: a caller keeps working with a notifier that does not say. */
  lastError: z
    .object({
      at: z.string().describe('When the failed attempt was made'),
      statusCode: z.number().int().nullable().describe("The receiver's HTTP status; null when no answer came"),
      error: z.string().nullable().describe('Why it failed, e.g. "the receiver answered HTTP 503" or "no answer within 10000 ms"'),
    })
    .nullable()
    .optional()
    .describe('The last failed delivery attempt (null when none failed): see the delivery log'),
});
export type SubscriptionView = z.infer<typeof SubscriptionView>;
export const SubscriptionList = z.object({ items: z.array(SubscriptionView) });

/** One event of a subscription with its attempts: the delivery log. */
export const DeliveryLogView = z.object({
  eventId: z.string(),
  sequence: z.number().int(),
  type: z.string(),
  /**
   * `pending` (waiting for its next attempt at `nextAttemptAt`), `delivered`, `failed` (the schedule
   * is exhausted) or `withheld` (not sent: the subscriber may no longer see the Task; `withheld` says why).
   */
  status: DeliveryStatus,
  createdAt: z.string(),
  deliveredAt: z.string().nullable(),
  nextAttemptAt: z.string().nullable(),
  /** Only with status `withheld`: when and why it was not sent. Optional: a caller keeps working with a notifier that does not say. */
  withheld: z
    .object({ at: z.string(), reason: WithheldReason.describe('party-disabled: the subscriber party is disabled; request-erased: the request was erased') })
    .nullable()
    .optional(),
  attempts: z.array(z.object({ attemptedAt: z.string(), statusCode: z.number().int().nullable(), error: z.string().nullable(), durationMs: z.number() })),
});
export type DeliveryLogView = z.infer<typeof DeliveryLogView>;
export const DeliveryLog = z.object({
  items: z.array(DeliveryLogView),
  next: z
    .string()
    .optional()
    .describe(
      "Only while more follow: the query of the next page (`?limit=…&cursor=…`, repeating every other parameter), a relative reference to resolve against this page's URL",
    ),
});
export type DeliveryLog = z.infer<typeof DeliveryLog>;

/** A webhook's body (docs/decisions.md, "Subscriptions and webhooks"), as sent and as `events?since=` lists it, of any event type. */
export const WebhookBody = z.object({ id: z.string(), type: z.string(), timestamp: z.string(), sequence: z.number().int(), data: z.unknown() });
export type WebhookBody = z.infer<typeof WebhookBody>;

const eventId = () => z.uuid().describe('The event id: the same on every attempt (and the webhook-id header); deduplicate by it');
const sequenceNumber = () =>
  z.number().int().min(1).describe("Counts the subscription's events from 1 without gaps: a jump means missed events (gap recovery: events?since=)");

/** A clinic's answer (spec, "Events"): `data` the Task after it. */
export const AdmissionResponseWebhook = WebhookBody.extend({
  id: eventId(),
  type: z.literal('AdmissionResponse'),
  timestamp: z.iso.datetime().describe('When the answer was recorded'),
  sequence: sequenceNumber(),
  data: TaskOfEvent,
});
export type AdmissionResponseWebhook = z.infer<typeof AdmissionResponseWebhook>;

/**
 * A clinic's Task passed its answer deadline unanswered (intake's AdmissionOverdueV1): `data` the Task
 * as marked, `restriction.period.end` the deadline. Numbered in the AdmissionOverdue subscription's
 * own sequence, apart from the AdmissionResponse one.
 */
export const AdmissionOverdueWebhook = WebhookBody.extend({
  id: eventId(),
  type: z.literal('AdmissionOverdue'),
  timestamp: z.iso.datetime().describe('When the service found the Task past its deadline (at or after restriction.period.end)'),
  sequence: sequenceNumber(),
  data: TaskOfEvent,
});
export type AdmissionOverdueWebhook = z.infer<typeof AdmissionOverdueWebhook>;

/** `events?since=`: a subscription's events, each of its subscription's one type. */
export const WebhookEventList = z.object({ items: z.array(z.discriminatedUnion('type', [AdmissionResponseWebhook, AdmissionOverdueWebhook])) });

/** `POST …/deliveries/{eventId}/retry`: the event is sent again now. */
export const RedeliveryScheduled = z.object({ status: z.literal('scheduled'), message: z.string() });
