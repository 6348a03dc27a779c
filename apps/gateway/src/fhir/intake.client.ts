import type { Principal } from '../auth';

/** Intake's internal read API (it owns requests and Tasks), answered as status + JSON body. */
export class IntakeClient {
  constructor(
    private readonly intakeUrl: string,
    private readonly timeoutMs = 10_000,
  ) {}

  async get(path: string, principal: Principal, options: { search?: string; correlationId: string; publicBase: string }): Promise<{ status: number; body: unknown }> {
    const url = new URL(path, this.intakeUrl);
    if (options.search) url.search = options.search;
    const response = await fetch(url, {
      headers: {
        'x-correlation-id': options.correlationId,
        'x-public-base': options.publicBase,
        // Who asks, from the access token the gateway verified; intake applies the visibility rules.
        'x-viewer-role': principal.role,
        'x-viewer-party': principal.partyId,
        'x-viewer-iks': principal.ikNumbers.join(','),
      },
      signal: AbortSignal.timeout(this.timeoutMs),
    });
    return { status: response.status, body: await response.json() };
  }
}
