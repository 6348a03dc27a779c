import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Client } from 'pg';
import { get_dmmf } from '@prisma/prisma-schema-wasm';
import { applyMigrations, readMigrations } from '@bedrequest/persistence';

interface DmmfField {
  name: string;
  dbName?: string | null;
  kind: string;
  type: string;
  isList: boolean;
  isRequired: boolean;
  nativeType?: [string, string[]] | null;
  relationFromFields?: string[];
}
interface DmmfModel {
  name: string;
  dbName: string | null;
  fields: DmmfField[];
}
interface DmmfIndex {
  model: string;
  type: 'id' | 'unique' | 'normal' | 'fulltext';
  fields: { name: string }[];
}

/** The PostgreSQL type Prisma's migrations would create for a scalar field (information_schema names). */
function expectedColumnType(field: DmmfField): string {
  const native = field.nativeType?.[0];
  const byNative: Record<string, string> = {
    Uuid: 'uuid',
    Text: 'text',
    VarChar: 'character varying',
    Char: 'character',
    Timestamptz: 'timestamp with time zone',
    Timestamp: 'timestamp without time zone',
    Date: 'date',
    Integer: 'integer',
    SmallInt: 'smallint',
    BigInt: 'bigint',
    JsonB: 'jsonb',
    Json: 'json',
    Inet: 'inet',
  };
  const byType: Record<string, string> = {
    String: 'text',
    Int: 'integer',
    BigInt: 'bigint',
    Boolean: 'boolean',
    DateTime: 'timestamp without time zone',
    Json: 'jsonb',
    Float: 'double precision',
    Decimal: 'numeric',
    Bytes: 'bytea',
  };
  const type = (native && byNative[native]) ?? byType[field.type] ?? (field.kind === 'enum' ? 'USER-DEFINED' : field.type);
  return field.isList ? 'ARRAY' : type;
}

/**
 * Applies a service's migrations to a fresh schema and compares the result with its
 * schema.prisma: tables, columns, column types, nullability, primary keys, unique and plain indexes.
 * Returns the differences (empty when they agree). Defaults and foreign-key actions are not compared.
 *
 * Prisma's own `migrate diff` needs the native schema engine, which cannot be downloaded here.
 */
export async function compareSchemaWithMigrations(prismaDir: string, adminDatabaseUrl: string): Promise<string[]> {
  const prismaSchema = readFileSync(join(prismaDir, 'schema.prisma'), 'utf8');
  const dmmf = JSON.parse(get_dmmf(JSON.stringify({ prismaSchema: [['schema.prisma', prismaSchema]] }))) as {
    datamodel: { models: DmmfModel[]; indexes: DmmfIndex[] };
  };
  const schema = `drift_${Math.random().toString(36).slice(2, 10)}`;
  await applyMigrations({ databaseUrl: adminDatabaseUrl, schema, migrations: readMigrations(join(prismaDir, 'migrations')) });

  const client = new Client({ connectionString: adminDatabaseUrl });
  await client.connect();
  try {
    const columns = await client.query<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
      // Tables only: a view (the notifier's delivery_backlog) is no model of schema.prisma.
      `SELECT c.table_name, c.column_name, c.data_type, c.is_nullable FROM information_schema.columns c
         JOIN information_schema.tables t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
        WHERE c.table_schema = $1 AND t.table_type = 'BASE TABLE'`,
      [schema],
    );
    const indexes = await client.query<{ table_name: string; is_unique: boolean; is_primary: boolean; columns: string[] }>(
      `SELECT t.relname AS table_name, i.indisunique AS is_unique, i.indisprimary AS is_primary,
              array_agg(a.attname::text ORDER BY k.ord) AS columns
         FROM pg_index i
         JOIN pg_class t ON t.oid = i.indrelid
         JOIN pg_namespace n ON n.oid = t.relnamespace
         CROSS JOIN LATERAL unnest(i.indkey) WITH ORDINALITY AS k(attnum, ord)
         JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum
        WHERE n.nspname = $1
        GROUP BY t.relname, i.indexrelid, i.indisunique, i.indisprimary`,
      [schema],
    );

    const differences: string[] = [];
    const actualTables = new Map<string, Map<string, { type: string; nullable: boolean }>>();
    for (const row of columns.rows) {
      if (row.table_name === '_migrations') continue;
      const table = actualTables.get(row.table_name) ?? new Map();
      table.set(row.column_name, { type: row.data_type, nullable: row.is_nullable === 'YES' });
      actualTables.set(row.table_name, table);
    }
    const tableOf = new Map(dmmf.datamodel.models.map((model) => [model.name, model]));
    const columnName = (model: DmmfModel, fieldName: string) => {
      const field = model.fields.find((candidate) => candidate.name === fieldName);
      return field?.dbName ?? fieldName;
    };

    for (const model of dmmf.datamodel.models) {
      const tableName = model.dbName ?? model.name;
      const actual = actualTables.get(tableName);
      if (!actual) {
        differences.push(`table ${tableName} (model ${model.name}) is missing from the migrations`);
        continue;
      }
      const expectedColumns = model.fields.filter((field) => field.kind === 'scalar' || field.kind === 'enum');
      for (const field of expectedColumns) {
        const name = field.dbName ?? field.name;
        const column = actual.get(name);
        if (!column) {
          differences.push(`column ${tableName}.${name} is missing from the migrations`);
          continue;
        }
        const type = expectedColumnType(field);
        if (column.type !== type) differences.push(`column ${tableName}.${name}: migrations have ${column.type}, schema.prisma ${type}`);
        // A scalar list (String[]) is a column Prisma itself leaves nullable: it cannot say otherwise.
        if (column.nullable === field.isRequired && !(field.isList && column.nullable)) {
          differences.push(
            `column ${tableName}.${name}: migrations say ${column.nullable ? 'NULL' : 'NOT NULL'}, schema.prisma ${field.isRequired ? 'required' : 'optional'}`,
          );
        }
      }
      for (const name of actual.keys()) {
        if (!expectedColumns.some((field) => (field.dbName ?? field.name) === name)) {
          differences.push(`column ${tableName}.${name} exists in the migrations only`);
        }
      }
    }
    for (const tableName of actualTables.keys()) {
      if (![...tableOf.values()].some((model) => (model.dbName ?? model.name) === tableName)) {
        differences.push(`table ${tableName} exists in the migrations only`);
      }
    }

    const describe = (table: string, kind: string, cols: readonly string[]) => `${kind} ${table}(${cols.join(', ')})`;
    const actualIndexes = new Set(
      indexes.rows
        .filter((row) => row.table_name !== '_migrations')
        .map((row) => describe(row.table_name, row.is_primary ? 'primary key' : row.is_unique ? 'unique index' : 'index', row.columns)),
    );
    const expectedIndexes = new Set(
      dmmf.datamodel.indexes.map((index) => {
        const model = tableOf.get(index.model)!;
        const kind = index.type === 'id' ? 'primary key' : index.type === 'unique' ? 'unique index' : 'index';
        return describe(
          model.dbName ?? model.name,
          kind,
          index.fields.map((field) => columnName(model, field.name)),
        );
      }),
    );
    for (const index of expectedIndexes) if (!actualIndexes.has(index)) differences.push(`${index} is missing from the migrations`);
    for (const index of actualIndexes) if (!expectedIndexes.has(index)) differences.push(`${index} exists in the migrations only`);
    return differences;
  } finally {
    await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
    await client.end();
  }
}
