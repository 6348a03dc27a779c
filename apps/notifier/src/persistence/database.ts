import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { applyMigrations, createPrismaAdapter, ensureDatabase, readMigrations } from '@bedrequest/persistence';
import { Prisma, PrismaClient } from '../generated/prisma/client';

/** apps/notifier/prisma/migrations: beside the bundle in dist (copied as an asset), or in the source tree. */
export const NOTIFIER_MIGRATIONS_DIR =
  [join(__dirname, 'prisma', 'migrations'), join(__dirname, '..', '..', 'prisma', 'migrations')].find((dir) => existsSync(dir)) ??
  join(__dirname, 'prisma', 'migrations');

export type NotifierDatabase = PrismaClient;
export type Tx = Prisma.TransactionClient;

/** Creates the database if needed, migrates the notifier schema, and connects the Prisma client. */
export async function openNotifierDatabase(options: {
  databaseUrl: string;
  schema: string;
  poolSize: number;
  migrationsDir?: string;
}): Promise<NotifierDatabase> {
  await ensureDatabase(options.databaseUrl);
  await applyMigrations({
    databaseUrl: options.databaseUrl,
    schema: options.schema,
    migrations: readMigrations(options.migrationsDir ?? NOTIFIER_MIGRATIONS_DIR),
  });
  const prisma = new PrismaClient({ adapter: createPrismaAdapter(options) });
  await prisma.$connect();
  return prisma;
}

/**
 * Schema-qualified table names for raw SQL. Prisma qualifies its own queries with the adapter's
 * schema, but raw SQL runs with the connection's default search_path. The schema name is checked
 * by the config (`^[a-z_][a-z0-9_]*$`) and by applyMigrations, so quoting it is safe.
 */
export function notifierTables(schema: string) {
  const table = (name: string) => Prisma.raw(`"${schema}"."${name}"`);
  return {
    inbox: table('inbox_message'),
    subscription: table('subscription'),
    delivery: table('delivery'),
    attempt: table('delivery_attempt'),
  };
}
export type NotifierTables = ReturnType<typeof notifierTables>;
