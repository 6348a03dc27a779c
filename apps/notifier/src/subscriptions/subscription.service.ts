import { randomBytes, randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  ChangeAddressRequest,
  idOnlyTask,
  nextDeliveryLogPage,
  SubscribeRequest,
  type DeliveryLog,
  type DeliveryLogParameters,
  type DeliveryLogView,
  type SubscriptionView,
  type WebhookBody,
} from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import { CallbackAddressRefusedError, assertPublicHost, systemResolve, type Resolve } from '@bedrequest/http';
import { webhookBody } from '../delivery/webhook-message';
import type { StoredSubscription, SubscriptionOptions, SubscriptionRepository } from './subscription.repository';

export type { DeliveryLogView, SubscriptionView };

/** Subscription and event ids are the `uuid` columns': 8-4-4-4-12 hex digits, in either case. */
const Id = z.guid();
const isId = (text: string) => Id.safeParse(text).success;

/** A callback address the service refuses after reading it (plain http or a private host in production): 400 with this message. */
export class SubscriptionRequestError extends Error {
  override name = 'SubscriptionRequestError';
}

/** A manual retry of an event of a request whose patient data was erased: 409 with this message. */
export class ErasedEventError extends Error {
  override name = 'ErasedEventError';

  constructor(readonly erasedAt: Date) {
    super(`the request's patient data was erased on ${erasedAt.toISOString()}; its events are not sent any more`);
  }
}

/**
 * The subscription rules of the spec and docs/decisions.md: one subscription per event type and party
 * (a second POST changes the address and keeps id and secret), visible to its owner only, callback
 * URLs absolute http(s) and, in production mode, https and public. Deleting discards the undelivered events.
 */
export class SubscriptionService {
  private readonly resolve: Resolve;

  constructor(
    private readonly repository: SubscriptionRepository,
    private readonly options: {
      allowPrivate: boolean;
      /** WEBHOOK_REQUIRE_HTTPS (requiresHttpsCallbacks): `http://` callback URLs are refused. */
      requireHttps: boolean;
      resolve?: Resolve;
      /** Called when deliveries became due now (address changed, re-enabled, manual retry). */
      onDeliveriesDue?: () => void;
      /** WEBHOOK_HEARTBEAT_MIN in seconds (default 60): a shorter heartbeatSeconds is refused (400). */
      heartbeatMinSeconds?: number;
      /** WEBHOOK_SECRET_OVERLAP (default 24 h): how long a rotated-out secret still signs. */
      secretOverlapMs?: number;
    },
  ) {
    this.resolve = options.resolve ?? systemResolve;
  }

