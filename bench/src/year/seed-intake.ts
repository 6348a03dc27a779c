// Intake's tables for one chunk of the year (seed-lifecycle.ts has the lives they are written
// from): what arrived in the chunk, in its final state, and what the retention job erased in it,
// as the erasure leaves it (apps/intake/src/erasure/request-erasure.repository.ts): versions,
// documents, internal notes, case numbers and readiness deleted, verdicts cleared, the request and
// its Tasks kept as the tombstone with a request_erasure row.
import { AdmissionBundleSubmittedV1, ClinicAnswerSubmittedV1, DocumentBundleSubmittedV1 } from '@bedrequest/contracts';
import { lit, type SeedClock } from './seed-lifecycle';

/** The sizes of what is stored sealed and never opened by a hot path: written as bytes of that length (pg_temp.noise). */
export interface SealedSizes {
  /** A request version's bundle, sealed (the bench's AdmissionRequestBundle and AES-GCM's 45 bytes). */
  bundle: number;
  document: number;
  verdict: number;
}

/** A chunk of the year: what happened from `from` (inclusive) to `to` (exclusive), as SQL literals. */
export interface Window {
  from: string;
  to: string;
}

/** The AuditEvent resources of each kind of entry, as JSON with @ID@, @REC@, @REQ@, @IK@, @USER@, @TASK@ to replace (year-audit.ts). */
export type AuditTemplates = Record<'create' | 'update' | 'document' | 'poll' | 'read' | 'answer' | 'erase', string>;

const inWindow = (column: string, w: Window) => `${column} >= ${w.from} AND ${column} < ${w.to}`;

