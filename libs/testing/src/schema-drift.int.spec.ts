import { join } from 'node:path';
import { testEnvironment } from './environment';
import { compareSchemaWithMigrations } from './schema-drift';

describe('compareSchemaWithMigrations', () => {
  it('names every difference between schema.prisma and the migrations', async () => {
    const differences = await compareSchemaWithMigrations(join(__dirname, 'fixtures', 'drifted'), testEnvironment().databaseUrl);
    expect(differences.sort()).toEqual(
      [
        'column widget.comment is missing from the migrations',
        'column widget.extra exists in the migrations only',
        'column widget.name: migrations say NULL, schema.prisma required',
        'column widget.size: migrations have bigint, schema.prisma integer',
        'index widget(name) is missing from the migrations',
      ].sort(),
    );
  });
});
