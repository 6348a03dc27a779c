import { Prisma } from '../generated/prisma/client';

/**
 * A table of the intake schema for raw SQL. Prisma qualifies its own queries with the adapter's
 * schema, but raw queries run on the connection's search_path, so they name the schema themselves.
 * The schema name is safe to splice: config.ts admits only `[a-z_][a-z0-9_]*`, checked again here.
 */
export function intakeTable(schema: string, table: string): Prisma.Sql {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`unsafe schema name ${schema}`);
  return Prisma.raw(`"${schema}"."${table}"`);
}
