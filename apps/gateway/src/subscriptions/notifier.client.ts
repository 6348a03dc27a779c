/** The notifier's subscription API did not answer (not running, timed out, network). */
export class NotifierUnavailableError extends Error {
  override name = 'NotifierUnavailableError';
}

/**
 * The notifier's internal subscription API (it owns subscriptions and deliveries), answered as
 * status + JSON body. The caller's party goes in `x-viewer-party`; the notifier checks ownership.
 */
export class NotifierClient {
  constructor(
    private readonly notifierUrl: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async call(
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    path: string,
    options: { partyId: string; correlationId: string; body?: unknown },
  ): Promise<{ status: number; body: unknown }> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(new URL(`/internal/subscriptions${path}`, this.notifierUrl), {
        method,
        headers: {
          'x-correlation-id': options.correlationId,
          // Who asks, from the access token the gateway verified.
          'x-viewer-party': options.partyId,
          ...(options.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw new NotifierUnavailableError('the notifier did not answer', { cause: error });
    }
    try {
      return { status: response.status, body: text ? JSON.parse(text) : undefined };
    } catch (error) {
      throw new NotifierUnavailableError(`the notifier answered HTTP ${response.status} without JSON`, { cause: error });
    }
  }
}
