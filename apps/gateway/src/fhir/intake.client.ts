import { Pool } from 'undici';
import type { Principal } from '../auth';

/** Intake's answer as it wrote it: the status and the JSON body's bytes. */
export interface IntakeAnswer {
  status: number;
  body: Buffer;
}

/**
 * Keep-alive connections to intake at most: more reads in flight than that would only queue in
 * intake's one event loop; beyond it requests wait here for a free connection (within the deadline)
 * instead of opening a socket each in a burst.
 */
const MAX_CONNECTIONS = 32;

/**
 * Intake's internal read API (it owns requests and Tasks). One pool of keep-alive connections: a
 * poll costs no TCP handshake, and undici's request API skips the WHATWG stream and Headers work of
 * `fetch`. Every call has one deadline (`timeoutMs`) from sending to the last body byte; a call that
 * misses it, or finds intake unreachable, or gets an answer that is not JSON, rejects (the routers
 * answer 503 with Retry-After).
 */
export class IntakeClient {
  private readonly pool: Pool;

  constructor(
    intakeUrl: string,
    private readonly timeoutMs = 10_000,
  ) {
    this.pool = new Pool(new URL(intakeUrl).origin, { connections: MAX_CONNECTIONS });
  }

  /** The answer's bytes, for passing intake's JSON through without parsing and serialising it again. */
  async getRaw(path: string, principal: Principal, options: { search?: string; correlationId: string; publicBase: string }): Promise<IntakeAnswer> {
    // A timer cleared on the answer rather than AbortSignal.timeout, whose timer would stay armed
    // for the whole deadline after every poll.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`intake did not answer within ${this.timeoutMs} ms`)), this.timeoutMs);
    try {
      const { statusCode, headers, body } = await this.pool.request({
        method: 'GET',
        path: `${path}${options.search ?? ''}`,
        headers: {
          'x-correlation-id': options.correlationId,
          'x-public-base': options.publicBase,
          // Who asks, from the access token the gateway verified; intake applies the visibility rules.
          'x-viewer-role': principal.role,
          'x-viewer-party': principal.partyId,
          'x-viewer-iks': principal.ikNumbers.join(','),
        },
        signal: deadline.signal,
      });
      if (!/\bjson\b/.test(String(headers['content-type']))) {
        await body.dump();
        throw new Error(`intake answered ${statusCode} with ${String(headers['content-type'])}`);
      }
      return { status: statusCode, body: Buffer.from(await body.arrayBuffer()) };
    } finally {
      clearTimeout(timer);
    }
  }

  /** The answer with its JSON body parsed, for callers that look into it. */
  async get(path: string, principal: Principal, options: { search?: string; correlationId: string; publicBase: string }): Promise<{ status: number; body: unknown }> {
    const answer = await this.getRaw(path, principal, options);
    return { status: answer.status, body: JSON.parse(answer.body.toString('utf8')) as unknown };
  }

  /** Closes the idle connections (they do not keep the process alive meanwhile: undici unrefs them). */
  close(): Promise<void> {
    return this.pool.close();
  }
}
