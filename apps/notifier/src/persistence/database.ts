import { findMigrationsDir, openServiceDatabase } from '@bedrequest/persistence';
import { Prisma, PrismaClient } from '../generated/prisma/client';

export const NOTIFIER_MIGRATIONS_DIR = findMigrationsDir(__dirname, 'notifier');

export type NotifierDatabase = PrismaClient;
export type Tx = Prisma.TransactionClient;

/** Creates the database if needed, migrates the notifier schema, and connects the Prisma client. */
export function openNotifierDatabase(options: { databaseUrl: string; schema: string; poolSize: number; migrationsDir?: string }): Promise<NotifierDatabase> {
  return openServiceDatabase({ ...options, migrationsDir: options.migrationsDir ?? NOTIFIER_MIGRATIONS_DIR }, (adapter) => new PrismaClient({ adapter }));
}

/**
 * Schema-qualified table names for raw SQL. Prisma qualifies its own queries with the adapter's
 * schema, but raw SQL runs with the connection's default search_path. The schema name is checked
 * by the config (`^[a-z_][a-z0-9_]*$`) and by applyMigrations, so quoting it is safe.
 */
export function notifierTables(schema: string) {
  const table = (name: string) => Prisma.raw(`"${schema}"."${name}"`);
  return {
    /** The schema's name: the key of the claims' turn (claim-rule.ts claimTurn). */
    schema,
    inbox: table('inbox_message'),
    subscription: table('subscription'),
    delivery: table('delivery'),
    attempt: table('delivery_attempt'),
    erasure: table('request_erasure'),
    /** The function `request_erased(party, request)` (the baseline migration): reads the marks in a fresh snapshot. */
    requestErased: table('request_erased'),
  };
}
export type NotifierTables = ReturnType<typeof notifierTables>;
