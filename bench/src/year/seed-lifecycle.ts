// The lives of a year's requests and Tasks, computed once per seed into temporary tables of the
// seeding session (year_party, year_clinic, year_request, year_task), from which every service's
// tables are written (seed-intake.ts, seed-routing.ts, seed-notifier.ts, seed-auth.ts). Every choice
// is a function of the request's number g (its place in the year's order of arrival) through
// PostgreSQL's hashint8extended, so one seed version always writes the same data.
//
// A request (docs/decisions.md, "Requests"; the state machine in apps/intake/src/requests) names
// 1-5 clinics; each clinic answers after an exponentially distributed delay (mean 20 h), a few
// never; a fifth of the requests is supplemented within two days; then the referrer selects an
// accepting clinic (65 %), revokes (15 %) or leaves it open (20 %: all declined, or abandoned). The
// retention job erases a selected request 90 + 30 days after its last change and a revoked one 30
// days after (docs/data-protection.md, "Retention and erasure"; apps/intake/src/erasure), leaving
// its tombstone; a request never selected nor revoked keeps its data.
import { createHash } from 'node:crypto';
import type { YearProfile } from './year-profile';

/** Who the bench is in the year's data: its referrer owns the requests `seed-1`…`seed-<benchRequests>`. */
export interface BenchParty {
  partyId: string;
  userId: string;
  ik: string;
  fhirBase: string;
  username: string;
}

/** The seed's clock as SQL literals: its now, and the year's start (midnight UTC, 365 days before today's). */
export interface SeedClock {
  now: string;
  start: string;
}

/** A string as an SQL literal. */
export const lit = (value: string): string => `'${value.replace(/'/g, "''")}'`;

/**
 * Helpers of the seeding session: `u(x, salt)` a uniform number in [0, 1), `uid(x, kind)` a UUID,
 * `hex64(x, kind)` 64 hex digits (a plausible SHA-256), all of x alone; `noise(x, bytes)` bytes that
 * look like a sealed value of that length (libs/crypto's layout, version 1, under the service's data key)
 * and that PostgreSQL cannot compress, as AES-GCM output cannot be: its first kilobyte is one of a
 * few blocks of SHA-256 output (pglz gives up on a value whose first kilobyte it finds nothing to
 * compress in), the rest repeats it. Each is one expression without FROM, which PostgreSQL inlines
 * into the statements: a function it calls row by row costs tens of microseconds a call.
 */
export function sessionFunctionsSql(): string[] {
  return [
    `CREATE FUNCTION pg_temp.u(x bigint, salt int) RETURNS float8 LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
       $$ SELECT (hashint8extended(x, salt) & 4503599627370495)::float8 / 4503599627370496 $$`,
    `CREATE FUNCTION pg_temp.h(x bigint, salt int) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
       $$ SELECT hashint8extended(x, salt) & 9223372036854775807 $$`,
    // A version 4 UUID (RFC 9562: its version and variant digits set), as the services make them and as
    // the messages' schemas require. One expression without FROM, so that PostgreSQL inlines it.
    `CREATE FUNCTION pg_temp.uid(x bigint, kind int) RETURNS uuid LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
       $$ SELECT (substr(lpad(to_hex(hashint8extended(x, kind)), 16, '0'), 1, 12) || '4' || substr(lpad(to_hex(hashint8extended(x, kind)), 16, '0'), 14, 3)
                  || substr('89ab', 1 + (hashint8extended(x, kind + 7919) & 3)::int, 1)
                  || substr(lpad(to_hex(hashint8extended(x, kind + 7919)), 16, '0'), 2, 15))::uuid $$`,
    `CREATE FUNCTION pg_temp.hex64(x bigint, kind int) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS
       $$ SELECT replace(pg_temp.uid(x, kind)::text || pg_temp.uid(x, kind + 1)::text, '-', '') $$`,
    // The header names the data key of the session's year.data_key (setDataKeySql): the service's current one.
    `CREATE FUNCTION pg_temp.noise(x bigint, bytes int) RETURNS bytea LANGUAGE sql STABLE PARALLEL SAFE AS
       $$ SELECT substring(decode('01' || current_setting('year.data_key'), 'hex')
                           || decode(repeat(encode((${noiseBlocksSql()})[1 + (x & ${NOISE_BLOCKS - 1})], 'hex'), bytes / 1024 + 1), 'hex') FROM 1 FOR bytes) $$`,
  ];
}

