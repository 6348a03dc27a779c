import type { Server } from 'node:http';
import { jsonErrorHandler } from '@bedrequest/http';
import { createServiceHttpApp, serveHttp, serveProbes, startService, type Started } from '@bedrequest/observability';
import { closeRedis, databaseIsReachable, openRedis } from '@bedrequest/persistence';
import { ClientAuthenticator } from './clients/client-assertion';
import { ClientKeys, type JwksCacheTimes } from './clients/client-keys';
import { ClientRepository } from './clients/client.repository';
import { GuardedJwksFetch } from './clients/jwks-url';
import { oauth2TokenRouter } from './clients/oauth2-token.router';
import { allowsPrivateClientJwks, type AuthConfig } from './config';
import { jwksRouter } from './keys/jwks.router';
import { ownKeysVerifier } from './keys/own-keys-verifier';
import { signingKeysOf } from './keys/signing-key.repository';
import { PasswordHasher } from './passwords/password-hasher';
import { mailRecipientsRouter } from './parties/mail-recipients.router';
import { partyContactRouter } from './parties/party-contact.router';
import { PartyMemberRepository } from './parties/party-members.repository';
import { partyMembersApi } from './parties/party-members.router';
import { PartyRepository } from './parties/party.repository';
import { openAuthDatabase } from './persistence/database';
import { AccessTokenIssuer, ServiceTokenIssuer, type Clock } from './token/access-token.service';
import { LoginThrottle } from './token/login-throttle';
import { RefreshTokenRepository } from './token/refresh-token.repository';
import { RevocationRepository } from './token/revocation.repository';
import { revocationRouter } from './token/revocation.router';
import { serviceTokenRouter } from './token/service-token.router';
import { tokenRouter } from './token/token.router';
import { TokenService } from './token/token.service';
import { UserRepository } from './users/user.repository';
import { clientTokenEndpoint } from '@bedrequest/tokens';

export type RunningAuth = Started<{
  readonly server: Server;
  /** The bound address, e.g. http://127.0.0.1:8081 (AUTH_PORT=0 picks a free port): the token endpoints, the keys, service tokens. */
  readonly url: string;
  /** The internal address (AUTH_INTERNAL_PORT): health probes and metrics. */
  readonly internalUrl: string;
}>;

export interface AuthDependencies {
  /** The clock tokens are issued by; tests move it. */
  readonly now?: Clock;
  /** How long system clients' keys fetched by URL are kept; tests shorten it. */
  readonly clientJwks?: JwksCacheTimes;
}

