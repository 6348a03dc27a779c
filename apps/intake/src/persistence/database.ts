import { findMigrationsDir, openServiceDatabase } from '@bedrequest/persistence';
import { PrismaClient } from '../generated/prisma/client';

export const INTAKE_MIGRATIONS_DIR = findMigrationsDir(__dirname, 'intake');

export type IntakeDatabase = PrismaClient;

/** Creates the database if needed, migrates the intake schema, and connects the Prisma client. */
export function openIntakeDatabase(options: { databaseUrl: string; schema: string; poolSize: number; migrationsDir?: string }): Promise<IntakeDatabase> {
  return openServiceDatabase({ ...options, migrationsDir: options.migrationsDir ?? INTAKE_MIGRATIONS_DIR }, (adapter) => new PrismaClient({ adapter }));
}
