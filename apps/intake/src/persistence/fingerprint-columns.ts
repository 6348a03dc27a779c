import { FINGERPRINT_PREFIX, type FingerprintColumn, type FingerprintKey, type SqlClient } from '@bedrequest/crypto';
import { bundleFingerprint } from '../requests/canonical-json';
import { sealedFor, type SealedFields } from './sealed-fields';

/** A hash that is not a keyed fingerprint yet: the plain SHA-256 of a row written before migration 0010. */
const unkeyed = (column: string) => `(${column} NOT LIKE '${FINGERPRINT_PREFIX}%')`;

/**
 * Intake's columns of bundle hashes, for `intake keys` (how many are still plain SHA-256) and
 * `intake reencrypt` (which replaces them with fingerprints, docs/data-protection.md): each
 * version's and each document's hash from its bundle, and each request's latest hash from its
 * latest version's bundle. Like the re-encryption, a row is written only where it still holds the
 * hash read, so the service may run meanwhile; run again, they find nothing to do.
 */
export function fingerprintColumnsOf(sql: SqlClient, schema: string, fields: SealedFields): FingerprintColumn[] {
  if (!/^[a-z_][a-z0-9_]*$/.test(schema)) throw new Error(`unsafe schema name ${schema}`);
  const table = (name: string) => `"${schema}"."${name}"`;
  return [new VersionHashes(sql, table, fields), new DocumentHashes(sql, table, fields), new LatestHashes(sql, table, fields)];
}

type Table = (name: string) => string;

/** A row's bundle, sealed or (before migration 0008) in clear as jsonb's text. */
interface StoredBundle {
  sealed_bundle: Uint8Array | null;
  clear: string | null;
}

async function bundleOf(fields: SealedFields, context: string, row: StoredBundle): Promise<unknown> {
  return fields.open(context, { sealed: row.sealed_bundle, clear: row.clear === null ? null : (JSON.parse(row.clear) as unknown) });
}

async function count(sql: SqlClient, statement: string): Promise<number> {
  const [row] = await sql.query<{ rows: number }>(statement, []);
  return row?.rows ?? 0;
}

/** `request_version.canonical_hash`, walked by (request_id, version); a row's id is `<request_id>/<version>`. */
class VersionHashes implements FingerprintColumn {
  readonly name = 'request_version.canonical_hash';

  constructor(
    private readonly sql: SqlClient,
    private readonly table: Table,
    private readonly fields: SealedFields,
  ) {}

  countUnkeyed(): Promise<number> {
    return count(this.sql, `SELECT count(*)::int AS rows FROM ${this.table('request_version')} WHERE ${unkeyed('canonical_hash')}`);
  }

  async refingerprint(key: FingerprintKey, after: string | undefined, limit: number) {
    const [afterRequest, afterVersion] = after ? after.split('/') : [null, null];
    const rows = await this.sql.query<StoredBundle & { request_id: string; version: number; canonical_hash: string }>(
      `SELECT request_id::text AS request_id, version, sealed_bundle, bundle::text AS clear, canonical_hash
         FROM ${this.table('request_version')}
        WHERE ${unkeyed('canonical_hash')} AND ($1::uuid IS NULL OR (request_id, version) > ($1::uuid, $2::int))
        ORDER BY request_id, version
        LIMIT $3`,
      [afterRequest, afterVersion === null ? null : Number(afterVersion), limit],
    );
    const hashes = await Promise.all(
      rows.map(async (row) => bundleFingerprint(key, await bundleOf(this.fields, sealedFor.bundle(row.request_id, row.version), row)).value),
    );
    const written = rows.length
      ? await this.sql.query(
          `UPDATE ${this.table('request_version')} AS t SET canonical_hash = x.hash
             FROM unnest($1::uuid[], $2::int[], $3::text[], $4::text[]) AS x(request_id, version, hash, was)
            WHERE t.request_id = x.request_id AND t.version = x.version AND t.canonical_hash = x.was
            RETURNING 1`,
          [rows.map((row) => row.request_id), rows.map((row) => row.version), hashes, rows.map((row) => row.canonical_hash)],
        )
      : [];
    const last = rows.at(-1);
    return { last: last && `${last.request_id}/${last.version}`, read: rows.length, written: written.length };
  }
}