export function intakeChunkSql(schema: string, w: Window, clock: SeedClock, sizes: SealedSizes): string[] {
  const s = `"${schema}"`;
  const arrived = (alias: string) => inWindow(`${alias}.created`, w);
  return [
    `INSERT INTO ${s}.admission_request (id, identifier, referrer_party_id, referrer_ik, status, intent, selected_clinic_ik, current_version, latest_hash,
            created_at, updated_at, answer_deadline, latest_content_hash, escalation_seen_changes)
     SELECT r.id, r.identifier, r.referrer_party_id, r.referrer_ik, CASE WHEN r.outcome = 'revoked' THEN 'revoked' ELSE 'active' END,
            CASE WHEN r.outcome = 'selected' THEN 'order' ELSE 'proposal' END, c.chosen_ik, r.current_version,
            CASE WHEN r.erased_at IS NULL THEN 'hmac-sha256:' || pg_temp.hex64(r.g, 40) ELSE '' END, r.created, r.updated_at, r.answer_deadline,
            CASE WHEN r.erased_at IS NULL THEN 'hmac-sha256:' || pg_temp.hex64(r.g, 42) END,
            -- The rule of a party that has one (referrerSettingsSql) has looked at its requests as they are: the escalation sweep finds nothing new in them.
            CASE WHEN r.party % 30 = 1 THEN c.seen_changes END
       FROM year_request r JOIN year_request_clinics c ON c.g = r.g
      WHERE ${arrived('r')} ORDER BY r.g`,
    // Notes and histories are sealed by the seal step (year-sealing.ts) for the Tasks still holding them.
    `INSERT INTO ${s}.clinic_task (id, request_id, referrer_party_id, clinic_ik, status, business_status, sent_version, authored_on, last_modified, cancelled_at,
            revision, answer_deadline, overdue_at, overdue_deadline, department_code)
     SELECT t.id, t.request_id, r.referrer_party_id, t.clinic_ik, t.status, t.business_status, t.sent_version, t.created, t.last_modified, t.cancelled_at,
            t.revision, t.answer_deadline, t.overdue_at, t.overdue_deadline, t.department
       FROM year_task t JOIN year_request r ON r.g = t.g WHERE ${arrived('t')} ORDER BY t.g, t.k`,
    // The list summary is sealed by the seal step; an erased request's versions are deleted later and keep small stand-ins meanwhile.
    `INSERT INTO ${s}.request_version (request_id, version, sealed_bundle, sealed_summary, canonical_hash, message_id, received_at, sent_to, submitted_by)
     SELECT r.id, v.v, pg_temp.noise(r.g * 8 + v.v, CASE WHEN r.erased_at IS NULL THEN ${sizes.bundle} ELSE 64 END), pg_temp.noise(r.g * 8 + v.v + 3, 64),
            'hmac-sha256:' || pg_temp.hex64(r.g * 8 + v.v, 44), pg_temp.uid(r.g * 8 + v.v, 22), v.at, v.sent_to, r.submitter
       FROM year_request r JOIN year_request_clinics c ON c.g = r.g
       CROSS JOIN LATERAL (
         SELECT 1 AS v, r.created AS at, c.clinics AS sent_to
         UNION ALL SELECT 2, r.supplemented_at, c.clinics WHERE r.supplemented_at IS NOT NULL
         UNION ALL SELECT r.current_version, coalesce(r.selected_at, r.revoked_at),
                          CASE WHEN r.outcome = 'selected' THEN ARRAY[c.chosen_ik] ELSE '{}'::text[] END
          WHERE r.outcome <> 'open') v
      WHERE ${arrived('r')} ORDER BY r.g, v.v`,
    `INSERT INTO ${s}.request_document (id, request_id, sealed_bundle, canonical_hash, message_id, received_at, submitted_by)
     SELECT pg_temp.uid(r.g * 4 + d, 25), r.id, pg_temp.noise(r.g * 4 + d, CASE WHEN r.erased_at IS NULL THEN ${sizes.document} ELSE 64 END),
            'hmac-sha256:' || pg_temp.hex64(r.g * 4 + d, 46), pg_temp.uid(r.g * 4 + d, 26), r.created + interval '1 day' + d * interval '1 minute', r.submitter
       FROM year_request r CROSS JOIN LATERAL generate_series(1, r.documents) d
      WHERE ${arrived('r')} AND r.created + interval '1 day' <= ${clock.now} ORDER BY r.g, d`,
    // Every message processed, with its verdict (cleared by the request's erasure): versions, documents, answers.
    `INSERT INTO ${s}.inbox_message (message_id, message_type, processed_at, sealed_verdict, request_identifier)
     SELECT m.id, m.type, m.at, pg_temp.noise(m.seed, ${sizes.verdict}), m.identifier FROM (
       SELECT v.message_id AS id, ${lit(AdmissionBundleSubmittedV1.routingKey)} AS type, v.received_at AS at, r.g * 8 + v.version AS seed, r.identifier
         FROM year_request r JOIN ${s}.request_version v ON v.request_id = r.id WHERE ${arrived('r')}
       UNION ALL
       SELECT d.message_id, ${lit(DocumentBundleSubmittedV1.routingKey)}, d.received_at, r.g * 4 + 1, r.identifier
         FROM year_request r JOIN ${s}.request_document d ON d.request_id = r.id WHERE ${arrived('r')}
       UNION ALL
       SELECT pg_temp.uid(t.g * 8 + t.k, 27), ${lit(ClinicAnswerSubmittedV1.routingKey)}, t.answered_at, t.g * 8 + t.k, t.identifier
         FROM year_task t WHERE ${arrived('t')} AND t.answered_at IS NOT NULL AND NOT t.auto_answer) m
      ORDER BY m.at`,
    // A clinic opens the Tasks it answers; half of them someone takes (clinic-workspace).
    `INSERT INTO ${s}.clinic_task_workspace (task_id, seen_version, assignee_user, assignee_name, assigned_at)
     SELECT t.id, t.sent_version, CASE WHEN pg_temp.u(t.g * 8 + t.k, 60) < 0.5 THEN t.clinic_user END,
            CASE WHEN pg_temp.u(t.g * 8 + t.k, 60) < 0.5 THEN 'Aufnahme ' || t.c END,
            CASE WHEN pg_temp.u(t.g * 8 + t.k, 60) < 0.5 THEN t.answered_at - interval '30 minutes' END
       FROM year_task t WHERE ${arrived('t')} AND t.answered_at IS NOT NULL AND NOT t.auto_answer ORDER BY t.g, t.k`,
    `INSERT INTO ${s}.clinic_internal_note (id, task_id, sealed_note, created_at)
     SELECT pg_temp.uid(t.g * 8 + t.k, 28), t.id, pg_temp.noise(t.g * 8 + t.k, 160), t.answered_at - interval '20 minutes'
       FROM year_task t WHERE ${arrived('t')} AND t.answered_at IS NOT NULL AND pg_temp.u(t.g * 8 + t.k, 61) < 0.1 ORDER BY t.g, t.k`,
    `INSERT INTO ${s}.referrer_case_number (id, referrer_party_id, identifier, sealed_case_number, case_number_digest, updated_at)
     SELECT pg_temp.uid(r.g, 29), r.referrer_party_id, r.identifier, pg_temp.noise(r.g, 110), 'hmac-sha256:' || pg_temp.hex64(r.g, 48), r.created
       FROM year_request r WHERE ${arrived('r')} AND pg_temp.u(r.g, 62) < 0.7 ORDER BY r.g`,
    `INSERT INTO ${s}.referrer_ready_for_transfer (id, referrer_party_id, identifier, sealed_ready, updated_at)
     SELECT pg_temp.uid(r.g, 30), r.referrer_party_id, r.identifier, pg_temp.noise(r.g + 1, 120), r.selected_at + interval '3 days'
       FROM year_request r
      WHERE ${arrived('r')} AND r.outcome = 'selected' AND r.selected_at + interval '3 days' <= ${clock.now} AND pg_temp.u(r.g, 63) < 0.4 ORDER BY r.g`,
    // A Task's first answer by its clinic (an automatic answer has none).
    `INSERT INTO ${s}.answer_statistic (task_id, clinic_ik, department_code, answered_at, seconds, accepted)
     SELECT t.id, t.clinic_ik, t.department, t.answered_at, extract(epoch FROM t.answered_at - t.created)::int, t.business_status = 'accepted'
       FROM year_task t WHERE ${arrived('t')} AND t.answered_at IS NOT NULL AND NOT t.auto_answer ORDER BY t.answered_at`,
  ];
}

