import { findMigrationsDir, openServiceDatabase } from '@bedrequest/persistence';
import { PrismaClient } from '../generated/prisma/client';

/** apps/routing/prisma/migrations: beside the bundle in dist (copied as an asset), or in the source tree. */
export const ROUTING_MIGRATIONS_DIR = findMigrationsDir(__dirname, 'routing');

export type RoutingDatabase = PrismaClient;

/** Creates the database if needed, migrates the routing schema, and connects the Prisma client. */
export function openRoutingDatabase(options: { databaseUrl: string; schema: string; poolSize: number; migrationsDir?: string }): Promise<RoutingDatabase> {
  return openServiceDatabase({ ...options, migrationsDir: options.migrationsDir ?? ROUTING_MIGRATIONS_DIR }, (adapter) => new PrismaClient({ adapter }));
}
