import { randomBytes, randomUUID } from 'node:crypto';
import { CallbackAddressRefusedError, assertPublicHost, systemResolve, type Resolve } from '../delivery/address-guard';
import { webhookBody, type WebhookBody } from '../delivery/webhook-message';
import { ADMISSION_RESPONSE_EVENT } from '../events/admission-response.consumer';
import type { DeliveryLogEntry, StoredSubscription, SubscriptionRepository, SubscriptionStatus } from './subscription.repository';

/** Event types a subscription can be for (spec, "Events": AdmissionResponse). */
export const SUPPORTED_EVENT_TYPES: readonly string[] = [ADMISSION_RESPONSE_EVENT];
const MAX_CALLBACK_URL_LENGTH = 2048;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A subscription request the service refuses: 400 with this message. */
export class SubscriptionRequestError extends Error {
  override name = 'SubscriptionRequestError';
}

/** decisions.md's representation `{id, eventType, callbackUrl, secret}`, plus whether deliveries run. */
export interface SubscriptionView {
  id: string;
  eventType: string;
  callbackUrl: string;
  secret: string;
  status: SubscriptionStatus;
  disabledReason: string | null;
}

export interface DeliveryLogView {
  eventId: string;
  sequence: number;
  type: string;
  status: DeliveryLogEntry['status'];
  createdAt: string;
  deliveredAt: string | null;
  nextAttemptAt: string | null;
  attempts: { attemptedAt: string; statusCode: number | null; error: string | null; durationMs: number }[];
}

/**
 * The subscription rules of the spec and decisions.md: one subscription per event type and party
 * (a second POST changes the address and keeps id and secret), visible to its owner only, callback
 * URLs absolute http(s) and, in production mode, public. Deleting discards the undelivered events.
 */
export class SubscriptionService {
  private readonly resolve: Resolve;

  constructor(
    private readonly repository: SubscriptionRepository,
    private readonly options: {
      allowPrivate: boolean;
      resolve?: Resolve;
      /** Called when deliveries became due now (address changed, re-enabled, manual retry). */
      onDeliveriesDue?: () => void;
    },
  ) {
    this.resolve = options.resolve ?? systemResolve;
  }