/**
 * The audit trail's entries recorded in the window (one chain a UTC day; the window holds whole
 * days). Each kind is looked for among the requests that can have one in the window: those stored
 * up to as many days before as the kind can follow the request's arrival (a version 10, a document
 * or poll 2, an answer 30; an erasure is found by its own time).
 */
export function auditChunkSql(schema: string, w: Window, clock: SeedClock, templates: AuditTemplates): string[] {
  const s = `"${schema}"`;
  const since = (alias: string, days: number) => `${alias}.created >= ${w.from}::timestamptz - interval '${days} days' AND ${alias}.created < ${w.to}`;
  const tpl = (kind: keyof AuditTemplates) => lit(templates[kind]);
  return [
    `INSERT INTO ${s}.audit_events (day, seq, id, recorded, request_identifier, owner_party_id, agent_user, agent_ik, resource, previous_hash, hash)
     WITH events AS (
       SELECT r.created AS recorded, r.g * 64 AS key, ${tpl('create')} AS tpl, r.identifier, r.referrer_party_id AS owner, r.submitter AS agent_user,
              r.referrer_ik AS agent_ik, pg_temp.uid(r.g * 8 + 1, 23) AS task
         FROM year_request r WHERE ${since('r', 0)}
       UNION ALL
       SELECT v.at, r.g * 64 + v.v, ${tpl('update')}, r.identifier, r.referrer_party_id, r.submitter, r.referrer_ik, pg_temp.uid(r.g * 8 + 1, 23)
         FROM year_request r CROSS JOIN LATERAL (
           SELECT 2 AS v, r.supplemented_at AS at WHERE r.supplemented_at IS NOT NULL
           UNION ALL SELECT 3, coalesce(r.selected_at, r.revoked_at) WHERE r.outcome <> 'open') v
        WHERE ${since('r', 10)}
       UNION ALL
       SELECT r.created + interval '1 day' + d * interval '1 minute', r.g * 64 + 4 + d, ${tpl('document')}, r.identifier, r.referrer_party_id, r.submitter,
              r.referrer_ik, pg_temp.uid(r.g * 4 + d, 25)
         FROM year_request r CROSS JOIN LATERAL generate_series(1, r.documents) d WHERE ${since('r', 2)}
       UNION ALL
       SELECT r.created + interval '26 hours', r.g * 64 + 8, ${tpl('poll')}, r.identifier, r.referrer_party_id, r.submitter,
              r.referrer_ik, pg_temp.uid(r.g * 8 + 1, 23)
         FROM year_request r WHERE ${since('r', 2)}
       UNION ALL
       SELECT r.erased_at, r.g * 64 + 10, ${tpl('erase')}, r.identifier, r.referrer_party_id, NULL, NULL, pg_temp.uid(r.g * 8 + 1, 23)
         FROM year_request r WHERE ${inWindow('r.erased_at', w)}
       UNION ALL
       SELECT t.answered_at - a.before, t.g * 64 + 16 + t.k * 2 + a.n, CASE a.n WHEN 0 THEN ${tpl('read')} ELSE ${tpl('answer')} END, t.identifier,
              r.referrer_party_id, t.clinic_user, t.clinic_ik, t.id
         FROM year_task t JOIN year_request r ON r.g = t.g
        CROSS JOIN (VALUES (0, interval '15 minutes'), (1, interval '0 minutes')) AS a(n, before)
        WHERE ${since('t', 30)} AND t.answered_at IS NOT NULL AND NOT t.auto_answer),
     ordered AS (
       SELECT (e.recorded AT TIME ZONE 'UTC')::date AS day, e.*,
              row_number() OVER (PARTITION BY (e.recorded AT TIME ZONE 'UTC')::date ORDER BY e.recorded, e.key) AS seq
         FROM events e WHERE ${inWindow('e.recorded', w)} AND e.recorded <= ${clock.now}),
     hashed AS (
       SELECT o.*, pg_temp.uid(o.key, 70) AS id, pg_temp.hex64(o.key, 71) AS hash FROM ordered o)
     SELECT h.day, h.seq, h.id, h.recorded, h.identifier, h.owner, h.agent_user, h.agent_ik,
            (replace(replace(replace(replace(replace(replace(h.tpl, '@ID@', h.id::text),
              '@REC@', to_char(h.recorded AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')), '@REQ@', h.identifier), '@IK@', coalesce(h.agent_ik, '')),
              '@USER@', coalesce(h.agent_user, '')), '@TASK@', h.task::text))::jsonb,
            coalesce(lag(h.hash) OVER (PARTITION BY h.day ORDER BY h.seq), repeat('0', 64)), h.hash
       FROM hashed h ORDER BY h.day, h.seq`,
  ];
}

