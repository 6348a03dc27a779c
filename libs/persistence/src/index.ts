export { ensureDatabase } from './ensure-database';
export { applyMigrations, MigrationHistoryError, PendingMigrationError, readMigrations, type Migration, type MigrationResult } from './migrations';
export { createPrismaAdapter, preparedStatementName } from './prisma-adapter';
export { databaseIsReachable } from './readiness';
export { findMigrationsDir, openServiceDatabase } from './service-database';
export { describeDatabase, openPlainSql, openPlainSqlSession, type PlainSqlClient } from './plain-sql';
export { closeRedis, openRedis, redisTls } from './redis';
