import { ApiErrorBody, SubscriptionList, SubscriptionView, type PayloadForm, type SubscriptionEventType } from '@bedrequest/contracts';
import type { InternalClient } from '@bedrequest/http';
import type { Credentials } from '../inbox/workspace-api';

/**
 * The party's webhook subscriptions (docs/webhooks.md, "Subscriptions"), as the inspector reads and
 * makes them: with InboxApi's connection, the person's credentials and its refusals (401 ends the
 * session, 429 asks to retry), through the public API like any referrer's software.
 */
export class SubscriptionsApi {
  constructor(
    private readonly client: InternalClient,
    private readonly credentials: Credentials,
    private readonly refused: (status: 401 | 429) => Error,
  ) {}

  async list(): Promise<SubscriptionView[]> {
    const answer = await this.client.json(
      { method: 'GET', path: '/api/v1/subscriptions', ...this.credentials },
      { 200: SubscriptionList, 401: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200) return answer.body.items;
    throw this.refused(answer.status);
  }

  /**
   * `POST /api/v1/subscriptions`: the party's subscription to `eventType`, made, or its address and
   * payload changed (one per event type; the secret stays then). The API's refusal (400) with its message.
   */
  async subscribe(request: {
    eventType: SubscriptionEventType;
    callbackUrl: string;
    payload: PayloadForm;
  }): Promise<{ ok: true; subscription: SubscriptionView } | { ok: false; message: string }> {
    const answer = await this.client.json(
      { method: 'POST', path: '/api/v1/subscriptions', json: request, ...this.credentials },
      { 200: SubscriptionView, 201: SubscriptionView, 400: ApiErrorBody, 401: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200 || answer.status === 201) return { ok: true, subscription: answer.body };
    if (answer.status === 400) return { ok: false, message: answer.body.message };
    throw this.refused(answer.status);
  }
}
