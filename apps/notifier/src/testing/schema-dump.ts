import { execFile } from 'node:child_process';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Everything PostgreSQL holds of `schemas` in the database of `databaseUrl`, as `pg_dump` writes it
 * (definitions and every row; `bytea` as hex). For tests that look for data that must not be there.
 */
export async function dumpSchemas(databaseUrl: string, schemas: readonly string[]): Promise<string> {
  const { stdout } = await run('pg_dump', ['--dbname', databaseUrl, '--no-owner', ...schemas.flatMap((schema) => ['--schema', schema])], { maxBuffer: 256 * 1024 * 1024 });
  return stdout;
}

/**
 * The ways `text` could show in a dump: as it is (text, json), as pg_dump writes it in a `bytea`
 * (hex of its UTF-8) and JSON-escaped (non-ASCII as \u escapes).
 */
export function formsOf(text: string): string[] {
  const escaped = JSON.stringify(text).slice(1, -1).replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
  return [...new Set([text, Buffer.from(text, 'utf8').toString('hex'), escaped])];
}
