export { ensureDatabase } from './ensure-database';
export { applyMigrations, readMigrations, type Migration, type MigrationResult } from './migrations';
export { createPrismaAdapter } from './prisma-adapter';
export { databaseIsReachable } from './readiness';
export { findMigrationsDir, openServiceDatabase } from './service-database';
