import { z } from 'zod';
import { baseServiceEnv, configSchema, databaseEnv, env, tokenEnv } from '@bedrequest/config';

const database = databaseEnv('ROUTING_DB_SCHEMA', 'routing');

export const RoutingConfig = configSchema({
  ...baseServiceEnv,
  HOST: z.string().default('127.0.0.1'),
  ROUTING_PORT: env.port(8083),
  /**
   * Health probes and metrics, never the API the other services call (and that port has neither):
   * the one port monitoring reaches (docs/operations.md, "Metrics and probes").
   */
  ROUTING_INTERNAL_PORT: env.port(9083),
  ...database,
  /** The clinic registry is read with service tokens, the bed counts with clinics' forwarded tokens. */
  ...tokenEnv,
  /**
   * How often the outbox relay looks for automatic answers whose immediate publish failed. Each
   * commit wakes the relay at once, so this does not delay answers (docs/decisions.md, "Timing").
   */
  OUTBOX_POLL_INTERVAL_MS: env.positiveInt(1_000),
});
export type RoutingConfig = z.infer<typeof RoutingConfig>;

/** What `npm run admin -- clinic ...` needs: the running stack's database, nothing else. */
export const RoutingCliConfig = configSchema({ NODE_ENV: baseServiceEnv.NODE_ENV, ...database });
export type RoutingCliConfig = z.infer<typeof RoutingCliConfig>;
