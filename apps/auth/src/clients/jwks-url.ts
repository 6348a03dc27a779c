import { isIP } from 'node:net';
import type { FetchImplementation } from 'jose';
import { Agent, fetch as undiciFetch } from 'undici';
import { CallbackAddressRefusedError, assertPublicHost, forbiddenAddressReason, guardedLookup, systemResolve, type Resolve } from '@bedrequest/http';
import { jwksRefusal } from './client';

/**
 * Where a system client's keys may be fetched from (docs/parties.md, "System clients and scopes"):
 * https only in production, and never from a loopback, private or otherwise reserved address unless
 * `allowPrivate` (CLIENT_JWKS_ALLOW_PRIVATE, development and tests only), with the notifier's SSRF
 * guard (@bedrequest/http): checked at registration and again at every connection.
 */
export interface JwksUrlPolicy {
  readonly production: boolean;
  readonly allowPrivate: boolean;
  /** DNS resolution; tests pass their own. */
  readonly resolve?: Resolve;
}

const SUBJECT = 'the jwks_url';

/** A JWKS larger than this is refused unread: a handful of public keys is a few KiB. */
const MAX_JWKS_BYTES = 64 * 1024;

/** Why `url` may not be registered as a client's jwks_url, or undefined when it may. */
export async function jwksUrlRefusal(url: string, policy: JwksUrlPolicy): Promise<string | undefined> {
  const refusal = staticRefusal(url, policy);
  if (refusal || policy.allowPrivate) return refusal;
  try {
    await assertPublicHost(new URL(url).hostname, policy.resolve ?? systemResolve, { subject: SUBJECT });
    return undefined;
  } catch (error) {
    if (error instanceof CallbackAddressRefusedError) return error.message;
    return `the jwks_url's host cannot be resolved (${(error as NodeJS.ErrnoException).code ?? 'DNS error'})`;
  }
}

/** What can be told without DNS: a URL, its scheme, no credentials, and an IP literal's address. */
function staticRefusal(url: string, policy: JwksUrlPolicy): string | undefined {
  let target: URL;
  try {
    target = new URL(url);
  } catch {
    return 'the jwks_url is not a URL';
  }
  const schemes = policy.production ? ['https:'] : ['https:', 'http:'];
  if (!schemes.includes(target.protocol)) return policy.production ? 'the jwks_url must be https in production' : 'the jwks_url must be http or https';
  if (target.username || target.password) return 'the jwks_url must not carry credentials';
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1');
  if (!policy.allowPrivate && isIP(host)) {
    const reason = forbiddenAddressReason(host);
    if (reason) return `${SUBJECT} resolves to a ${reason}`;
  }
  return undefined;
}

/**
 * The fetch jose's remote JWKS sets use (its `customFetch`): the policy checked before every request
 * (Node skips `lookup` for an IP literal), sockets that connect only to addresses the guard passed,
 * no redirects (jose asks for `manual`, and a 3xx is not the 200 it wants), a bounded body, and the
 * keys checked as at registration, so that a private or weak key served there is never used.
 */
export class GuardedJwksFetch {
  private readonly agent: Agent;

  constructor(
    private readonly policy: JwksUrlPolicy,
    timeoutMs = 5000,
  ) {
    this.agent = new Agent({
      connectTimeout: timeoutMs,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: { lookup: guardedLookup(policy.resolve ?? systemResolve, { allowPrivate: policy.allowPrivate, subject: SUBJECT }) },
    });
  }

  readonly fetch: FetchImplementation = async (url, options) => {
    const refusal = staticRefusal(url, this.policy);
    if (refusal) throw new CallbackAddressRefusedError(refusal);
    const response = await undiciFetch(url, {
      method: options.method,
      headers: Object.fromEntries(options.headers),
      redirect: 'manual',
      signal: options.signal,
      dispatcher: this.agent,
    });
    if (response.status !== 200) {
      await response.body?.cancel();
      return new Response(null, { status: response.status });
    }
    const declared = Number(response.headers.get('content-length') ?? 0);
    if (declared > MAX_JWKS_BYTES) {
      await response.body?.cancel();
      throw new Error(`the JWKS is larger than ${MAX_JWKS_BYTES} bytes`);
    }
    const text = await response.text();
    if (Buffer.byteLength(text) > MAX_JWKS_BYTES) throw new Error(`the JWKS is larger than ${MAX_JWKS_BYTES} bytes`);
    const refused = jwksRefusalOfText(text);
    if (refused) throw new Error(`the JWKS served is not acceptable: ${refused}`);
    return new Response(text, { status: 200, headers: { 'content-type': 'application/json' } });
  };

  async close(): Promise<void> {
    await this.agent.close();
  }
}

function jwksRefusalOfText(text: string): string | undefined {
  try {
    return jwksRefusal(JSON.parse(text));
  } catch {
    return 'not JSON';
  }
}