  async subscribe(partyId: string, body: unknown): Promise<{ created: boolean; subscription: SubscriptionView }> {
    const { eventType, callbackUrl, ...options } = HttpError.parseInput(SubscribeRequest, body);
    this.assertAllowedOptions(options);
    await this.assertAllowedCallback(callbackUrl);
    // Two attempts: a concurrent DELETE may remove the subscription between the two steps.
    for (let attempt = 0; attempt < 2; attempt += 1) {
      const created = await this.repository.createIfAbsent({ id: randomUUID(), partyId, eventType, callbackUrl, secret: newSecret() }, options);
      if (created) return { created: true, subscription: view(created) };
      const updated = await this.repository.changeAddress({ partyId, eventType }, callbackUrl, options);
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
    if (!isId(id)) return undefined;
    const { callbackUrl, ...options } = HttpError.parseInput(ChangeAddressRequest, body);
    this.assertAllowedOptions(options);
    await this.assertAllowedCallback(callbackUrl);
    const updated = await this.repository.changeAddress({ partyId, id }, callbackUrl, options);
    if (updated) this.options.onDeliveriesDue?.();
    return updated && view(updated);
  }

  /**
   * A new signing secret, answered once here; the one before signs beside it for the overlap
   * (docs/webhooks.md, "Rotating the secret"), then it is deleted.
   */
  async rotateSecret(partyId: string, id: string): Promise<SubscriptionView | undefined> {
    if (!isId(id)) return undefined;
    const rotated = await this.repository.rotateSecret(partyId, id, newSecret(), this.options.secretOverlapMs ?? 24 * 3600_000);
    return rotated && view(rotated);
  }

  async remove(partyId: string, id: string): Promise<boolean> {
    return isId(id) && this.repository.delete(partyId, id);
  }

  /**
   * A page of the delivery log (docs/webhooks.md, "Delivery log and manual retry"): ids, times,
   * status codes and errors, never a body or Task. `next` while more follow.
   */
  async deliveryLog(partyId: string, id: string, parameters: DeliveryLogParameters): Promise<DeliveryLog | undefined> {
    const subscription = await this.owned(partyId, id);
    if (!subscription) return undefined;
    const { limit, before, statuses, since } = parameters;
    // One more than the page: whether another follows, without counting.
    const entries = await this.repository.deliveries(subscription.id, {
      limit: limit + 1,
      ...(before === undefined ? {} : { before }),
      ...(statuses ? { statuses } : {}),
      ...(since ? { since } : {}),
    });
    const page = entries.slice(0, limit);
    const items = page.map((entry) => ({
      eventId: entry.eventId,
      sequence: entry.sequence,
      type: entry.eventType,
      status: entry.status,
      createdAt: entry.createdAt.toISOString(),
      deliveredAt: entry.deliveredAt?.toISOString() ?? null,
      nextAttemptAt: entry.nextAttemptAt?.toISOString() ?? null,
      withheld: entry.withheld && { at: entry.withheld.at.toISOString(), reason: entry.withheld.reason },
      attempts: entry.attempts.map((attempt) => ({ ...attempt, attemptedAt: attempt.attemptedAt.toISOString() })),
    }));
    const last = page.at(-1);
    return entries.length > limit && last ? { items, next: nextDeliveryLogPage(parameters, last.sequence) } : { items };
  }
  /**
   * Manual redelivery of one event, now, even of a delivered or given-up one; never of a request
   * whose patient data was erased (docs/data-protection.md): ErasedEventError.
   */
  async redeliver(partyId: string, id: string, eventId: string): Promise<boolean> {
    const subscription = await this.owned(partyId, id);
    if (!subscription || !isId(eventId)) return false;
    const outcome = await this.repository.redeliverNow(subscription.id, eventId);
    if (outcome.kind === 'erased') throw new ErasedEventError(outcome.erasedAt);
    if (outcome.kind === 'scheduled') this.options.onDeliveriesDue?.();
    return outcome.kind === 'scheduled';
  }

  /** Gap recovery: the events after sequence number `since`, in the webhook body's shape. */
  async eventsSince(partyId: string, id: string, since: number, limit: number): Promise<WebhookBody[] | undefined> {
    const subscription = await this.owned(partyId, id);
    if (!subscription) return undefined;
    const events = await this.repository.eventsSince(subscription.id, since, limit);
    // In the form the subscription's webhooks have now.
    const form = subscription.payload === 'id-only' ? idOnlyTask : (data: unknown) => data;
    return events.map((event) =>
      webhookBody({ id: event.eventId, type: event.eventType, occurredAt: event.occurredAt, sequence: event.sequence, data: form(event.data) }),
    );
  }

  private async owned(partyId: string, id: string): Promise<StoredSubscription | undefined> {
    return isId(id) ? this.repository.find(partyId, id) : undefined;
  }

  private assertAllowedOptions(options: SubscriptionOptions): void {
    const { heartbeatSeconds } = options;
    const min = this.options.heartbeatMinSeconds ?? 60;
    if (typeof heartbeatSeconds === 'number' && heartbeatSeconds < min) {
      throw new SubscriptionRequestError(`heartbeatSeconds: must be at least ${min} (or null: no heartbeats)`);
    }
  }

  /**
   * docs/decisions.md, "Subscriptions and webhooks": in production mode the callback URL must be
   * https and its host a public address. The scheme is checked first: it needs no DNS.
   */
  private async assertAllowedCallback(callbackUrl: string): Promise<void> {
    if (this.options.requireHttps && new URL(callbackUrl).protocol !== 'https:') {
      throw new SubscriptionRequestError('callbackUrl: must be an https URL: this service sends webhooks over https only');
    }
    if (!this.options.allowPrivate) {
      try {
        await assertPublicHost(new URL(callbackUrl).hostname, this.resolve);
      } catch (error) {
        if (error instanceof CallbackAddressRefusedError) throw new SubscriptionRequestError(`callbackUrl refused: ${error.message}`);
        throw new SubscriptionRequestError('callbackUrl refused: its host name cannot be resolved');
      }
    }
  }
}

/** `whsec_` + base64 of 32 random bytes (docs/decisions.md: 24 or more), the Standard Webhooks secret format. */
function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`;
}

function view(subscription: StoredSubscription): SubscriptionView {
  const { id, eventType, callbackUrl, secret, status, disabledReason, payload, heartbeatSeconds, previousSecretExpiresAt, lastError } = subscription;
  return {
    id,
    eventType,
    callbackUrl,
    secret,
    status,
    disabledReason,
    payload,
    heartbeatSeconds,
    previousSecretExpiresAt: previousSecretExpiresAt?.toISOString() ?? null,
    lastError: lastError && { ...lastError, at: lastError.at.toISOString() },
  };
}
