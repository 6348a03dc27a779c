// What the services keep only for a while, seeded as the last weeks leave it: webhook deliveries
// and their attempts (WEBHOOK_EVENT_RETENTION, 7 days: apps/notifier/src/delivery), the notifier's
// inbox (as long), mail (done mail 30 days: apps/intake/src/mail), drafts (30 days), and the outbox
// tables, which the relay empties as it publishes (libs/messaging, outbox.ts). Each is written day
// by day with the deletes that retention (or the relay) does, so the tables carry the churn of
// weeks; autovacuum's work on the busiest is done by a VACUUM a day, as its thresholds would do.
// Also auth's parties and people, the referrers' settings and the notifier's erasure marks.
import { AdmissionResponseV1, RequestErasedV1 } from '@bedrequest/contracts';
import { lit, type SeedClock } from './seed-lifecycle';
import type { Window } from './seed-intake';
import type { YearSchemas } from './year-profile';

const inWindow = (column: string, w: Window) => `${column} >= ${w.from} AND ${column} < ${w.to}`;

/** Days of deliveries written before the last 7 kept: enough for the table to reach its steady state under retention. */
export const DELIVERY_DAYS = 28;

export function notifierErasureSql(schema: string, w: Window): string[] {
  return [
    `INSERT INTO "${schema}".request_erasure (request_identifier, party_id, erased_at)
     SELECT r.identifier, r.referrer_party_id, r.erased_at + interval '1 second' FROM year_request r WHERE ${inWindow('r.erased_at', w)} ORDER BY r.erased_at`,
  ];
}

/**
 * The events of the subscribed referrers over the last DELIVERY_DAYS days (an AdmissionResponse
 * per clinic answer, as intake publishes them), numbered per subscription as the notifier numbers
 * them (apps/notifier/src/events), the year's earlier events counted in.
 */
export function deliveryEventsSql(schema: string, clock: SeedClock): string[] {
  const s = `"${schema}"`;
  return [
    `CREATE TEMP TABLE year_event AS
     WITH answered AS (
       SELECT t.g, t.k, t.answered_at, t.identifier, sub.id AS subscription_id
         FROM year_task t JOIN year_request r ON r.g = t.g JOIN ${s}.subscription sub ON sub.party_id = r.referrer_party_id
        WHERE t.answered_at IS NOT NULL),
     numbered AS (
       SELECT a.*, row_number() OVER (PARTITION BY a.subscription_id ORDER BY a.answered_at, a.g, a.k) AS sequence FROM answered a)
     SELECT pg_temp.uid(n.g * 8 + n.k, 82) AS event_id, n.subscription_id, n.sequence::int, n.identifier, n.answered_at + interval '2 seconds' AS occurred_at,
            pg_temp.uid(n.g * 8 + n.k, 83) AS message_id, pg_temp.u(n.g * 8 + n.k, 84) AS r_outcome, n.g * 8 + n.k AS seed
       FROM numbered n WHERE n.answered_at >= ${clock.now}::timestamptz - interval '${DELIVERY_DAYS} days'`,
    `CREATE INDEX ON year_event (occurred_at)`,
    `UPDATE ${s}.subscription s SET last_sequence = x.last
       FROM (SELECT subscription_id, max(sequence) AS last FROM year_event GROUP BY 1) x WHERE s.id = x.subscription_id`,
  ];
}

