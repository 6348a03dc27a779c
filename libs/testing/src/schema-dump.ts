import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Everything PostgreSQL holds in the database of `databaseUrl`, every schema, as `pg_dump` writes
 * it: for a test whose stack has a database of its own (`ownDatabase`).
 */
export async function dumpDatabase(databaseUrl: string): Promise<string> {
  return dumpSchemas(databaseUrl, []);
}

/**
 * Everything PostgreSQL holds of `schemas` in the database of `databaseUrl`, as `pg_dump` writes it
 * (definitions and every row; `bytea` as hex; every schema when `schemas` is empty). For tests that look for data that must not be there
 * (encryption at rest, docs/data-protection.md).
 */
export async function dumpSchemas(databaseUrl: string, schemas: readonly string[]): Promise<string> {
  const { stdout } = await run('pg_dump', ['--dbname', databaseUrl, '--no-owner', ...schemas.flatMap((schema) => ['--schema', schema])], {
    maxBuffer: 256 * 1024 * 1024,
  });
  return stdout;
}

/**
 * The ways `text` could show in a dump: as it is (text, json), as pg_dump writes it in a `bytea`
 * (hex of its UTF-8), JSON-escaped (non-ASCII as \u escapes) and base64 (a FHIR attachment's
 * `data`; only the form that starts at a 3-byte boundary, which is how a document made of the text
 * alone is encoded).
 */
export function formsOf(text: string): string[] {
  const escaped = JSON.stringify(text)
    .slice(1, -1)
    .replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  const bytes = Buffer.from(text, 'utf8');
  // Whole groups of 3 bytes only: the last characters depend on the bytes that follow the text.
  const base64 = bytes.subarray(0, bytes.length - (bytes.length % 3)).toString('base64');
  return [...new Set([text, bytes.toString('hex'), escaped, base64])].filter((form) => form.length > 0);
}
