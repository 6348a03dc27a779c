import { join } from 'node:path';
import { compareSchemaWithMigrations, testEnvironment } from '@bedrequest/testing';

describe('notifier schema', () => {
  it('schema.prisma and the SQL migrations describe the same tables', async () => {
    expect(await compareSchemaWithMigrations(join(__dirname, '..', '..', 'prisma'), testEnvironment().databaseUrl)).toEqual([]);
  });
});
