import { PrismaPg } from '@prisma/adapter-pg';

/**
 * The pg driver adapter for a service's Prisma client, bound to the service's own schema: every
 * service owns one PostgreSQL schema and never reads another's.
 */
export function createPrismaAdapter(options: { databaseUrl: string; schema: string; poolSize?: number }): PrismaPg {
  return new PrismaPg(
    { connectionString: options.databaseUrl, max: options.poolSize ?? 10, connectionTimeoutMillis: 5_000 },
    { schema: options.schema },
  );
}
