// Routing's tables (apps/routing): the clinic registry and its bed counts, and for every chunk of
// the year the Tasks routed, the clinics' notification log, the bed holds and what an erasure
// leaves (docs/data-protection.md: the log keeps ids, versions, outcomes and answers without the
// department, the date and the note; the holds go; a request_erasure row stays).
import { RequestDispatchedV1, RequestErasedV1 } from '@bedrequest/contracts';
import { lit, type SeedClock } from './seed-lifecycle';
import type { Window } from './seed-intake';

const inWindow = (column: string, w: Window) => `${column} >= ${w.from} AND ${column} < ${w.to}`;

/**
 * The registry and the counts of the clinics that publish them, each count published twice, from
 * `historyDays` before today (the year's, at scale 1) to 60 days ahead.
 */
export function routingBaseSql(schema: string, clock: SeedClock, historyDays: number): string[] {
  const s = `"${schema}"`;
  return [
    `INSERT INTO ${s}.clinic (ik, name, departments, auto_answer, created_at, updated_at, shown_to_referrers, postal_code, latitude, longitude)
     SELECT ik, 'Rehaklinik ' || c, departments, auto_answer, ${clock.start}, ${clock.start}, c % 2 = 0,
            lpad((10000 + pg_temp.h(c, 34) % 89000)::text, 5, '0'), 47.5 + pg_temp.u(c, 35) * 7, 6 + pg_temp.u(c, 36) * 9
       FROM year_clinic ORDER BY c`,
    `INSERT INTO ${s}.bed_capacity (clinic_ik, department_code, admission_date, free_beds, updated_at)
     SELECT cl.ik, d.code, day::date, pg_temp.h(cl.c * 1000 + extract(doy FROM day)::int, 37) % 8, day - interval '2 days'
       FROM year_clinic cl CROSS JOIN LATERAL unnest(cl.departments) AS d(code)
       CROSS JOIN generate_series(${clock.now}::date - ${historyDays}, ${clock.now}::date + 60, interval '1 day') AS day
      WHERE cl.publishes ORDER BY day, cl.ik, d.code`,
    `UPDATE ${s}.bed_capacity SET free_beds = free_beds WHERE admission_date < ${clock.now}::date`,
  ];
}