export function startAuth(config: AuthConfig, dependencies: AuthDependencies = {}): Promise<RunningAuth> {
  const now = dependencies.now ?? Date.now;
  return startService('auth', { logLevel: config.LOG_LEVEL, shutdownTimeoutMs: config.SHUTDOWN_TIMEOUT_MS }, async (context) => {
    const { logger, registry, lifecycle } = context;
    const prisma = await openAuthDatabase({
      databaseUrl: config.DATABASE_URL,
      schema: config.AUTH_DB_SCHEMA,
      poolSize: config.DATABASE_POOL_SIZE,
    });
    lifecycle.onStop('database', () => prisma.$disconnect());

    const keys = await signingKeysOf(config, prisma);
    if (!config.AUTH_SIGNING_KEY) logger.warn({ kid: keys.current.kid }, 'signing with the development key (AUTH_SIGNING_KEY not set)');

    const redis = openRedis(config, logger);
    lifecycle.onStop('redis', () => closeRedis(redis));

    const passwords = await PasswordHasher.create();
    const accessTokens = new AccessTokenIssuer({ keys, issuer: config.AUTH_ISSUER, audience: config.AUTH_AUDIENCE, now });
    const tokens = new TokenService({
      users: new UserRepository(prisma),
      passwords,
      throttle: new LoginThrottle(redis, {
        failuresPerUsernameAndAddress: config.AUTH_LOGIN_MAX_FAILURES_PER_USERNAME_AND_ADDRESS,
        failuresPerAddress: config.AUTH_LOGIN_MAX_FAILURES_PER_ADDRESS,
        failuresPerUsername: config.AUTH_LOGIN_MAX_FAILURES_PER_USERNAME,
        windowSeconds: config.AUTH_LOGIN_FAILURE_WINDOW_SECONDS,
        // Known as long as a login's refresh tokens can last: a party that keeps refreshing logs in again within it.
        knownAddressSeconds: config.AUTH_REFRESH_FAMILY_MAX_AGE_SECONDS,
      }),
      accessTokens,
      refreshTokens: new RefreshTokenRepository(redis, config.AUTH_REFRESH_TOKEN_TTL_SECONDS, config.AUTH_REFRESH_FAMILY_MAX_AGE_SECONDS),
      logger,
    });

    // The gateway reads the revocation list every second, the notifiers the disabled parties: their polls are counted, not logged.
    const app = createServiceHttpApp({
      logger,
      registry,
      trustedProxies: config.TRUSTED_PROXIES,
      polledPaths: ['/internal/revocations', '/internal/disabled-parties'],
    });
    const jwksFetch = new GuardedJwksFetch({ production: config.NODE_ENV === 'production', allowPrivate: allowsPrivateClientJwks(config) });
    lifecycle.onStop('client-jwks', () => jwksFetch.close());
    const authenticator = new ClientAuthenticator({
      clients: new ClientRepository(prisma),
      keys: new ClientKeys(
        jwksFetch,
        dependencies.clientJwks ?? { cacheMaxAgeMs: config.CLIENT_JWKS_CACHE_MAX_AGE_SECONDS * 1000, cooldownMs: config.CLIENT_JWKS_COOLDOWN_SECONDS * 1000 },
      ),
      redis,
      tokenEndpoint: clientTokenEndpoint(config.API_PUBLIC_URL),
      now,
      logger,
    });
    // System clients (SMART Backend Services), before the JSON token endpoints: its body is form-encoded.
    app.use('/api/v1/token/oauth2', oauth2TokenRouter({ authenticator, issuer: accessTokens, logger }));
    app.use('/api/v1/token', tokenRouter(tokens));
    app.use('/internal', jwksRouter(keys.jwks));
    const serviceTokens = new ServiceTokenIssuer({ keys, issuer: config.AUTH_ISSUER, serviceAudience: config.SERVICE_TOKEN_AUDIENCE, now });
    app.use('/internal', serviceTokenRouter(serviceTokens, [config.SERVICE_CLIENT_SECRET, ...config.SERVICE_CLIENT_ACCEPTED_SECRETS]));
    const tokenNames = { issuer: config.AUTH_ISSUER, audience: config.AUTH_AUDIENCE, now };
    const services = ownKeysVerifier(keys.jwks, { ...tokenNames, serviceAudience: config.SERVICE_TOKEN_AUDIENCE });
    app.use('/internal', revocationRouter(new RevocationRepository(prisma, now), services));
    app.use('/internal', partyContactRouter({ parties: new PartyRepository(prisma), services }));
    // Whom intake's e-mail about a party's requests goes to (docs/operations.md, "E-mail").
    app.use('/internal', mailRecipientsRouter({ members: new PartyMemberRepository(prisma), services }));
    // The party administrator's API, behind the gateway's /api/v1/party (docs/parties.md, "Party administrators").
    app.use('/internal/party', partyMembersApi({ prisma, verifier: ownKeysVerifier(keys.jwks, tokenNames), passwords, now, logger }));
    app.use(jsonErrorHandler(logger));

    const internal = await serveProbes(context, {
      readiness: { redis: () => redis.status === 'ready', database: () => databaseIsReachable(() => prisma.$queryRaw`SELECT 1`) },
      host: config.HOST,
      port: config.AUTH_INTERNAL_PORT,
      after: [jsonErrorHandler(logger)],
    });
    const { server, url } = await serveHttp(context, app, { host: config.HOST, port: config.AUTH_PORT });
    return { server, url, internalUrl: internal.url };
  });
}
