import { z } from 'zod';
import { configSchema, databaseEnv, env, processEnv, redisEnv, requiredInProduction, serviceClientEnv, tokenEnv } from '@bedrequest/config';

const database = databaseEnv('AUTH_DB_SCHEMA', 'auth');

/** Optional variables: unset and empty both mean "not configured". */
const optional = z
  .string()
  .optional()
  .transform((value) => (value?.trim() ? value : undefined));

/** The keys and claims tokens are signed with: the service's, and the admin CLI's for its own service token. */
const signing = {
  /** `iss` of every token. */
  AUTH_ISSUER: tokenEnv.AUTH_ISSUER,
  /** `aud` of service tokens. */
  SERVICE_TOKEN_AUDIENCE: tokenEnv.SERVICE_TOKEN_AUDIENCE,
  /**
   * The Ed25519 signing key: a private JWK (JSON) or a PKCS#8 PEM. Required in production; unset
   * elsewhere, a development key is generated once and kept in the auth schema.
   */
  AUTH_SIGNING_KEY: requiredInProduction(optional, 'the Ed25519 private key tokens are signed with (PKCS#8 PEM or private JWK), from a secret store'),
  /** `kid` of AUTH_SIGNING_KEY when the key itself carries none (PEM); default: its JWK thumbprint. */
  AUTH_SIGNING_KEY_ID: optional,
  /**
   * Public keys that still verify after a rotation: a JWKS (`{"keys":[...]}`) or a JSON array of
   * public JWKs, typically the previous key's entry copied from GET /internal/jwks.
   */
  AUTH_PREVIOUS_PUBLIC_KEYS: optional,
};

/**
 * System clients' keys by URL (docs/parties.md, "System clients and scopes"): the auth service
 * fetches them, the admin command line checks the URL when a client is registered.
 */
const clientKeys = {
  /**
   * Whether a client's jwks_url may name or resolve to a loopback, private or otherwise reserved
   * address (the notifier's SSRF guard). Default: true in development and test; refused in production,
   * where keys are never fetched from inside the network.
   */
  CLIENT_JWKS_ALLOW_PRIVATE: env.optionalBool,
};

/** How long keys fetched by URL are used, and the least time between two fetches for an unknown kid. */
const clientKeyCache = {
  CLIENT_JWKS_CACHE_MAX_AGE_SECONDS: env.positiveInt(300),
  CLIENT_JWKS_COOLDOWN_SECONDS: env.positiveInt(30),
};

/** Production fetches keys only from public https URLs: CLIENT_JWKS_ALLOW_PRIVATE=true does not start. */
function refusePrivateKeysInProduction(config: { NODE_ENV: string; CLIENT_JWKS_ALLOW_PRIVATE?: boolean | undefined }, context: z.RefinementCtx): void {
  if (config.NODE_ENV === 'production' && config.CLIENT_JWKS_ALLOW_PRIVATE === true) {
    context.addIssue({
      code: 'custom',
      path: ['CLIENT_JWKS_ALLOW_PRIVATE'],
      message: "must not be true in production: system clients' keys are never fetched from private addresses",
    });
  }
}

/** docs/parties.md: private JWKS addresses only when CLIENT_JWKS_ALLOW_PRIVATE=true, the default outside production. */
export function allowsPrivateClientJwks(config: { NODE_ENV: string; CLIENT_JWKS_ALLOW_PRIVATE?: boolean | undefined }): boolean {
  return config.NODE_ENV !== 'production' && (config.CLIENT_JWKS_ALLOW_PRIVATE ?? true);
}

export const AuthConfig = configSchema({
  ...processEnv,
  HOST: z.string().default('127.0.0.1'),
  AUTH_PORT: env.port(8081),
  /**
   * Health probes and metrics, never the API the other services call (and that port has neither):
   * the one port monitoring reaches (docs/operations.md, "Metrics and probes").
   */
  AUTH_INTERNAL_PORT: env.port(9081),
  ...redisEnv,
  ...database,

  ...signing,
  /** `aud` of parties' access tokens; the gateway and the services expect the same value. */
  AUTH_AUDIENCE: tokenEnv.AUTH_AUDIENCE,
  /** What the services present for their service tokens (POST /internal/service-tokens). */
  ...serviceClientEnv,
  /**
   * Further service client secrets auth takes besides SERVICE_CLIENT_SECRET, comma-separated: the
   * other one of a rotation (docs/operations.md, "Rotating keys and secrets"), so that services
   * holding the old secret and those holding the new one both get tokens while they are replaced.
   */
  SERVICE_CLIENT_ACCEPTED_SECRETS: optional
    .transform((value) =>
      (value ?? '')
        .split(',')
        .map((secret) => secret.trim())
        .filter(Boolean),
    )
    .pipe(z.array(z.string().min(32, 'each must be at least 32 characters, as SERVICE_CLIENT_SECRET'))),
  /** Lifetime of a refresh token; each refresh issues a new one with the full lifetime (30 days). */
  AUTH_REFRESH_TOKEN_TTL_SECONDS: env.positiveInt(30 * 24 * 3600),
  /**
   * The absolute lifetime of a login's refresh tokens (its family), however often they are
   * refreshed: after it, the party logs in with its password again (OAuth 2.0 Security BCP 4.14.2).
   * Default 90 days.
   */
  AUTH_REFRESH_FAMILY_MAX_AGE_SECONDS: env.positiveInt(90 * 24 * 3600),
  /**
   * Failed logins for one username from one client address within the window before that address
   * gets 429 for that username (guessing one account's password); the owner's other addresses stay open.
   */
  AUTH_LOGIN_MAX_FAILURES_PER_USERNAME_AND_ADDRESS: env.positiveInt(10),
  /** Failed logins per client address within the window before 429 (password spraying). */
  AUTH_LOGIN_MAX_FAILURES_PER_ADDRESS: env.positiveInt(100),
  /**
   * Failed logins for one username from all addresses within the window before it gets 429 from
   * every address it has not logged in from (guessing from many addresses); well above the limit
   * per username and address, so that one address cannot reach it (docs/parties.md, "Throttling").
   */
  AUTH_LOGIN_MAX_FAILURES_PER_USERNAME: env.positiveInt(100),
  AUTH_LOGIN_FAILURE_WINDOW_SECONDS: env.positiveInt(15 * 60),
  /**
   * The public API's address as callers reach it, the gateway's API_PUBLIC_URL: a client assertion's
   * `aud` must be its token endpoint, `${API_PUBLIC_URL}/api/v1/token/oauth2` (RFC 7523 3).
   */
  API_PUBLIC_URL: requiredInProduction(
    env.url('http://127.0.0.1:8080', ['http:', 'https:']),
    "the public API's address as callers reach it (https://bedrequest.example.org), the same as the gateway's",
  ),
  ...clientKeys,
  ...clientKeyCache,
}).superRefine(refusePrivateKeysInProduction);
export type AuthConfig = z.infer<typeof AuthConfig>;

/**
 * What `npm run admin -- user ...` needs: the running stack's database, routing's clinic API and the
 * signing key, for the service token it asks routing with.
 */
export const AuthCliConfig = configSchema({
  NODE_ENV: processEnv.NODE_ENV,
  ...database,
  ...signing,
  ROUTING_URL: env.url('http://127.0.0.1:8083', ['http:', 'https:']),
  ...clientKeys,
}).superRefine(refusePrivateKeysInProduction);
export type AuthCliConfig = z.infer<typeof AuthCliConfig>;