const NOISE_BLOCKS = 16;

/** Kilobyte blocks of SHA-256 output as an array literal (the function stays an expression PostgreSQL inlines). */
function noiseBlocksSql(): string {
  const blocks = Array.from({ length: NOISE_BLOCKS }, (_, n) =>
    Buffer.concat(Array.from({ length: 32 }, (_, i) => createHash('sha256').update(`${n}:${i}`).digest())).toString('hex'),
  );
  return `ARRAY[${blocks.map((hex) => `'\\x${hex}'::bytea`).join(', ')}]`;
}

/** Which data key the noise's headers name (a UUID). */
export const setDataKeySql = (keyId: string): string => `SET year.data_key = ${lit(keyId.replace(/-/g, ''))}`;

/** The parties and clinics (they do not grow with the year: as many at every scale). */
export function populationSql(profile: YearProfile, bench: BenchParty): string[] {
  const { referrerParties: P, clinics: C } = profile;
  return [
    `CREATE TEMP TABLE year_party AS
     SELECT p AS party, pg_temp.uid(p, 11)::text AS party_id, '26' || lpad((1000000 + p)::text, 7, '0') AS ik,
            'https://hospital-' || p || '.example/fhir' AS fhir_base, 'Klinikum ' || p AS name, NULL::text AS username
       FROM generate_series(1, ${P}) p
     UNION ALL
     SELECT 0, ${lit(bench.partyId)}, ${lit(bench.ik)}, ${lit(bench.fhirBase)}, 'Bench hospital', ${lit(bench.username)}`,
    `ALTER TABLE year_party ADD PRIMARY KEY (party)`,
    // A third of the clinics publish bed counts and answer automatically from them for a third of those (routing's auto_answer).
    `CREATE TEMP TABLE year_clinic AS
     SELECT c, '51' || lpad((1000000 + c)::text, 7, '0') AS ik, pg_temp.uid(c, 13)::text AS party_id,
            ARRAY(SELECT DISTINCT d FROM unnest(ARRAY[
              (ARRAY['2300','0100','0300','1000','2800','3600','2300','0100'])[1 + pg_temp.h(c, 31) % 8],
              (ARRAY['2300','0100','0300','1000','2800','3600','2300','0100'])[1 + pg_temp.h(c, 32) % 8],
              (ARRAY['2300','0100','0300','1000','2800','3600','2300','0100'])[1 + pg_temp.h(c, 33) % 8]]) d ORDER BY d) AS departments,
            c % 3 = 0 AS publishes, c % 9 = 0 AS auto_answer
       FROM generate_series(1, ${C}) c`,
    `ALTER TABLE year_clinic ADD PRIMARY KEY (c)`,
    `CREATE UNIQUE INDEX ON year_clinic (ik)`,
  ];
}

