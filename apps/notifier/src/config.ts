import { z } from 'zod';
import { baseServiceEnv, env } from '@bedrequest/config';

export const NotifierConfig = z.object({
  ...baseServiceEnv,
  HOST: z.string().default('127.0.0.1'),
  NOTIFIER_PORT: env.port(8084),
});
export type NotifierConfig = z.infer<typeof NotifierConfig>;
