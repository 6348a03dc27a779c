// Types of preflight.mjs for the TypeScript that imports it (tools/preflight.spec.ts).

/** PostgreSQL, Redis and RabbitMQ as `npm start` checks them. */
export const INFRASTRUCTURE: readonly {
  name: 'PostgreSQL' | 'Redis' | 'RabbitMQ';
  variable: 'DATABASE_URL' | 'REDIS_URL' | 'AMQP_URL';
  fallback: string;
  composeService: string;
  defaultPort: number;
}[];

/** One line per piece that does not answer (none: all three did). */
export function checkInfrastructure(env?: NodeJS.ProcessEnv): Promise<string[]>;