/** `capacityFrom`: the first day with bed counts (routingBaseSql): a hold needs its day's count. */
export function routingChunkSql(schema: string, w: Window, capacityFrom: string): string[] {
  const s = `"${schema}"`;
  const arrived = inWindow('t.created', w);
  return [
    `INSERT INTO ${s}.routed_task (task_id, request_identifier, clinic_ik, version, updated_at)
     SELECT t.id, t.identifier, t.clinic_ik, t.sent_version, t.last_modified FROM year_task t WHERE ${arrived} ORDER BY t.g, t.k`,
    `INSERT INTO ${s}.inbox_message (message_id, message_type, processed_at)
     SELECT pg_temp.uid(r.g * 8 + v, 50), ${lit(RequestDispatchedV1.routingKey)}, r.created FROM year_request r CROSS JOIN generate_series(1, 1) v
      WHERE ${inWindow('r.created', w)}
     UNION ALL
     SELECT pg_temp.uid(r.g * 8 + 2, 50), ${lit(RequestDispatchedV1.routingKey)}, r.supplemented_at FROM year_request r
      WHERE ${inWindow('r.created', w)} AND r.supplemented_at IS NOT NULL
     UNION ALL
     SELECT pg_temp.uid(r.g * 8 + r.current_version, 50), ${lit(RequestDispatchedV1.routingKey)}, coalesce(r.selected_at, r.revoked_at) FROM year_request r
      WHERE ${inWindow('r.created', w)} AND r.outcome <> 'open'`,
    // What each clinic was sent and what routing did: one line per dispatch of the request (created, supplemented, selected or revoked) and Task.
    `INSERT INTO ${s}.clinic_notification (message_id, task_id, clinic_ik, request_identifier, request_version, change, action, department_code, admission_date,
            outcome, answer, note, created_at)
     SELECT pg_temp.uid(t.g * 8 + n.v, 50), t.id, t.clinic_ik, t.identifier, n.v, n.change, n.action, t.department, (t.created AT TIME ZONE 'UTC')::date + 14,
            n.outcome, n.answer, n.note, n.at
       FROM year_task t JOIN year_request r ON r.g = t.g
      CROSS JOIN LATERAL (
        SELECT 1 AS v, 'created' AS change, 'answer-requested' AS action, CASE WHEN t.held THEN 'accepted-bed-held' ELSE 'forwarded' END AS outcome,
               CASE WHEN t.held THEN 'accepted' END AS answer,
               CASE WHEN t.held THEN 'Aufnahme am ' || to_char(t.created + interval '14 days', 'DD.MM.YYYY') || ' möglich (Bettenmeldung)' END AS note,
               t.created AS at
        UNION ALL
        SELECT 2, 'supplemented', 'answer-requested', 'forwarded', NULL, NULL, r.supplemented_at
         WHERE r.supplemented_at IS NOT NULL AND (t.cancelled_at IS NULL OR r.supplemented_at < t.cancelled_at)
        UNION ALL
        SELECT r.current_version, CASE WHEN r.outcome = 'selected' THEN 'selected' ELSE 'revoked' END, CASE WHEN t.chosen THEN 'selected' ELSE 'cancelled' END,
               CASE WHEN t.chosen THEN CASE WHEN t.held THEN 'selected-bed-reserved' ELSE 'selected-no-date' END
                    ELSE CASE WHEN t.held THEN 'cancelled-bed-released' ELSE 'cancelled' END END,
               NULL, NULL, coalesce(r.selected_at, r.revoked_at)
         WHERE r.outcome <> 'open') n
      WHERE ${arrived} ORDER BY n.at`,
    `INSERT INTO ${s}.bed_hold (task_id, request_identifier, clinic_ik, department_code, admission_date, state, created_at, updated_at)
     SELECT t.id, t.identifier, t.clinic_ik, t.department, (t.created AT TIME ZONE 'UTC')::date + 14, CASE WHEN t.chosen THEN 'reserved' ELSE 'held' END,
            t.created, t.last_modified
       FROM year_task t WHERE ${arrived} AND t.held AND (t.created AT TIME ZONE 'UTC')::date + 14 >= ${capacityFrom} ORDER BY t.g, t.k`,
    // A bed held for a Task whose clinic was not chosen (or whose request was revoked) goes back.
    `DELETE FROM ${s}.bed_hold h USING year_task t WHERE ${inWindow('t.cancelled_at', w)} AND t.held AND h.task_id = t.id`,
  ];
}

export function routingErasureSql(schema: string, w: Window): string[] {
  const s = `"${schema}"`;
  const erased = inWindow('r.erased_at', w);
  return [
    `UPDATE ${s}.clinic_notification n SET department_code = NULL, admission_date = NULL, note = NULL
       FROM year_request r WHERE ${erased} AND n.request_identifier = r.identifier`,
    `DELETE FROM ${s}.bed_hold h USING year_request r WHERE ${erased} AND h.request_identifier = r.identifier`,
    `INSERT INTO ${s}.request_erasure (request_identifier, erased_at)
     SELECT r.identifier, r.erased_at + interval '1 second' FROM year_request r WHERE ${erased} ORDER BY r.erased_at`,
    `INSERT INTO ${s}.inbox_message (message_id, message_type, processed_at)
     SELECT pg_temp.uid(r.g, 51), ${lit(RequestErasedV1.routingKey)}, r.erased_at + interval '1 second' FROM year_request r WHERE ${erased} ORDER BY r.erased_at`,
  ];
}

/** The holds' bookings in the counts, as routing keeps them beside its holds. */
export function routingFinishSql(schema: string): string[] {
  const s = `"${schema}"`;
  return [
    `UPDATE ${s}.bed_capacity c SET held = x.held, reserved = x.reserved, free_beds = greatest(c.free_beds, x.held + x.reserved)
       FROM (SELECT clinic_ik, department_code, admission_date, count(*) FILTER (WHERE state = 'held')::int AS held,
                    count(*) FILTER (WHERE state = 'reserved')::int AS reserved
               FROM ${s}.bed_hold GROUP BY 1, 2, 3) x
      WHERE c.clinic_ik = x.clinic_ik AND c.department_code = x.department_code AND c.admission_date = x.admission_date`,
  ];
}

export const ROUTING_CHURNED = ['clinic_notification', 'bed_hold', 'bed_capacity'];