/** `request_document.canonical_hash`, walked by id. */
class DocumentHashes implements FingerprintColumn {
  readonly name = 'request_document.canonical_hash';

  constructor(
    private readonly sql: SqlClient,
    private readonly table: Table,
    private readonly fields: SealedFields,
  ) {}

  countUnkeyed(): Promise<number> {
    return count(this.sql, `SELECT count(*)::int AS rows FROM ${this.table('request_document')} WHERE ${unkeyed('canonical_hash')}`);
  }

  async refingerprint(key: FingerprintKey, after: string | undefined, limit: number) {
    const rows = await this.sql.query<StoredBundle & { id: string; canonical_hash: string }>(
      `SELECT id::text AS id, sealed_bundle, bundle::text AS clear, canonical_hash
         FROM ${this.table('request_document')}
        WHERE ${unkeyed('canonical_hash')} AND ($1::uuid IS NULL OR id > $1::uuid)
        ORDER BY id
        LIMIT $2`,
      [after ?? null, limit],
    );
    const hashes = await Promise.all(rows.map(async (row) => bundleFingerprint(key, await bundleOf(this.fields, sealedFor.document(row.id), row)).value));
    const written = rows.length
      ? await this.sql.query(
          `UPDATE ${this.table('request_document')} AS t SET canonical_hash = x.hash
             FROM unnest($1::uuid[], $2::text[], $3::text[]) AS x(id, hash, was)
            WHERE t.id = x.id AND t.canonical_hash = x.was
            RETURNING 1`,
          [rows.map((row) => row.id), hashes, rows.map((row) => row.canonical_hash)],
        )
      : [];
    return { last: rows.at(-1)?.id, read: rows.length, written: written.length };
  }
}

/**
 * `admission_request.latest_hash`, walked by id: the fingerprint of the latest version's bundle. An
 * erased request has no version left to fingerprint, and takes nothing more (RequestBatch): its
 * plain hash is emptied, as a request's is before its first version.
 */
class LatestHashes implements FingerprintColumn {
  readonly name = 'admission_request.latest_hash';

  constructor(
    private readonly sql: SqlClient,
    private readonly table: Table,
    private readonly fields: SealedFields,
  ) {}

  countUnkeyed(): Promise<number> {
    return count(this.sql, `SELECT count(*)::int AS rows FROM ${this.table('admission_request')} WHERE latest_hash <> '' AND ${unkeyed('latest_hash')}`);
  }

  async refingerprint(key: FingerprintKey, after: string | undefined, limit: number) {
    const rows = await this.sql.query<StoredBundle & { id: string; latest_hash: string; current_version: number; has_version: boolean }>(
      `SELECT r.id::text AS id, r.latest_hash, r.current_version, v.sealed_bundle, v.bundle::text AS clear, v.request_id IS NOT NULL AS has_version
         FROM ${this.table('admission_request')} r
         LEFT JOIN ${this.table('request_version')} v ON v.request_id = r.id AND v.version = r.current_version
        WHERE r.latest_hash <> '' AND ${unkeyed('r.latest_hash')} AND ($1::uuid IS NULL OR r.id > $1::uuid)
        ORDER BY r.id
        LIMIT $2`,
      [after ?? null, limit],
    );
    const hashes = await Promise.all(
      rows.map(async (row) =>
        row.has_version ? bundleFingerprint(key, await bundleOf(this.fields, sealedFor.bundle(row.id, row.current_version), row)).value : '',
      ),
    );
    const written = rows.length
      ? await this.sql.query(
          // Only where no new version came meanwhile (which brought its own fingerprint).
          `UPDATE ${this.table('admission_request')} AS t SET latest_hash = x.hash
             FROM unnest($1::uuid[], $2::text[], $3::text[], $4::int[]) AS x(id, hash, was, version)
            WHERE t.id = x.id AND t.latest_hash = x.was AND t.current_version = x.version
            RETURNING 1`,
          [rows.map((row) => row.id), hashes, rows.map((row) => row.latest_hash), rows.map((row) => row.current_version)],
        )
      : [];
    return { last: rows.at(-1)?.id, read: rows.length, written: written.length };
  }
}
