import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { applyMigrations, createPrismaAdapter, ensureDatabase, readMigrations } from '@bedrequest/persistence';
import { PrismaClient } from '../generated/prisma/client';

/** apps/auth/prisma/migrations: beside the bundle in dist (copied as an asset), or in the source tree. */
export const AUTH_MIGRATIONS_DIR =
  [join(__dirname, 'prisma', 'migrations'), join(__dirname, '..', '..', 'prisma', 'migrations')].find((dir) => existsSync(dir)) ??
  join(__dirname, 'prisma', 'migrations');

export type AuthDatabase = PrismaClient;

/** Creates the database if needed, migrates the auth schema, and connects the Prisma client. */
export async function openAuthDatabase(options: {
  databaseUrl: string;
  schema: string;
  poolSize: number;
  migrationsDir?: string;
}): Promise<AuthDatabase> {
  await ensureDatabase(options.databaseUrl);
  await applyMigrations({
    databaseUrl: options.databaseUrl,
    schema: options.schema,
    migrations: readMigrations(options.migrationsDir ?? AUTH_MIGRATIONS_DIR),
  });
  const prisma = new PrismaClient({ adapter: createPrismaAdapter(options) });
  await prisma.$connect();
  return prisma;
}
