import type { Pool } from 'pg';
import { preparedStatementName } from '@bedrequest/persistence';
import type { Prisma, PrismaClient } from '../generated/prisma/client';

/** Runs one SQL statement inside a transaction and returns its rows. */
export interface SqlRunner {
  rows<T>(statement: Prisma.Sql): Promise<T[]>;
}

/** Runs `work` in one transaction: committed when it resolves, rolled back when it throws. */
export type Transactor = <T>(work: (run: SqlRunner) => Promise<T>) => Promise<T>;

/** Transactions through the service's Prisma client (its pg adapter and pool): how intake runs. */
export function prismaTransactor(prisma: PrismaClient): Transactor {
  return (work) => prisma.$transaction((tx) => work({ rows: (statement) => tx.$queryRaw(statement) }), { timeout: 15_000, maxWait: 10_000 });
}

/**
 * The same statements through a plain `pg` pool, bypassing Prisma: the benchmark's yardstick of
 * what Prisma costs on intake's hot path (bench/src/figure-persistence.ts).
 */
export function pgTransactor(pool: Pool): Transactor {
  return async (work) => {
    const client = await pool.connect();
    try {
      await client.query('BEGIN');
      const result = await work({
        // Prepared like the Prisma path's statements (libs/persistence createPrismaAdapter).
        rows: async <T>(statement: Prisma.Sql) => (await client.query({ name: preparedStatementName(statement.text), text: statement.text, values: statement.values })).rows as T[],
      });
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  };
}
