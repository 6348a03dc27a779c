import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { PrismaPg } from '@prisma/adapter-pg';
import { ensureDatabase } from './ensure-database';
import { applyMigrations, readMigrations } from './migrations';
import { createPrismaAdapter } from './prisma-adapter';

/**
 * A service's `prisma/migrations` folder, found from the module that asks: beside the bundle in
 * dist (the build copies it there as an asset), two levels up in the source tree
 * (`apps/<service>/src/persistence` → `apps/<service>/prisma/migrations`), or, for a bundle in the
 * repository's `dist/apps/<service>`, in the source tree itself (the asset copy of parallel Nx builds
 * has been seen to go missing; the source is the same files).
 */
export function findMigrationsDir(moduleDir: string, service: string): string {
  const candidates = [
    join(moduleDir, 'prisma', 'migrations'),
    join(moduleDir, '..', '..', 'prisma', 'migrations'),
    join(moduleDir, '..', '..', '..', 'apps', service, 'prisma', 'migrations'),
  ];
  return candidates.find((dir) => existsSync(dir)) ?? candidates[0]!;
}

/**
 * Opens a service's database: creates it if needed, applies the service's migrations to its own
 * schema, and connects the service's Prisma client (built by `createClient` on the pg adapter).
 */
export async function openServiceDatabase<Client extends { $connect(): Promise<void> }>(
  options: { databaseUrl: string; schema: string; poolSize: number; migrationsDir: string },
  createClient: (adapter: PrismaPg) => Client,
): Promise<Client> {
  await ensureDatabase(options.databaseUrl);
  await applyMigrations({ databaseUrl: options.databaseUrl, schema: options.schema, migrations: readMigrations(options.migrationsDir) });
  const client = createClient(createPrismaAdapter(options));
  await client.$connect();
  return client;
}
