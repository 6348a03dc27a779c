import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { decodeJwt, decodeProtectedHeader, errors, jwtVerify, type JWTPayload } from 'jose';
import type { Logger } from 'pino';
import { CLIENT_ASSERTION_ALGORITHMS } from '@bedrequest/tokens';
import { StoreUnavailableError } from '../errors';
import type { Party } from '../parties/party';
import type { SystemClient } from './client';
import { ClientKeysUnavailableError, type ClientKeys } from './client-keys';
import type { ClientRepository } from './client.repository';
import { OAuthError, invalidClient } from './oauth-error';

/** SMART Backend Services: an assertion expires at most five minutes after it is made. */
export const MAX_ASSERTION_LIFETIME_SECONDS = 300;

/**
 * Seconds the client's clock may be off from ours, both ways, for `exp`, `nbf` and `iat`, and
 * for the five-minute limit on `exp`: small enough that an expired assertion is not long usable.
 */
export const CLOCK_TOLERANCE_SECONDS = 30;

const MAX_JTI_LENGTH = 255;

export interface ClientAuthenticatorOptions {
  readonly clients: ClientRepository;
  readonly keys: ClientKeys;
  readonly redis: Redis;
  /** The token endpoint's public URL: the `aud` an assertion must name (RFC 7523 3). */
  readonly tokenEndpoint: string;
  readonly now: () => number;
  readonly logger: Logger;
}

/**
 * Authenticates a system client by its JWT assertion (RFC 7523 2.2 and 3; SMART Backend Services):
 * signed with RS384 or ES384 by the key its `kid` names in the client's JWKS, `iss` and `sub` the
 * client's id, `aud` this token endpoint, `exp` at most five minutes ahead, and a `jti` never seen
 * before (kept in Redis until the assertion expires, so every replica refuses a replay). Every
 * failure is RFC 7521 4.2.1's `invalid_client`.
 */
export class ClientAuthenticator {
  constructor(private readonly options: ClientAuthenticatorOptions) {}

  async authenticate(assertion: string, clientIdParameter: string | undefined): Promise<{ client: SystemClient; party: Party }> {
    const { header, payload } = unverifiedParts(assertion);
    const alg = String(header.alg);
    if (!(CLIENT_ASSERTION_ALGORITHMS as readonly string[]).includes(alg)) {
      throw invalidClient(`the client_assertion must be signed with RS384 or ES384, not "${alg.slice(0, 20)}"`);
    }
    if (typeof header.kid !== 'string' || header.kid === '') {
      throw invalidClient("the client_assertion's header names no kid (the key of the client's JWKS it is signed with)");
    }
    const clientId = payload.iss;
    if (typeof clientId !== 'string' || clientId === '') throw invalidClient('the client_assertion has no iss (the client id)');
    try {
      return await this.authenticateAs(clientId, assertion, { payload, kid: header.kid, clientIdParameter });
    } catch (error) {
      if (error instanceof OAuthError) error.clientId = clientId.slice(0, 100);
      throw error;
    }
  }

  private async authenticateAs(
    clientId: string,
    assertion: string,
    { payload, kid, clientIdParameter }: { payload: JWTPayload; kid: string; clientIdParameter: string | undefined },
  ): Promise<{ client: SystemClient; party: Party }> {
    if (payload.sub !== clientId) throw invalidClient("the client_assertion's iss and sub must both be the client id");
    if (clientIdParameter !== undefined && clientIdParameter !== clientId) throw invalidClient("client_id is not the client_assertion's iss");

    const found = await this.options.clients.findWithParty(clientId);
    if (!found) throw invalidClient('unknown client');
    if (found.client.disabledAt) throw invalidClient('the client is disabled');
    if (found.party.disabledAt) throw invalidClient("the client's party is disabled");

    const verified = await this.verify(assertion, found.client, kid);
    await this.refuseReplay(clientId, verified);
    return found;
  }

