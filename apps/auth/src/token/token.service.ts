import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import type { TokenResponse } from '@bedrequest/contracts';
import { ACCESS_TOKEN_LIFETIME_SECONDS } from '@bedrequest/tokens';
import { InvalidCredentialsError, InvalidRefreshTokenError, StoreUnavailableError } from '../errors';
import type { PasswordHasher } from '../passwords/password-hasher';
import type { Member } from '../users/user';
import { normalizeUsername } from '../users/user-admin.service';
import type { UserRepository } from '../users/user.repository';
import type { AccessTokenIssuer } from './access-token.service';
import type { LoginThrottle } from './login-throttle';
import type { RefreshTokenRecord, RefreshTokenRepository } from './refresh-token.repository';

export interface TokenServiceDeps {
  readonly users: UserRepository;
  readonly passwords: PasswordHasher;
  readonly throttle: LoginThrottle;
  readonly accessTokens: AccessTokenIssuer;
  readonly refreshTokens: RefreshTokenRepository;
  readonly logger: Logger;
}

/** Login, refresh (spec, "Authentication" 3-7) and revocation (RFC 7009). */
export class TokenService {
  constructor(private readonly deps: TokenServiceDeps) {}

  async login(credentials: { username: string; password: string; clientAddress: string }): Promise<TokenResponse> {
    const username = normalizeUsername(credentials.username);
    // Taken before the person is read: their tokens carry it (iat, loginAt), so a disable that
    // commits while this login runs still revokes what it issues.
    const startedAt = this.deps.accessTokens.now();
    const attempt = await this.deps.throttle.count(username, credentials.clientAddress);
    const user = await this.findUser(() => this.deps.users.findByUsername(username));
    // Unknown user, wrong password and disabled user or party cost the same Argon2 verification and
    // get the same answer, so neither timing nor body tells which usernames exist.
    const passwordMatches = user
      ? await this.deps.passwords.verify(user.passwordHash, credentials.password)
      : await this.deps.passwords.verifyUnknownUser(credentials.password);
    if (!user || !passwordMatches || isDisabled(user)) {
      this.deps.logger.info({ reason: !user ? 'unknown-user' : !passwordMatches ? 'wrong-password' : 'disabled' }, 'login refused');
      throw new InvalidCredentialsError();
    }
    await this.deps.throttle.succeeded(attempt);
    const refreshToken = newRefreshToken();
    await this.deps.refreshTokens.startFamily(refreshToken, user.id, startedAt);
    this.deps.logger.info({ userId: user.id, partyId: user.party.id, role: user.party.role }, 'login');
    return this.respond(user, refreshToken, startedAt);
  }

  async refresh(presented: string): Promise<TokenResponse> {
    // Not the shape of any token newRefreshToken made (an access token, garbage): unknown, without asking Redis.
    if (!REFRESH_TOKEN_SHAPE.test(presented)) throw new InvalidRefreshTokenError();
    const startedAt = this.deps.accessTokens.now();
    const record = await this.deps.refreshTokens.find(presented);
    if (!record) throw new InvalidRefreshTokenError();
    const user = await this.findUser(() => this.deps.users.findById(record.userId));
    if (!user || isDisabled(user) || revokedSince(user, record)) {
      await this.deps.refreshTokens.revokeFamily(record.familyId);
      throw new InvalidRefreshTokenError();
    }
    const successor = newRefreshToken();
    const outcome = await this.deps.refreshTokens.rotate(presented, successor, record);
    if (outcome === 'reused') {
      // OAuth 2.0 Security BCP 4.14.2: a used refresh token came back, so it may be stolen; every
      // token of its family (including the legitimate client's newest) is now revoked.
      this.deps.logger.warn({ userId: record.userId, familyId: record.familyId }, 'refresh token reused; token family revoked');
    }
    if (outcome !== 'rotated') throw new InvalidRefreshTokenError();
    return this.respond(user, successor, startedAt);
  }

  /**
   * RFC 7009 (token revocation): ends the whole family of a refresh token, so that neither it nor
   * any token rotated from it refreshes again. A token that is not live (unknown, expired, already
   * revoked, not even of a refresh token's shape) is no error: the caller's goal, a dead token, holds.
   * A used token of a live family ends the family too, as its reuse at /refresh would.
   */
  async revoke(presented: string): Promise<void> {
    if (!REFRESH_TOKEN_SHAPE.test(presented)) return;
    const record = await this.deps.refreshTokens.find(presented);
    if (!record) return;
    await this.deps.refreshTokens.revokeFamily(record.familyId);
    this.deps.logger.info({ userId: record.userId, familyId: record.familyId }, 'refresh token family revoked');
  }

  private async respond(user: Member, refreshToken: string, startedAt: number): Promise<TokenResponse> {
    return {
      tokenType: 'Bearer',
      accessToken: await this.deps.accessTokens.issue(user, startedAt),
      expiresIn: ACCESS_TOKEN_LIFETIME_SECONDS,
      refreshToken,
    };
  }

  private async findUser(query: () => Promise<Member | undefined>): Promise<Member | undefined> {
    try {
      return await query();
    } catch (error) {
      throw new StoreUnavailableError('database', error);
    }
  }
}

/** A disabled user, or any user of a disabled party (docs/parties.md, "Disabling"), neither logs in nor refreshes. */
function isDisabled(user: Member): boolean {
  return user.disabledAt !== null || user.party.disabledAt !== null;
}

/**
 * Whether the person's or the party's tokens were revoked (a disable) after the login this refresh
 * token descends from: enabling them again brings no earlier session back (docs/parties.md,
 * "Disabling"). A token stored without its login time (an earlier release's) counts as older than
 * any revocation.
 */
function revokedSince(user: Member, record: RefreshTokenRecord): boolean {
  const revokedAt = Math.max(user.tokensRevokedAt?.getTime() ?? 0, user.party.tokensRevokedAt?.getTime() ?? 0);
  if (revokedAt === 0) return false;
  return record.loginAtMs === undefined || record.loginAtMs <= revokedAt;
}

/** 32 random bytes, base64url: opaque to the client, unguessable (256 bits). */
function newRefreshToken(): string {
  return randomBytes(32).toString('base64url');
}

/** What newRefreshToken makes: 32 bytes in base64url without padding are 43 characters. */
const REFRESH_TOKEN_SHAPE = /^[A-Za-z0-9_-]{43}$/;