/** One day of the notifier: the day's events stored pending, then delivered (a few given up or withheld), their attempts, and retention's purge. */
export function deliveryDaySql(schema: string, w: Window): string[] {
  const s = `"${schema}"`;
  const day = inWindow('e.occurred_at', w);
  return [
    `INSERT INTO ${s}.inbox_message (message_id, message_type, processed_at)
     SELECT e.message_id, ${lit(AdmissionResponseV1.routingKey)}, e.occurred_at FROM year_event e WHERE ${day} ORDER BY e.occurred_at`,
    `INSERT INTO ${s}.delivery (event_id, subscription_id, sequence, event_type, request_identifier, occurred_at, sealed_data, status, next_attempt_at, created_at)
     SELECT e.event_id, e.subscription_id, e.sequence, 'AdmissionResponse', e.identifier, e.occurred_at, pg_temp.noise(e.seed, 1400), 'pending', e.occurred_at,
            e.occurred_at
       FROM year_event e WHERE ${day} ORDER BY e.occurred_at`,
    `INSERT INTO ${s}.delivery_attempt (event_id, attempted_at, status_code, error, duration_ms)
     SELECT e.event_id, e.occurred_at + a * interval '1 minute', CASE WHEN a = tries AND e.r_outcome < 0.96 THEN 200 ELSE 503 END, NULL,
            40 + (e.seed % 200)::int
       FROM (SELECT e.*, CASE WHEN e.r_outcome < 0.93 THEN 1 WHEN e.r_outcome < 0.96 THEN 3 WHEN e.r_outcome < 0.98 THEN 8 ELSE 0 END AS tries
               FROM year_event e WHERE ${day}) e
      CROSS JOIN LATERAL generate_series(1, e.tries) a ORDER BY 2`,
    `UPDATE ${s}.delivery d
        SET status = CASE WHEN e.r_outcome < 0.96 THEN 'delivered' WHEN e.r_outcome < 0.98 THEN 'failed' ELSE 'withheld' END,
            attempt_count = CASE WHEN e.r_outcome < 0.93 THEN 1 WHEN e.r_outcome < 0.96 THEN 3 WHEN e.r_outcome < 0.98 THEN 8 ELSE 0 END,
            delivered_at = CASE WHEN e.r_outcome < 0.96 THEN e.occurred_at + interval '1 second' END, next_attempt_at = NULL,
            withheld_reason = CASE WHEN e.r_outcome >= 0.98 THEN 'party-disabled' END, withheld_at = CASE WHEN e.r_outcome >= 0.98 THEN e.occurred_at END
       FROM year_event e WHERE ${day} AND d.event_id = e.event_id`,
    // purgeOlderThan (delivery.repository.ts), as the notifier's upkeep runs it.
    `DELETE FROM ${s}.delivery WHERE status IN ('delivered', 'failed', 'withheld') AND created_at < ${w.to}::timestamptz - interval '7 days'`,
    `DELETE FROM ${s}.inbox_message WHERE processed_at < ${w.to}::timestamptz - interval '7 days'`,
  ];
}

export const NOTIFIER_CHURNED = ['delivery', 'delivery_attempt', 'inbox_message'];

/**
 * One day of intake's short-lived rows: its outbox (a message per dispatch, answer and erasure of
 * the day, deleted as the relay publishes them), the mail the day's dispatches and answers cause
 * (done at once, pruned after 30 days), drafts (deleted 30 days after their last save), and
 * routing's outbox (its automatic answers).
 */
export function intakeDaySql(schemas: YearSchemas, w: Window): string[] {
  const i = `"${schemas.intake}"`;
  const r = `"${schemas.routing}"`;
  const tasksOfDay = `year_task t WHERE ${inWindow('t.created', w)}`;
  // Envelopes of a size intake writes; request.erased.v1 is a routing key the outbox's mail trigger passes over.
  const envelope = `jsonb_build_object('id', pg_temp.uid(t.g * 8 + t.k, 90), 'type', ${lit(RequestErasedV1.routingKey)}, 'version', 1,
                      'payload', jsonb_build_object('requestIdentifier', t.identifier, 'taskId', t.id, 'padding', repeat('x', 900)))`;
  return [
    `INSERT INTO ${i}.outbox_message (routing_key, envelope, created_at)
     SELECT ${lit(RequestErasedV1.routingKey)}, ${envelope}, t.created FROM ${tasksOfDay} ORDER BY t.created`,
    `DELETE FROM ${i}.outbox_message`,
    `INSERT INTO ${r}.outbox_message (routing_key, envelope, created_at)
     SELECT ${lit(AdmissionResponseV1.routingKey)}, ${envelope}, t.created FROM ${tasksOfDay} AND t.held ORDER BY t.created`,
    `DELETE FROM ${r}.outbox_message`,
    `INSERT INTO ${i}.mail_outbox (kind, task_id, occasion, clinic_ik, referrer_party_id, created_at, next_attempt_at, attempts, done_at, outcome)
     SELECT m.kind, t.id, m.occasion, m.clinic_ik, m.party, m.at, m.at, 1, m.at + interval '20 seconds',
            CASE WHEN pg_temp.u(t.g * 8 + t.k, 91) < 0.7 THEN 'sent' ELSE 'no-recipients' END
       FROM year_task t JOIN year_request q ON q.g = t.g
      CROSS JOIN LATERAL (
        SELECT 'answer-requested' AS kind, '1' AS occasion, t.clinic_ik, NULL AS party, t.created AS at
        UNION ALL
        SELECT 'answer', pg_temp.uid(t.g * 8 + t.k, 92)::text, NULL, q.referrer_party_id, t.answered_at WHERE t.answered_at IS NOT NULL AND NOT t.auto_answer) m
      WHERE ${inWindow('t.created', w)} ORDER BY m.at`,
    `DELETE FROM ${i}.mail_outbox WHERE created_at < ${w.to}::timestamptz - interval '30 days'`,
    `INSERT INTO ${i}.referrer_draft (id, referrer_party_id, sealed_label, sealed_content, saved_at)
     SELECT pg_temp.uid(q.g, 93), q.referrer_party_id, pg_temp.noise(q.g, 90), pg_temp.noise(q.g + 1, 3000), q.created - interval '2 hours'
       FROM year_request q WHERE ${inWindow('q.created', w)} AND pg_temp.u(q.g, 94) < 0.1 ORDER BY q.created`,
    `DELETE FROM ${i}.referrer_draft WHERE saved_at < ${w.to}::timestamptz - interval '30 days'`,
  ];
}

