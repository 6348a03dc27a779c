import { InternalClient, type Answer, type Answers } from '@bedrequest/http';

/** The referrer's forwarded access token (the notifier checks ownership against its party) and the correlation id. */
export interface NotifierCall {
  readonly token: string;
  readonly correlationId: string;
  readonly query?: URLSearchParams;
  readonly body?: unknown;
}

/**
 * The notifier's internal subscription API (`/internal/subscriptions`; it owns subscriptions and
 * deliveries), each call answered by one of the statuses and bodies the route's contract lists.
 */
export class NotifierClient {
  private readonly client: InternalClient;

  constructor(notifierUrl: string, timeoutMs = 10_000) {
    this.client = new InternalClient({
      service: 'notifier',
      baseUrl: notifierUrl,
      timeoutMs,
      unavailableMessage: 'subscriptions are temporarily unavailable; please retry',
      connections: 8,
    });
  }

  call<A extends Answers>(method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, call: NotifierCall, answers: A): Promise<Answer<A>> {
    return this.client.json(
      {
        method,
        path: `/internal/subscriptions${path}`,
        ...(call.query ? { query: call.query } : {}),
        ...(call.body === undefined ? {} : { json: call.body }),
        credential: call.token,
        correlationId: call.correlationId,
      },
      answers,
    );
  }

  close(): Promise<void> {
    return this.client.close();
  }
}
