import { z } from 'zod';
import { baseServiceEnv, env } from '@bedrequest/config';

export const GatewayConfig = z.object({
  ...baseServiceEnv,
  HOST: z.string().default('127.0.0.1'),
  /** The public port: `{base_url}` is http://127.0.0.1:8080 by default (decisions.md). */
  PORT: env.port(8080),
  AUTH_URL: env.url('http://127.0.0.1:8081', ['http:', 'https:']),
});
export type GatewayConfig = z.infer<typeof GatewayConfig>;