export const INTAKE_DAY_CHURNED = ['outbox_message', 'mail_outbox', 'referrer_draft'];

/** The referrers' own settings: a third set a default deadline, a tenth of those a rule for asking further clinics. */
export function referrerSettingsSql(schema: string, clock: SeedClock): string[] {
  return [
    `INSERT INTO "${schema}".referrer_settings (referrer_party_id, answer_deadline_working_days, answer_deadline_holidays, updated_at, escalation, escalation_set_at)
     SELECT p.party_id, 2 + p.party % 4, 'DE-' || (ARRAY['BW','BY','NW','HE','NI'])[1 + p.party % 5], ${clock.start},
            CASE WHEN p.party % 30 = 1 THEN '{"whenOpenBelow":1,"askNext":2,"origin":{"postalCode":"10115","latitude":52.53,"longitude":13.38}}'::jsonb END,
            CASE WHEN p.party % 30 = 1 THEN ${clock.start} END
       FROM year_party p WHERE p.party % 3 = 1`,
  ];
}

/** Auth's parties (the referrers and clinics of the year), their people (three each, the first an administrator) and a few system clients. */
export function authSql(schema: string, clock: SeedClock, usersPerParty: number, benchUserId: string): string[] {
  const s = `"${schema}"`;
  return [
    `INSERT INTO ${s}.party (id, role, name, contact_email, ik_numbers, fhir_base, created_at, updated_at, contact_name, contact_phone)
     SELECT party_id::uuid, 'referrer', name, 'sozialdienst@hospital-' || party || '.example', ARRAY[ik], fhir_base, ${clock.start}, ${clock.start},
            'Sozialdienst', '+49 30 ' || (1000000 + party)
       FROM year_party
     UNION ALL
     SELECT party_id::uuid, 'clinic', 'Rehaklinik ' || c, 'aufnahme@klinik-' || c || '.example', ARRAY[ik], NULL, ${clock.start}, ${clock.start}, NULL, NULL
       FROM year_clinic`,
    `INSERT INTO ${s}.user_account (id, username, password_hash, party_id, display_name, email, administrator, email_notifications, created_at, updated_at)
     SELECT CASE WHEN p.party = 0 AND j = 1 THEN ${lit(benchUserId)}::uuid ELSE pg_temp.uid(p.party * 10 + j, 12) END, coalesce(CASE WHEN j = 1 THEN p.username END, 'referrer-' || p.party || '-' || j),
            '$argon2id$v=19$m=19456,t=2,p=1$c2VlZGVkLXVzZXI$' || pg_temp.hex64(p.party * 10 + j, 95), p.party_id::uuid, 'Person ' || j || ' ' || p.name,
            'person' || j || '@hospital-' || p.party || '.example', j = 1, pg_temp.u(p.party * 10 + j, 96) < 0.3, ${clock.start}, ${clock.start}
       FROM year_party p CROSS JOIN generate_series(1, ${usersPerParty}) j
     UNION ALL
     SELECT pg_temp.uid(c.c * 10 + j, 14), 'clinic-' || c.c || '-' || j, '$argon2id$v=19$m=19456,t=2,p=1$c2VlZGVkLXVzZXI$' || pg_temp.hex64(c.c * 10 + j, 97),
            c.party_id::uuid, 'Aufnahme ' || j || ' Klinik ' || c.c, 'aufnahme' || j || '@klinik-' || c.c || '.example', j = 1,
            pg_temp.u(c.c * 10 + j, 98) < 0.3, ${clock.start}, ${clock.start}
       FROM year_clinic c CROSS JOIN generate_series(1, ${usersPerParty}) j`,
    `INSERT INTO ${s}.system_client (id, party_id, name, jwks_url, created_at)
     SELECT pg_temp.uid(p.party, 99), p.party_id::uuid, 'KIS ' || p.name, 'https://hospital-' || p.party || '.example/.well-known/jwks.json', ${clock.start}
       FROM year_party p WHERE p.party % 20 = 2`,
  ];
}