/** What the retention job erased in the window, as the erasure leaves a request (the module comment). */
export function intakeErasureSql(schema: string, w: Window): string[] {
  const s = `"${schema}"`;
  const erased = inWindow('r.erased_at', w);
  return [
    `DELETE FROM ${s}.request_document d USING year_request r WHERE ${erased} AND d.request_id = r.id`,
    `DELETE FROM ${s}.request_version v USING year_request r WHERE ${erased} AND v.request_id = r.id`,
    `DELETE FROM ${s}.clinic_internal_note n USING year_task t WHERE ${inWindow('t.erased_at', w)} AND n.task_id = t.id`,
    `DELETE FROM ${s}.referrer_case_number c USING year_request r WHERE ${erased} AND c.referrer_party_id = r.referrer_party_id AND c.identifier = r.identifier`,
    `DELETE FROM ${s}.referrer_ready_for_transfer c USING year_request r
      WHERE ${erased} AND c.referrer_party_id = r.referrer_party_id AND c.identifier = r.identifier`,
    `UPDATE ${s}.inbox_message i SET sealed_verdict = NULL FROM year_request r WHERE ${erased} AND i.request_identifier = r.identifier`,
    // The request and its Tasks were written as the erasure leaves them; the erasure's own writes of them, as row versions.
    `UPDATE ${s}.clinic_task c SET revision = c.revision FROM year_task t WHERE ${inWindow('t.erased_at', w)} AND c.id = t.id`,
    `UPDATE ${s}.admission_request a SET latest_hash = a.latest_hash FROM year_request r WHERE ${erased} AND a.id = r.id`,
    `INSERT INTO ${s}.request_erasure (request_id, erased_at, reason, versions, documents)
     SELECT r.id, r.erased_at, 'retention', r.current_version, r.documents FROM year_request r WHERE ${erased} ORDER BY r.erased_at`,
  ];
}

/** The tables a chunk writes to, vacuumed after it as autovacuum would have over the weeks. */
export const INTAKE_CHURNED = [
  'admission_request',
  'clinic_task',
  'request_version',
  'request_document',
  'inbox_message',
  'clinic_internal_note',
  'referrer_case_number',
  'referrer_ready_for_transfer',
];
