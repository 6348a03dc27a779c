import { Pool } from 'undici';
import type { z } from 'zod';
import { caOptionFor } from '@bedrequest/config';
import { HttpError } from './http-error';

/** How long a caller is asked to wait before trying again when a service it needs did not answer. */
const RETRY_AFTER_SECONDS = 5;

/**
 * Another service did not answer in time, could not be reached, or answered something its contract
 * does not allow (a status it does not list, a body of the wrong shape). Every caller answers it
 * the same way: 503 with `Retry-After`. The message is for the caller; what went wrong is in
 * `detail` and `cause`, for the log only.
 */
export class UpstreamUnavailableError extends HttpError {
  override name = 'UpstreamUnavailableError';
  /** The service that failed ("auth", "routing") and its base URL: what a starting service waits for. */
  readonly upstream: { readonly service: string; readonly url: string };
  /** What went wrong, without the service's name, e.g. "connect ECONNREFUSED 127.0.0.1:8081". */
  readonly reason: string;

  constructor(message: string, log: { service: string; url: string; reason: string; cause?: unknown }) {
    super('unavailable', message, { retryAfterSeconds: RETRY_AFTER_SECONDS, detail: `${log.service} ${log.reason}`, cause: log.cause });
    this.upstream = { service: log.service, url: log.url };
    this.reason = log.reason;
  }
}

/** A bearer token for the call: a fixed one (the caller's, forwarded), or a source of service tokens. */
export type Credential = string | TokenSource;

/** Service tokens: cached by the source; `refused` drops the cached one after a 401, so one try again gets a new one. */
export interface TokenSource {
  token(): Promise<string>;
  refused(token: string): void;
}

export interface InternalRequest {
  method: 'GET' | 'POST' | 'PUT' | 'DELETE';
  /** The path below the service's base URL, its parameters already encoded. */
  path: string;
  query?: URLSearchParams;
  /** Sent as JSON. */
  json?: unknown;
  /** Sent as it is, with `contentType` (a body passed on unread). */
  body?: Buffer;
  contentType?: string;
  credential?: Credential;
  correlationId?: string;
  /** More headers; names in lower case. */
  headers?: Record<string, string>;
}

/** The bodies a call may answer with, by status: anything else is UpstreamUnavailableError. */
export type Answers = Partial<Record<number, z.ZodType>>;

/** The answer of a call, one variant per listed status, its body parsed with that status's schema. */
export type Answer<A extends Answers> = { [S in keyof A & number]: { status: S; body: z.output<NonNullable<A[S]>> } }[keyof A & number];

/** An answer passed on unread: status, the headers asked for, and the body's bytes. */
export interface RawAnswer {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

export interface InternalClientOptions {
  /** The service's name, for logs: "intake", "routing". */
  service: string;
  baseUrl: string;
  /** From sending the request to the body's last byte. */
  timeoutMs: number;
  /** What callers are told when the service is unavailable, e.g. "the Task store is unavailable; please retry". */
  unavailableMessage: string;
  /**
   * Keep-alive connections at most: more calls in flight than that would only queue in the other
   * service's event loop; beyond it calls wait here for a free connection (within their deadline).
   */
  connections?: number;
}

/**
 * The one client of the services' internal HTTP APIs. A pool of keep-alive connections to one base
 * URL (undici: no TCP handshake per call, none of fetch's stream and Headers work), one deadline per
 * call, the caller's proof of identity as a bearer token, and the answer checked against the
 * contract: `json` parses the body of each listed status with its zod schema; `raw` passes a JSON
 * body on unread. Whatever fails underneath is one UpstreamUnavailableError.
 */
export class InternalClient {
  private readonly pool: Pool;

  constructor(private readonly options: InternalClientOptions) {
    // An https base URL: the service verified against TLS_CA_FILE (docs/operations.md, "Encryption in transit").
    this.pool = new Pool(new URL(options.baseUrl).origin, { connections: options.connections ?? 32, connect: caOptionFor(options.baseUrl) });
  }

