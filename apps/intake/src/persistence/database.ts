import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { applyMigrations, createPrismaAdapter, ensureDatabase, readMigrations } from '@bedrequest/persistence';
import { PrismaClient } from '../generated/prisma/client';

/** apps/intake/prisma/migrations: beside the bundle in dist (copied as an asset), or in the source tree. */
export const INTAKE_MIGRATIONS_DIR =
  [join(__dirname, 'prisma', 'migrations'), join(__dirname, '..', '..', 'prisma', 'migrations')].find((dir) => existsSync(dir)) ??
  join(__dirname, 'prisma', 'migrations');

export type IntakeDatabase = PrismaClient;

/** Creates the database if needed, migrates the intake schema, and connects the Prisma client. */
export async function openIntakeDatabase(options: {
  databaseUrl: string;
  schema: string;
  poolSize: number;
  migrationsDir?: string;
}): Promise<IntakeDatabase> {
  await ensureDatabase(options.databaseUrl);
  await applyMigrations({
    databaseUrl: options.databaseUrl,
    schema: options.schema,
    migrations: readMigrations(options.migrationsDir ?? INTAKE_MIGRATIONS_DIR),
  });
  const prisma = new PrismaClient({ adapter: createPrismaAdapter(options) });
  await prisma.$connect();
  return prisma;
}
