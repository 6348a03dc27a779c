import { z } from 'zod';
import { baseServiceEnv, configSchema, env, redisEnv, requiredInProduction, serviceClientEnv, tokenEnv } from '@bedrequest/config';

export const GatewayConfig = configSchema({
  ...baseServiceEnv,
  HOST: z.string().default('127.0.0.1'),
  /** The public port: `{base_url}` is http://127.0.0.1:8080 by default (docs/decisions.md). */
  PORT: env.port(8080),
  /**
   * The internal port: health probes and metrics, never the public API (and the public port has
   * neither). Reachable only from inside the deployment.
   */
  INTERNAL_PORT: env.port(9080),
  /**
   * The public API's address as its callers reach it (behind the Ingress or proxy): the SMART
   * discovery document names the token endpoint under it, and auth, configured with the same
   * value, takes it as the audience of system clients' assertions (docs/parties.md).
   */
  API_PUBLIC_URL: requiredInProduction(
    env.url('http://127.0.0.1:8080', ['http:', 'https:']),
    "the public API's address as callers reach it (https://bedrequest.example.org), the same as auth's",
  ),
  /** The auth service: the token endpoints behind /api/v1/token, and the keys tokens are verified with. */
  ...tokenEnv,
  /** For the service token the gateway reads routing's clinic registry with. */
  ...serviceClientEnv,
  /** Routing's internal clinic API, behind GET /api/v1/kliniken and the performer check. */
  ROUTING_URL: env.url('http://127.0.0.1:8083', ['http:', 'https:']),
  /** The notifier's internal subscription API, behind /api/v1/subscriptions. */
  NOTIFIER_URL: env.url('http://127.0.0.1:8084', ['http:', 'https:']),
  /** Intake's internal read API (Tasks, bundles for clinics). */
  INTAKE_URL: env.url('http://127.0.0.1:8082', ['http:', 'https:']),
  /** `{profile_base}` of the profiles and code systems (docs/decisions.md). */
  PROFILE_BASE: env.url('https://bedrequest.example.org', ['http:', 'https:']),
  /**
   * How long a POST waits for intake's verdict before answering 202 for a queued message. Intake
   * answers within milliseconds when it keeps up; a short bound keeps a backlog at intake from
   * holding callers (and their connections) for long.
   */
  INTAKE_VERDICT_TIMEOUT_MS: env.positiveInt(1_000),
  /**
   * The request rates the limits count (rate-limit.ts), shared by every gateway process so that a
   * party's budget does not grow with the replicas; while Redis is down each process counts alone.
   */
  ...redisEnv,
  /** Requests per second per authenticated party, over all gateway processes, then 429. */
  RATE_LIMIT_PER_SECOND: env.positiveInt(200),
  /** Requests of one party being answered at once, per gateway process, then 429. */
  RATE_LIMIT_CONCURRENT_PER_PARTY: env.positiveInt(128),
  /** Request body bytes (as declared) of one party being answered at once, per gateway process, then 429: three full bundles. */
  RATE_LIMIT_BYTES_IN_FLIGHT_PER_PARTY: env.positiveInt(30 * 2 ** 20),
  /**
   * Request body bytes per second per authenticated party, over all gateway processes, counted over
   * 10-second windows (rate-limit.ts), then 429; refused bodies count too. 2 MiB: two of the largest
   * bundles (10 MiB) in a window, or about 350 typical ones (6 kB) a second, more than the request
   * rate lets through; while a party abusing it can have only a few large bodies parsed per window
   * (bench figure 9). At least 1 MiB, so that a window holds the largest bundle.
   */
  RATE_LIMIT_BYTES_PER_SECOND: z.coerce
    .number()
    .int()
    .min(2 ** 20)
    .default(2 * 2 ** 20),
  /**
   * Requests per second per client address (an IPv6 address's /64) to the routes without a token,
   * each group with a budget of its own (address-limits.ts): the token endpoints; the
   * CapabilityStatement and conformance resources, the OpenAPI document and the service index. And
   * the invalid access tokens an address may send per second before its tokens are no longer
   * verified (invalid-token-limit.ts).
   */
  RATE_LIMIT_PER_ADDRESS_PER_SECOND: env.positiveInt(20),
  /**
   * How long a refusal of the limits above (429) is held before it is answered, at most: until the
   * caller could be served again (rate-limit.ts, RefusalHold). 0 answers at once. At most 2 s: a
   * stopping gateway waits for held refusals within its SHUTDOWN_TIMEOUT_MS.
   */
  RATE_LIMIT_REFUSAL_HOLD_MS: z.coerce.number().int().min(0).max(2_000).default(1_000),
  /**
   * Client addresses the per-address limit never counts, as TRUSTED_PROXIES is written (addresses,
   * CIDRs, `loopback`); empty by default. `npm start` and the tests set `loopback`.
   */
  RATE_LIMIT_EXEMPT_ADDRESSES: env.trustedProxies,
  /**
   * The web app's public address (apps/web): `GET /inbox/…` here, the clinic inbox's address before
   * it became its own app, is redirected there so that bookmarks keep working.
   */
  WEB_PUBLIC_URL: env.url('http://127.0.0.1:8085', ['http:', 'https:']),
  /**
   * A sandbox's gateway (`npm run sandbox`, docs/sandbox.md): every answer of the public port says
   * so in `Bedrequest-Environment: sandbox`, so that no client takes it for production.
   */
  SANDBOX: env.bool(false),
});
export type GatewayConfig = z.infer<typeof GatewayConfig>;