  /** The answer with its body parsed by the schema of its status. */
  async json<A extends Answers>(request: InternalRequest, answers: A): Promise<Answer<A>> {
    const { status, body } = await this.send(request, []);
    const schema = answers[status];
    if (!schema) throw this.unavailable(`answered HTTP ${status}`);
    let parsed: unknown;
    try {
      parsed = body.length === 0 ? undefined : JSON.parse(body.toString('utf8'));
    } catch (error) {
      throw this.unavailable(`answered HTTP ${status} with a body that is not JSON`, error);
    }
    const checked = schema.safeParse(parsed);
    if (!checked.success) {
      throw this.unavailable(`answered HTTP ${status} with a body its contract does not allow (${checked.error.issues[0]?.path.join('.') || 'body'})`);
    }
    return { status, body: checked.data } as Answer<A>;
  }

  /** The answer as it came, for passing a JSON body on without parsing and serialising it again. */
  async raw(request: InternalRequest, keepHeaders: readonly string[] = []): Promise<RawAnswer> {
    return this.send(request, keepHeaders);
  }

  /**
   * A file's bytes, passed on unread: a 200 answer may carry one of `fileTypes` (media types, lower
   * case); any other answer is read as `raw` reads it, JSON or nothing, so an error's body is never
   * taken for the file.
   */
  async file(request: InternalRequest, fileTypes: readonly string[], keepHeaders: readonly string[] = []): Promise<RawAnswer> {
    return this.send(request, keepHeaders, fileTypes);
  }

  /** Closes the idle connections (they do not keep the process alive meanwhile: undici unrefs them). */
  close(): Promise<void> {
    return this.pool.close();
  }

  private async send(request: InternalRequest, keepHeaders: readonly string[], fileTypes: readonly string[] = []): Promise<RawAnswer> {
    const token = await this.tokenOf(request.credential);
    const answer = await this.exchange(request, token, keepHeaders, fileTypes);
    if (answer.status !== 401 || typeof request.credential !== 'object' || token === undefined) return answer;
    // A service token refused: expired early, or signed with a key the other side does not know yet.
    request.credential.refused(token);
    return this.exchange(request, await this.tokenOf(request.credential), keepHeaders, fileTypes);
  }

  private async tokenOf(credential: Credential | undefined): Promise<string | undefined> {
    if (credential === undefined || typeof credential === 'string') return credential;
    try {
      return await credential.token();
    } catch (error) {
      throw error instanceof UpstreamUnavailableError ? error : this.unavailable('could not be called: no service token', error);
    }
  }

  private async exchange(
    request: InternalRequest,
    token: string | undefined,
    keepHeaders: readonly string[],
    fileTypes: readonly string[],
  ): Promise<RawAnswer> {
    const { timeoutMs } = this.options;
    // A timer cleared on the answer rather than AbortSignal.timeout, whose timer would stay armed
    // for the whole deadline after every call.
    const deadline = new AbortController();
    const timer = setTimeout(() => deadline.abort(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
    try {
      const body = request.json === undefined ? request.body : Buffer.from(JSON.stringify(request.json));
      const {
        statusCode,
        headers,
        body: answer,
      } = await this.pool.request({
        method: request.method,
        path: request.query?.size ? `${request.path}?${request.query}` : request.path,
        headers: {
          ...request.headers,
          ...(request.correlationId ? { 'x-correlation-id': request.correlationId } : {}),
          ...(token ? { authorization: `Bearer ${token}` } : {}),
          ...(body ? { 'content-type': request.json === undefined ? (request.contentType ?? 'application/octet-stream') : 'application/json' } : {}),
        },
        body,
        signal: deadline.signal,
      });
      const contentType = String(headers['content-type'] ?? '');
      const bytes = Buffer.from(await answer.arrayBuffer());
      const isFile = statusCode === 200 && fileTypes.includes(contentType.split(';')[0]?.trim().toLowerCase() ?? '');
      if (bytes.length > 0 && !isFile && !/\bjson\b/.test(contentType)) throw new Error(`answered HTTP ${statusCode} with ${contentType || 'no content type'}`);
      const kept: Record<string, string> = {};
      for (const name of keepHeaders) {
        const value = headers[name];
        if (value !== undefined) kept[name] = String(value);
      }
      return { status: statusCode, headers: kept, body: bytes };
    } catch (error) {
      throw this.unavailable(error instanceof Error ? error.message : 'could not be reached', error);
    } finally {
      clearTimeout(timer);
    }
  }

  private unavailable(what: string, cause?: unknown): UpstreamUnavailableError {
    return new UpstreamUnavailableError(this.options.unavailableMessage, { service: this.options.service, url: this.options.baseUrl, reason: what, cause });
  }
}