/** The year's requests, each in its final state, with the times of what happened to it. */
export function requestsSql(profile: YearProfile, { now, start }: SeedClock, bench: BenchParty): string[] {
  const { requests: N, benchRequests: K, referrerParties: P, identifierStride } = profile;
  const secondsPerRequest = (profile.days * 86_400) / N;
  return [
    `CREATE TEMP TABLE year_request AS
     WITH a AS (
       SELECT g, ((g::bigint * ${identifierStride}) % ${N}) + 1 AS n,
              ${start} + ((g - 1 + pg_temp.u(g, 1)) * ${secondsPerRequest}) * interval '1 second' AS created,
              pg_temp.u(g, 4) AS r_tasks, pg_temp.u(g, 6) AS r_dept, pg_temp.u(g, 7) AS r_outcome, pg_temp.u(g, 8) AS r_supp,
              pg_temp.u(g, 11) AS r_sel, pg_temp.u(g, 12) AS r_rev, pg_temp.u(g, 13) AS r_docs, pg_temp.u(g, 14) AS r_erase
         FROM generate_series(1, ${N}) g),
     b AS (
       SELECT a.*, CASE WHEN n <= ${K} THEN 0 ELSE 1 + pg_temp.h(n, 3) % ${P} END AS party,
              CASE WHEN r_tasks < 0.10 THEN 1 WHEN r_tasks < 0.35 THEN 2 WHEN r_tasks < 0.70 THEN 3 WHEN r_tasks < 0.90 THEN 4 ELSE 5 END AS tasks,
              (ARRAY['2300','2300','2300','0100','0300','1000','2800','3600'])[1 + floor(r_dept * 8)::int] AS department,
              CASE WHEN r_supp < 0.2 THEN a.created + (0.5 + 7.5 * r_supp) * interval '1 day' END AS supplement_at,
              a.created + (2 + 5 * r_sel) * interval '1 day' AS select_at,
              a.created + (0.5 + 9.5 * r_rev) * interval '1 day' AS revoke_at
         FROM a),
     c AS (
       SELECT b.*,
              CASE WHEN r_outcome < 0.65 AND select_at <= ${now} THEN 'selected'
                   WHEN r_outcome >= 0.65 AND r_outcome < 0.80 AND revoke_at <= ${now} THEN 'revoked' ELSE 'open' END AS outcome,
              1 + pg_temp.h(g, 10) % tasks AS selected_slot
         FROM b),
     d AS (
       SELECT c.*,
              -- A supplement after the selection or revocation was refused (the state machine), so it is none.
              CASE WHEN supplement_at <= ${now}
                    AND NOT (outcome = 'selected' AND supplement_at >= select_at) AND NOT (outcome = 'revoked' AND supplement_at >= revoke_at)
                   THEN supplement_at END AS supplemented_at
         FROM c),
     e AS (
       SELECT d.*, greatest(created, supplemented_at, CASE outcome WHEN 'selected' THEN select_at WHEN 'revoked' THEN revoke_at END) AS updated_at
         FROM d)
     SELECT e.g, e.n, e.party, p.party_id AS referrer_party_id, p.ik AS referrer_ik,
            p.fhir_base || '/ServiceRequest/seed-' || e.n AS identifier,
            CASE WHEN e.party = 0 THEN ${lit(bench.userId)} ELSE pg_temp.uid(e.party * 10 + 1 + e.g % 3, 12)::text END AS submitter,
            pg_temp.uid(e.g, 20) AS id, e.created, e.tasks, e.department, e.outcome, e.selected_slot, e.supplemented_at,
            CASE WHEN outcome = 'selected' THEN select_at END AS selected_at, CASE WHEN outcome = 'revoked' THEN revoke_at END AS revoked_at,
            e.updated_at,
            CASE WHEN outcome = 'selected' AND e.updated_at + (120 + r_erase / 24) * interval '1 day' <= ${now}
                   THEN e.updated_at + (120 + r_erase / 24) * interval '1 day'
                 WHEN outcome = 'revoked' AND e.updated_at + (30 + r_erase / 24) * interval '1 day' <= ${now}
                   THEN e.updated_at + (30 + r_erase / 24) * interval '1 day' END AS erased_at,
            1 + (supplemented_at IS NOT NULL)::int + (outcome <> 'open')::int AS current_version,
            e.created + interval '4 days' AS answer_deadline,
            CASE WHEN r_docs < 0.2 THEN 1 WHEN r_docs < 0.25 THEN 2 ELSE 0 END AS documents
       FROM e JOIN year_party p ON p.party = e.party`,
    `CREATE INDEX ON year_request (created)`,
    `CREATE INDEX ON year_request (erased_at)`,
    `CREATE UNIQUE INDEX ON year_request (g)`,
  ];
}

