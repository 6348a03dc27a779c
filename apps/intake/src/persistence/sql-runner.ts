import type { Pool } from 'pg';
import { preparedStatementName } from '@bedrequest/persistence';
import type { Prisma, PrismaClient } from '../generated/prisma/client';

/** Runs one SQL statement (atomic on its own) and returns its rows. */
export interface SqlRunner {
  rows<T>(statement: Prisma.Sql): Promise<T[]>;
}

/** Statements through the service's Prisma client (its pg adapter and pool): how intake runs. */
export function prismaRunner(prisma: PrismaClient): SqlRunner {
  return { rows: (statement) => prisma.$queryRaw(statement) };
}

/**
 * The same statements through a plain `pg` pool, bypassing Prisma: the benchmark's yardstick of
 * what Prisma costs on intake's hot path (bench/src/figure-persistence.ts). Prepared like the
 * Prisma path's statements (libs/persistence createPrismaAdapter).
 */
export function pgRunner(pool: Pool): SqlRunner {
  return {
    rows: async <T>(statement: Prisma.Sql) =>
      (await pool.query({ name: preparedStatementName(statement.text), text: statement.text, values: statement.values })).rows as T[],
  };
}
