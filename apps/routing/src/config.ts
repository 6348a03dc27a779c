import { z } from 'zod';
import { baseServiceEnv, env } from '@bedrequest/config';

export const RoutingConfig = z.object({
  ...baseServiceEnv,
  HOST: z.string().default('127.0.0.1'),
  ROUTING_PORT: env.port(8083),
});
export type RoutingConfig = z.infer<typeof RoutingConfig>;