/** Each request's Tasks, one per clinic it named, in their final state. */
export function tasksSql(profile: YearProfile, { now }: SeedClock): string[] {
  const C = profile.clinics;
  return [
    `CREATE TEMP TABLE year_task AS
     WITH t AS (
       SELECT r.g, r.id AS request_id, r.identifier, r.created, r.outcome, r.selected_slot, r.supplemented_at, r.selected_at, r.revoked_at,
              r.erased_at, r.answer_deadline, r.department, k,
              1 + (pg_temp.h(r.g, 5) + (k - 1) * 37) % ${C} AS c,
              pg_temp.uid(r.g * 8 + k, 23) AS id,
              pg_temp.u(r.g * 8 + k, 21) AS r_bs, pg_temp.u(r.g * 8 + k, 22) AS r_never, pg_temp.u(r.g * 8 + k, 24) AS r_user,
              r.created + (-ln(1 - pg_temp.u(r.g * 8 + k, 20)) * 20) * interval '1 hour' AS answer_at,
              r.outcome = 'selected' AND k = r.selected_slot AS chosen,
              CASE WHEN r.outcome = 'revoked' THEN r.revoked_at WHEN r.outcome = 'selected' AND k <> r.selected_slot THEN r.selected_at END AS cancel_at
         FROM year_request r CROSS JOIN LATERAL generate_series(1, r.tasks) k),
     a AS (
       SELECT t.*,
              CASE WHEN chosen THEN least(answer_at, selected_at - interval '1 hour')
                   WHEN r_never < 0.03 THEN NULL
                   WHEN answer_at <= ${now} AND (cancel_at IS NULL OR answer_at < cancel_at) THEN answer_at END AS answered_at,
              CASE WHEN chosen OR r_bs < 0.45 THEN 'accepted' WHEN r_bs < 0.90 THEN 'declined' WHEN r_bs < 0.95 THEN 'query' ELSE 'more-data-required' END AS answer
         FROM t)
     SELECT a.g, a.k, a.id, a.request_id, a.identifier, cl.ik AS clinic_ik, cl.c, cl.auto_answer, cl.party_id AS clinic_party_id,
            pg_temp.uid(cl.c * 10 + 1 + floor(a.r_user * 3)::int, 14)::text AS clinic_user,
            a.created, a.answered_at, a.chosen, a.department,
            (cl.auto_answer AND a.department = ANY(cl.departments) AND a.answered_at IS NOT NULL AND a.answer = 'accepted') AS held,
            CASE WHEN a.answered_at IS NOT NULL THEN a.answer END AS business_status,
            CASE WHEN a.chosen THEN 'in-progress' WHEN a.cancel_at IS NOT NULL THEN 'cancelled' WHEN a.answered_at IS NULL THEN 'requested'
                 WHEN a.answer = 'accepted' THEN 'accepted' WHEN a.answer = 'declined' THEN 'rejected' ELSE 'on-hold' END AS status,
            a.cancel_at AS cancelled_at,
            greatest(a.created, a.answered_at, CASE WHEN a.cancel_at IS NULL OR a.supplemented_at < a.cancel_at THEN a.supplemented_at END,
                     a.cancel_at, CASE WHEN a.chosen THEN a.selected_at END, a.erased_at) AS last_modified,
            (a.answered_at IS NOT NULL)::int + (a.supplemented_at IS NOT NULL)::int + (a.cancel_at IS NOT NULL OR a.chosen)::int
              + (a.erased_at IS NOT NULL)::int AS revision,
            1 + (a.supplemented_at IS NOT NULL AND (a.cancel_at IS NULL OR a.supplemented_at < a.cancel_at))::int + a.chosen::int AS sent_version,
            a.answer_deadline,
            CASE WHEN a.answered_at IS NULL AND a.cancel_at IS NULL AND NOT a.chosen AND a.answer_deadline < ${now}
                 THEN a.answer_deadline + interval '2 minutes' END AS overdue_at,
            CASE WHEN (a.answered_at IS NULL AND a.cancel_at IS NULL AND a.answer_deadline < ${now}) OR a.answered_at > a.answer_deadline
                 THEN a.answer_deadline END AS overdue_deadline,
            a.erased_at, a.supplemented_at, a.selected_at
       FROM a JOIN year_clinic cl ON cl.c = a.c`,
    `CREATE INDEX ON year_task (g)`,
    `CREATE INDEX ON year_task (created)`,
    `CREATE INDEX ON year_task (erased_at)`,
    `CREATE TEMP TABLE year_request_clinics AS
     SELECT g, array_agg(clinic_ik ORDER BY k) AS clinics, max(clinic_ik) FILTER (WHERE chosen) AS chosen_ik,
            sum(revision) + count(*) AS seen_changes
       FROM year_task GROUP BY g`,
    `ALTER TABLE year_request_clinics ADD PRIMARY KEY (g)`,
  ];
}
