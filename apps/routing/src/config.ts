import { z } from 'zod';
import { baseServiceEnv, env } from '@bedrequest/config';

const databaseEnv = {
  DATABASE_URL: env.url('postgresql://postgres@127.0.0.1:5432/bedrequest', ['postgresql:', 'postgres:']),
  /** The PostgreSQL schema this service owns; no other service reads it. */
  ROUTING_DB_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]*$/).default('routing'),
  DATABASE_POOL_SIZE: env.positiveInt(10),
};

export const RoutingConfig = z.object({
  ...baseServiceEnv,
  HOST: z.string().default('127.0.0.1'),
  ROUTING_PORT: env.port(8083),
  ...databaseEnv,
  /**
   * How often the outbox relay looks for automatic answers whose immediate publish failed. Each
   * commit wakes the relay at once, so this does not delay answers (decisions.md, "Timing").
   */
  OUTBOX_POLL_INTERVAL_MS: env.positiveInt(1_000),
});
export type RoutingConfig = z.infer<typeof RoutingConfig>;

/** What `npm run admin -- clinic ...` needs: the running stack's database, nothing else. */
export const RoutingCliConfig = z.object(databaseEnv);
export type RoutingCliConfig = z.infer<typeof RoutingCliConfig>;
