import { z } from 'zod';
import { baseServiceEnv, env } from '@bedrequest/config';

export const IntakeConfig = z.object({
  ...baseServiceEnv,
  HOST: z.string().default('127.0.0.1'),
  INTAKE_PORT: env.port(8082),
  DATABASE_URL: env.url('postgresql://postgres@127.0.0.1:5432/bedrequest', ['postgresql:', 'postgres:']),
  /** The PostgreSQL schema this service owns; no other service reads it. */
  INTAKE_DB_SCHEMA: z.string().regex(/^[a-z_][a-z0-9_]*$/).default('intake'),
  DATABASE_POOL_SIZE: env.positiveInt(10),
  /** `{profile_base}` of the service's code systems and profiles (decisions.md). */
  PROFILE_BASE: env.url('https://bedrequest.example.org', ['http:', 'https:']),
  /** Routing's internal API: the clinic registry, kept in memory (declines for clinics without the department). */
  ROUTING_URL: env.url('http://127.0.0.1:8083', ['http:', 'https:']),
  /** How often the outbox relay looks for messages whose immediate publish failed. */
  OUTBOX_POLL_INTERVAL_MS: env.positiveInt(1_000),
});
export type IntakeConfig = z.infer<typeof IntakeConfig>;
