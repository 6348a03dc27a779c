import { z } from 'zod';
import { baseServiceEnv, env } from '@bedrequest/config';

export const AuthConfig = z.object({
  ...baseServiceEnv,
  HOST: z.string().default('127.0.0.1'),
  AUTH_PORT: env.port(8081),
  REDIS_URL: env.url('redis://127.0.0.1:6379', ['redis:', 'rediss:']),
  /** Prefix of every Redis key, so that test runs and stacks can share one Redis. */
  REDIS_KEY_PREFIX: z.string().default('bedrequest:'),
});
export type AuthConfig = z.infer<typeof AuthConfig>;
