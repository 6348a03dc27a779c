import { compareSchemaWithMigrations, testEnvironment } from '@bedrequest/testing';

describe('routing database schema', () => {
  it('schema.prisma and the SQL migrations describe the same tables', async () => {
    await expect(compareSchemaWithMigrations('apps/routing/prisma', testEnvironment().databaseUrl)).resolves.toEqual([]);
  });
});
