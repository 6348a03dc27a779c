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

/** The tables and functions the request writers (storing, erasing) name in their raw statements. */
export function requestWriterTables(schema: string) {
  const table = (name: string) => intakeTable(schema, name);
  return {
    request: table('admission_request'),
    version: table('request_version'),
    task: table('clinic_task'),
    document: table('request_document'),
    inbox: table('inbox_message'),
    outbox: table('outbox_message'),
    erasure: table('request_erasure'),
    internalNote: table('clinic_internal_note'),
    answerStatistic: table('answer_statistic'),
    expectRows: table('expect_rows'),
    appendAudit: table('append_audit_events'),
  };
}
