import { findMigrationsDir, openServiceDatabase } from '@bedrequest/persistence';
import { PrismaClient } from '../generated/prisma/client';

export const AUTH_MIGRATIONS_DIR = findMigrationsDir(__dirname, 'auth');

export type AuthDatabase = PrismaClient;

/** Creates the database if needed, migrates the auth schema, and connects the Prisma client. */
export function openAuthDatabase(options: { databaseUrl: string; schema: string; poolSize: number; migrationsDir?: string }): Promise<AuthDatabase> {
  return openServiceDatabase({ ...options, migrationsDir: options.migrationsDir ?? AUTH_MIGRATIONS_DIR }, (adapter) => new PrismaClient({ adapter }));
}
