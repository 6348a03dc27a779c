// What a fault reads of its stack's databases to tell what was kept: how often each accepted
// bundle is stored in intake, and where the notifier's deliveries of some requests stand.
import type { Pool } from 'pg';

export interface StoredCounts {
  /** Identifiers with exactly one request and one version. */
  storedOnce: number;
  /** Identifiers stored with more than one request row or version. */
  duplicated: string[];
  /** Identifiers not stored at all. */
  missing: string[];
}

/** How often each identifier is stored in intake's schema `schema`: requests and versions. */
export async function storedCounts(pool: Pool, schema: string, identifiers: readonly string[]): Promise<StoredCounts> {
  const { rows } = await pool.query<{ identifier: string; requests: number; versions: number }>(
    `SELECT r.identifier, count(DISTINCT r.id)::int AS requests, count(v.version)::int AS versions
       FROM "${schema}".admission_request r LEFT JOIN "${schema}".request_version v ON v.request_id = r.id
      WHERE r.identifier = ANY($1) GROUP BY r.identifier`,
    [identifiers],
  );
  const found = new Map(rows.map((row) => [row.identifier, row]));
  const duplicated = rows.filter((row) => row.requests !== 1 || row.versions !== 1).map((row) => row.identifier);
  const missing = identifiers.filter((identifier) => !found.has(identifier));
  return { storedOnce: rows.length - duplicated.length, duplicated, missing };
}

/**
 * Where the webhooks of these requests (their UUIDs) stand in the notifier's schema `schema`, for a
 * fault's figures when some did not arrive: how many have no delivery, and the others by status,
 * attempts, the last attempt's answer and whether they wait for a later attempt or are leased.
 */
export async function deliveryStates(pool: Pool, schema: string, requestIds: readonly string[]): Promise<string> {
  if (requestIds.length === 0) return 'none';
  const { rows } = await pool.query<{ state: string; n: number }>(
    `SELECT concat_ws(' ', d.status, 'after ' || d.attempt_count || ' attempts', 'last: ' || a.answer,
                      CASE WHEN d.next_attempt_at > now() THEN 'next in ' || round(extract(epoch FROM d.next_attempt_at - now())) || ' s' END,
                      CASE WHEN d.leased_until >= now() THEN 'leased' END) AS state,
            count(*)::int AS n
       FROM "${schema}".delivery d
       LEFT JOIN LATERAL (SELECT coalesce(status_code::text, error) AS answer FROM "${schema}".delivery_attempt x
                           WHERE x.event_id = d.event_id ORDER BY x.id DESC LIMIT 1) a ON true
      WHERE substring(d.request_identifier from '[^/]+$') = ANY($1)
      GROUP BY 1 ORDER BY 2 DESC`,
    [requestIds],
  );
  const found = rows.reduce((sum, row) => sum + row.n, 0);
  return [`${requestIds.length - found} without a delivery`, ...rows.map((row) => `${row.n} ${row.state}`)].join('; ');
}