  private async verify(assertion: string, client: SystemClient, kid: string): Promise<JWTPayload> {
    const now = this.options.now();
    try {
      const { payload } = await jwtVerify(assertion, this.options.keys.of(client), {
        algorithms: [...CLIENT_ASSERTION_ALGORITHMS],
        issuer: client.id,
        subject: client.id,
        audience: this.options.tokenEndpoint,
        requiredClaims: ['exp', 'jti'],
        clockTolerance: CLOCK_TOLERANCE_SECONDS,
        currentDate: new Date(now),
      });
      if ((payload.exp ?? Infinity) > Math.floor(now / 1000) + MAX_ASSERTION_LIFETIME_SECONDS + CLOCK_TOLERANCE_SECONDS) {
        throw invalidClient(`the client_assertion's exp is more than ${MAX_ASSERTION_LIFETIME_SECONDS} seconds ahead`);
      }
      return payload;
    } catch (error) {
      throw this.refusalOf(error, client, kid);
    }
  }

  private refusalOf(error: unknown, client: SystemClient, kid: string): unknown {
    if (error instanceof errors.JWKSNoMatchingKey) return invalidClient(`no key of the client's JWKS has the kid "${kid.slice(0, 100)}"`);
    if (error instanceof errors.JWKSMultipleMatchingKeys) return invalidClient(`several keys of the client's JWKS have the kid "${kid.slice(0, 100)}"`);
    if (error instanceof ClientKeysUnavailableError) {
      this.options.logger.warn({ clientId: client.id, reason: error.message }, "a client's keys could not be fetched from its jwks_url");
      return invalidClient("the client's keys could not be fetched from its jwks_url");
    }
    if (error instanceof errors.JWSSignatureVerificationFailed) {
      return invalidClient(`the client_assertion's signature does not verify with the client's key "${kid.slice(0, 100)}"`);
    }
    if (error instanceof errors.JWTExpired) return invalidClient('the client_assertion has expired');
    if (error instanceof errors.JWTClaimValidationFailed) return invalidClient(claimRefusal(error, this.options.tokenEndpoint));
    if (error instanceof errors.JOSEAlgNotAllowed) return invalidClient('the client_assertion must be signed with RS384 or ES384');
    if (error instanceof errors.JOSEError) return invalidClient('the client_assertion is not a valid signed JWT');
    return error;
  }

  /** Records the jti until the assertion can no longer pass (`exp` and the tolerance); a second use is refused. */
  private async refuseReplay(clientId: string, payload: JWTPayload): Promise<void> {
    const { jti, exp = 0 } = payload;
    if (typeof jti !== 'string' || jti === '' || jti.length > MAX_JTI_LENGTH) {
      throw invalidClient(`the client_assertion's jti must be 1 to ${MAX_JTI_LENGTH} characters`);
    }
    let stored: string | null;
    try {
      stored = await this.options.redis.set(jtiKey(clientId, jti), '1', 'EXAT', exp + CLOCK_TOLERANCE_SECONDS, 'NX');
    } catch (error) {
      throw new StoreUnavailableError('redis', error);
    }
    if (stored === null) throw invalidClient("the client_assertion's jti was used before");
  }
}

/**
 * The Redis key (under REDIS_KEY_PREFIX) of a used assertion: per client, since RFC 7523 3 makes a
 * jti unique per issuer; hashed, so that a key's length and characters do not depend on the caller.
 */
export function jtiKey(clientId: string, jti: string): string {
  return `auth:client-assertion:jti:${clientId}:${createHash('sha256').update(jti).digest('hex')}`;
}

function unverifiedParts(assertion: string) {
  try {
    return { header: decodeProtectedHeader(assertion), payload: decodeJwt(assertion) };
  } catch {
    throw invalidClient('the client_assertion is not a signed JWT');
  }
}

function claimRefusal({ claim, reason }: errors.JWTClaimValidationFailed, tokenEndpoint: string): string {
  if (reason === 'missing') return `the client_assertion has no ${claim}`;
  switch (claim) {
    case 'aud':
      return `the client_assertion's aud must be this token endpoint, ${tokenEndpoint}`;
    case 'iss':
    case 'sub':
      return "the client_assertion's iss and sub must both be the client id";
    case 'nbf':
      return 'the client_assertion is not valid yet (nbf)';
    case 'iat':
      return "the client_assertion's iat is in the future";
    default:
      return `the client_assertion's ${claim} is not valid`;
  }
}
