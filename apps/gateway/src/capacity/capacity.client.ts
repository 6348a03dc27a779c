/** Routing did not answer, or answered something unusable: 503. */
export class CapacityServiceUnavailableError extends Error {
  override name = 'CapacityServiceUnavailableError';
}

/** Routing's internal bed-count API (`/internal/clinics/{ik}/capacity`); routing owns the counts. */
export class ClinicCapacityClient {
  constructor(
    private readonly routingUrl: string,
    private readonly timeoutMs = 5_000,
  ) {}

  put(ik: string, body: unknown, correlationId: string): Promise<{ status: number; body: unknown }> {
    return this.call(this.urlOf(ik), { method: 'PUT', body: JSON.stringify(body), correlationId });
  }

  list(ik: string, range: { from?: string; to?: string }, correlationId: string): Promise<{ status: number; body: unknown }> {
    const url = this.urlOf(ik);
    if (range.from) url.searchParams.set('from', range.from);
    if (range.to) url.searchParams.set('to', range.to);
    return this.call(url, { method: 'GET', correlationId });
  }

  private urlOf(ik: string): URL {
    return new URL(`/internal/clinics/${encodeURIComponent(ik)}/capacity`, this.routingUrl);
  }

  private async call(url: URL, options: { method: 'GET' | 'PUT'; body?: string; correlationId: string }) {
    try {
      const response = await fetch(url, {
        method: options.method,
        headers: { 'x-correlation-id': options.correlationId, ...(options.body ? { 'content-type': 'application/json' } : {}) },
        body: options.body,
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      return { status: response.status, body: (await response.json()) as unknown };
    } catch (error) {
      throw new CapacityServiceUnavailableError('the bed counts are unavailable', { cause: error });
    }
  }
}