  async subscribe(partyId: string, body: unknown): Promise<{ created: boolean; subscription: SubscriptionView }> {
    const request = objectBody(body);
    if (typeof request.eventType !== 'string' || !SUPPORTED_EVENT_TYPES.includes(request.eventType)) {
      throw new SubscriptionRequestError(`eventType must be one of: ${SUPPORTED_EVENT_TYPES.join(', ')}`);
    }
    const eventType = request.eventType;
    const callbackUrl = await this.checkedCallbackUrl(request.callbackUrl);
    // Two attempts: a concurrent DELETE may remove the subscription between the two steps.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const created = await this.repository.createIfAbsent({ id: randomUUID(), partyId, eventType, callbackUrl, secret: newSecret() });
      if (created) return { created: true, subscription: view(created) };
      const updated = await this.repository.changeAddress({ partyId, eventType }, callbackUrl);
      if (updated) {
        this.options.onDeliveriesDue?.();
        return { created: false, subscription: view(updated) };
      }
    }
    throw new Error('the subscription changed concurrently; try again');
  }

  async list(partyId: string): Promise<SubscriptionView[]> {
    return (await this.repository.list(partyId)).map(view);
  }

  async get(partyId: string, id: string): Promise<SubscriptionView | undefined> {
    const subscription = await this.owned(partyId, id);
    return subscription && view(subscription);
  }

  /** PUT: a new address; also re-enables a disabled subscription. */
  async changeAddress(partyId: string, id: string, body: unknown): Promise<SubscriptionView | undefined> {
    if (!UUID.test(id)) return undefined;
    const callbackUrl = await this.checkedCallbackUrl(objectBody(body).callbackUrl);
    const updated = await this.repository.changeAddress({ partyId, id }, callbackUrl);
    if (updated) this.options.onDeliveriesDue?.();
    return updated && view(updated);
  }

  async remove(partyId: string, id: string): Promise<boolean> {
    return UUID.test(id) && this.repository.delete(partyId, id);
  }

  async deliveryLog(partyId: string, id: string, limit: number): Promise<DeliveryLogView[] | undefined> {
    const subscription = await this.owned(partyId, id);
    if (!subscription) return undefined;
    return (await this.repository.deliveries(subscription.id, limit)).map((entry) => ({
      eventId: entry.eventId,
      sequence: entry.sequence,
      type: entry.eventType,
      status: entry.status,
      createdAt: entry.createdAt.toISOString(),
      deliveredAt: entry.deliveredAt?.toISOString() ?? null,
      nextAttemptAt: entry.nextAttemptAt?.toISOString() ?? null,
      attempts: entry.attempts.map((attempt) => ({ ...attempt, attemptedAt: attempt.attemptedAt.toISOString() })),
    }));
  }

  /** Manual redelivery of one event, now, even of a delivered or given-up one. */
  async redeliver(partyId: string, id: string, eventId: string): Promise<boolean> {
    const subscription = await this.owned(partyId, id);
    if (!subscription || !UUID.test(eventId)) return false;
    const found = await this.repository.redeliverNow(subscription.id, eventId);
    if (found) this.options.onDeliveriesDue?.();
    return found;
  }

  /** Gap recovery: the events after sequence number `since`, in the webhook body's shape. */
  async eventsSince(partyId: string, id: string, since: number, limit: number): Promise<WebhookBody[] | undefined> {
    const subscription = await this.owned(partyId, id);
    if (!subscription) return undefined;
    const events = await this.repository.eventsSince(subscription.id, since, limit);
    return events.map((event) => webhookBody({ id: event.eventId, type: event.eventType, occurredAt: event.occurredAt, sequence: event.sequence, data: event.data }));
  }

  private async owned(partyId: string, id: string): Promise<StoredSubscription | undefined> {
    return UUID.test(id) ? this.repository.find(partyId, id) : undefined;
  }

  /** decisions.md: an absolute http(s) URL, else 400; in production mode also a public address. */
  private async checkedCallbackUrl(value: unknown): Promise<string> {
    if (typeof value !== 'string' || value.trim() === '') throw new SubscriptionRequestError('callbackUrl is required');
    const text = value.trim();
    if (text.length > MAX_CALLBACK_URL_LENGTH) throw new SubscriptionRequestError(`callbackUrl is longer than ${MAX_CALLBACK_URL_LENGTH} characters`);
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new SubscriptionRequestError('callbackUrl must be an absolute http or https URL');
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new SubscriptionRequestError('callbackUrl must be an absolute http or https URL');
    // Credentials in a URL end up in logs and configuration dumps; receivers verify the signature instead.
    if (url.username || url.password) throw new SubscriptionRequestError('callbackUrl must not contain credentials');
    if (!this.options.allowPrivate) {
      try {
        await assertPublicHost(url.hostname, this.resolve);
      } catch (error) {
        if (error instanceof CallbackAddressRefusedError) throw new SubscriptionRequestError(`callbackUrl refused: ${error.message}`);
        throw new SubscriptionRequestError('callbackUrl refused: its host name cannot be resolved');
      }
    }
    return text;
  }
}

/** `whsec_` + base64 of 32 random bytes (decisions.md: 24 or more), the Standard Webhooks secret format. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

function objectBody(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) throw new SubscriptionRequestError('the body must be a JSON object');
  return body as Record<string, unknown>;
}

function view(subscription: StoredSubscription): SubscriptionView {
  const { id, eventType, callbackUrl, secret, status, disabledReason } = subscription;
  return { id, eventType, callbackUrl, secret, status, disabledReason };
}
