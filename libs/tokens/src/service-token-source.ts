import { ServiceTokenAnswer } from '@bedrequest/contracts';
import { InternalClient, type TokenSource } from '@bedrequest/http';

/** A token is fetched again this long before it expires, so that none expires on its way. */
const RENEW_BEFORE_MS = 60_000;

/**
 * The service tokens of one service, for its calls that no party stands behind (e.g. reading the
 * clinic registry at start). Fetched from the auth service with the service's name and the shared
 * client secret (HTTP Basic, RFC 6749 §2.3.1), kept until a minute before they expire; concurrent
 * callers share one fetch. A token the other side refused is dropped, and the next call fetches anew.
 */
export class ServiceTokenSource implements TokenSource {
  private readonly auth: InternalClient;
  private readonly credentials: string;
  private readonly now: () => number;
  private current?: { token: string; renewAtMs: number };
  private fetching?: Promise<string>;

  constructor(options: { authUrl: string; service: string; clientSecret: string; timeoutMs?: number; now?: () => number }) {
    this.auth = new InternalClient({
      service: 'auth',
      baseUrl: options.authUrl,
      timeoutMs: options.timeoutMs ?? 5_000,
      unavailableMessage: 'the authentication service is unavailable; please retry',
      connections: 2,
    });
    this.credentials = Buffer.from(`${options.service}:${options.clientSecret}`).toString('base64');
    this.now = options.now ?? Date.now;
  }

  token(): Promise<string> {
    if (this.current && this.current.renewAtMs > this.now()) return Promise.resolve(this.current.token);
    this.fetching ??= this.fetch().finally(() => {
      this.fetching = undefined;
    });
    return this.fetching;
  }

  refused(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }

  close(): Promise<void> {
    return this.auth.close();
  }

  private async fetch(): Promise<string> {
    const fetchedAtMs = this.now();
    const answer = await this.auth.json(
      { method: 'POST', path: '/internal/service-tokens', headers: { authorization: `Basic ${this.credentials}` } },
      { 200: ServiceTokenAnswer },
    );
    const { accessToken, expiresIn } = answer.body;
    this.current = { token: accessToken, renewAtMs: fetchedAtMs + Math.max(0, expiresIn * 1000 - RENEW_BEFORE_MS) };
    return accessToken;
  }
}
