import { compareSchemaWithMigrations } from '@bedrequest/testing';

describe('auth database schema', () => {
  it('schema.prisma and the SQL migrations describe the same tables', async () => {
    await expect(compareSchemaWithMigrations('apps/auth/prisma', process.env.DATABASE_URL!)).resolves.toEqual([]);
  });
});
