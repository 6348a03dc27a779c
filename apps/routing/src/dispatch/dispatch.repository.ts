import type { Prisma } from '../generated/prisma/client';
import type { BedCount, BedKey } from '../beds/bed-count';
import type { RoutingDatabase } from '../persistence/database';
import { routingTable } from '../persistence/sql';
import { outboxRow, type MessageMeta } from '@bedrequest/messaging';
import type { DispatchChanges, DispatchState, NotificationEntry, StoredHold } from './dispatch-batch';
import type { RegisteredClinic } from './dispatch-rules';

export interface StoredNotification extends NotificationEntry {
  createdAt: Date;
}

/** What a batch asks the database for before it decides. */
export interface DispatchKeys {
  messages: readonly MessageMeta[];
  /** Tasks whose routed version the batch may advance (locked). */
  taskIds: readonly string[];
  /** Tasks whose held bed the batch may book, reserve or give back (locked). */
  holdTaskIds: readonly string[];
  /** Beds the batch may try to hold (their counts are locked, with those of the beds held now). */
  wantedBeds: readonly BedKey[];
  clinicIks: readonly string[];
  /** Requests of the batch, to learn which intake erased before. */
  requestIdentifiers: readonly string[];
  /** Requests the batch erases: every hold of theirs is loaded (the write checks them like the others). */
  erasedRequests: readonly string[];
}

/** What `load` reads, its rows already named as the domain names them (the SQL says which column is which). */
interface StateRow {
  seen: string[];
  routed: { taskId: string; version: number }[];
  holds: StoredHold[];
  beds: BedCount[];
  clinics: RegisteredClinic[];
  erased: string[];
}

/**
 * Routing's SQL about dispatches, declines and erasures. A batch costs two statements whatever its size, each atomic on
 * its own and neither holding a lock while the batch decides: `load` reads every row the batch
 * decides on in one snapshot; `write` writes every change in one statement, each changed row only if
 * it is still as `load` read it (a Task's routed version; a bed count's free, held and reserved beds;
 * a hold's bed and state), else it fails with SQLSTATE 40001 and changes nothing: the broker then
 * splits the batch and each message is tried again on the state that won. So no bed is ever booked
 * twice, also with several routing replicas. Raw SQL through Prisma: the model API would cost a
 * round trip per row.
 */
export class DispatchRepository {
  private readonly t: Record<'inbox' | 'routed' | 'hold' | 'capacity' | 'clinic' | 'notification' | 'erasure' | 'outbox' | 'expectRows', Prisma.Sql>;

  constructor(
    private readonly prisma: RoutingDatabase,
    schema: string,
  ) {
    this.t = {
      inbox: routingTable(schema, 'inbox_message'),
      routed: routingTable(schema, 'routed_task'),
      hold: routingTable(schema, 'bed_hold'),
      capacity: routingTable(schema, 'bed_capacity'),
      clinic: routingTable(schema, 'clinic'),
      notification: routingTable(schema, 'clinic_notification'),
      erasure: routingTable(schema, 'request_erasure'),
      outbox: routingTable(schema, 'outbox_message'),
      expectRows: routingTable(schema, 'expect_rows'),
    };
  }

  /**
   * Everything the batch decides on, in one snapshot: which of its messages were processed before,
   * the routed versions of its Tasks, their holds, the bed counts it may book or give back, the
   * clinics. A Task or hold without a row yet is created by `write`; a concurrent batch creating the
   * same row meets ours at its primary key, and one of them fails and is tried again.
   */
  async load(keys: DispatchKeys): Promise<DispatchState> {
    const t = this.t;
    const [row] = await this.prisma.$queryRaw<{ state: StateRow }[]>`
      WITH routed AS (
        SELECT task_id AS "taskId", version FROM ${t.routed} WHERE task_id = ANY(${keys.taskIds}::uuid[])),
      holds AS (
        SELECT task_id AS "taskId", request_identifier AS "requestIdentifier", clinic_ik AS "clinicIk", department_code AS "departmentCode",
               to_char(admission_date, 'YYYY-MM-DD') AS "admissionDate", state
          FROM ${t.hold} WHERE task_id = ANY(${keys.holdTaskIds}::uuid[]) OR request_identifier = ANY(${keys.erasedRequests}::text[])),
      beds AS (
        SELECT clinic_ik AS "clinicIk", department_code AS "departmentCode", to_char(admission_date, 'YYYY-MM-DD') AS "admissionDate",
               free_beds AS "freeBeds", held, reserved
          FROM ${t.capacity}
         WHERE (clinic_ik, department_code, admission_date) IN (
                 SELECT * FROM unnest(${keys.wantedBeds.map((bed) => bed.clinicIk)}::text[], ${keys.wantedBeds.map((bed) => bed.departmentCode)}::text[],
                                      ${keys.wantedBeds.map((bed) => bed.admissionDate)}::date[])
                 UNION SELECT "clinicIk", "departmentCode", "admissionDate"::date FROM holds))
      SELECT json_build_object(
        'seen', (SELECT coalesce(json_agg(message_id), '[]') FROM ${t.inbox} WHERE message_id = ANY(${keys.messages.map((meta) => meta.messageId)}::uuid[])),
        'routed', (SELECT coalesce(json_agg(routed), '[]') FROM routed),
        'holds', (SELECT coalesce(json_agg(holds), '[]') FROM holds),
        'beds', (SELECT coalesce(json_agg(beds), '[]') FROM beds),
        'clinics', (SELECT coalesce(json_agg(c), '[]') FROM (SELECT ik, name, departments, auto_answer AS "automaticAnswers" FROM ${t.clinic} WHERE ik = ANY(${keys.clinicIks}::text[])) c),
        'erased', (SELECT coalesce(json_agg(request_identifier), '[]') FROM ${t.erasure} WHERE request_identifier = ANY(${keys.requestIdentifiers}::text[]))
      ) AS state`;
    if (!row) throw new Error('the state query returned no row');
    const state = row.state;
    const seen = new Set(state.seen);
    return {
      fresh: new Set(keys.messages.map((meta) => meta.messageId).filter((id) => !seen.has(id))),
      routedVersions: new Map(state.routed.map((routed) => [routed.taskId, routed.version])),
      holds: state.holds,
      bedCounts: state.beds,
      clinics: new Map(state.clinics.map((clinic) => [clinic.ik, clinic])),
      erased: new Set(state.erased),
    };
  }

  /** Writes every change of a batch in one statement, each changed row only if it is still as read. */
  async write(changes: DispatchChanges): Promise<void> {
    const t = this.t;
    const hold = (entry: StoredHold) => ({
      task_id: entry.taskId,
      request_identifier: entry.requestIdentifier,
      clinic_ik: entry.clinicIk,
      department_code: entry.departmentCode,
      admission_date: entry.admissionDate,
      state: entry.state,
    });
    const payload = JSON.stringify({
      inbox: changes.processed.map((meta) => ({ message_id: meta.messageId, message_type: meta.messageType })),
      routed_new: changes.routedTasks
        .filter((task) => task.isNew)
        .map((task) => ({ task_id: task.taskId, request_identifier: task.requestIdentifier, clinic_ik: task.clinicIk, version: task.version })),
      routed_changed: changes.routedTasks
        .filter((task) => !task.isNew)
        .map((task) => ({ task_id: task.taskId, version: task.version, expected_version: task.readVersion })),
      beds: changes.bedCounts.map(({ after, read }) => ({
        clinic_ik: after.clinicIk,
        department_code: after.departmentCode,
        admission_date: after.admissionDate,
        held: after.held,
        reserved: after.reserved,
        read_free_beds: read.freeBeds,
        read_held: read.held,
        read_reserved: read.reserved,
      })),
      holds_removed: changes.holds.removed.map(hold),
      holds_added: changes.holds.added.map(hold),
      holds_changed: changes.holds.changed.map(({ after, read }) => ({ ...hold(after), read: hold(read) })),
      notifications: changes.notifications.map((entry) => ({
        message_id: entry.messageId,
        task_id: entry.taskId,
        clinic_ik: entry.clinicIk,
        request_identifier: entry.requestIdentifier,
        request_version: entry.requestVersion,
        change: entry.change,
        action: entry.action,
        department_code: entry.departmentCode ?? null,
        admission_date: entry.admissionDate ?? null,
        outcome: entry.outcome,
        answer: entry.answer ?? null,
        note: entry.note ?? null,
      })),
      erasures: changes.erasures.map((erasure) => ({ request_identifier: erasure.requestIdentifier, erased_at: erasure.erasedAt })),
      // Every request the batch wrote something of: its Tasks' versions or a notification log line.
      dispatched: [...new Set([...changes.routedTasks, ...changes.notifications].map((entry) => entry.requestIdentifier))],
      outbox: changes.outbox.map(outboxRow),
    });
    await this.prisma.$queryRaw`
      WITH changes AS (SELECT ${payload}::jsonb AS c),
      inbox AS (
        INSERT INTO ${t.inbox} (message_id, message_type)
        SELECT x.message_id, x.message_type FROM changes, jsonb_to_recordset(c -> 'inbox') AS x(message_id uuid, message_type text)),
      routed_new AS (
        INSERT INTO ${t.routed} (task_id, request_identifier, clinic_ik, version)
        SELECT x.task_id, x.request_identifier, x.clinic_ik, x.version
          FROM changes, jsonb_to_recordset(c -> 'routed_new') AS x(task_id uuid, request_identifier text, clinic_ik text, version integer)),
      routed_changed AS (
        UPDATE ${t.routed} AS r SET version = x.version, updated_at = now()
          FROM changes, jsonb_to_recordset(c -> 'routed_changed') AS x(task_id uuid, version integer, expected_version integer)
         WHERE r.task_id = x.task_id AND r.version = x.expected_version
        RETURNING 1),
      beds AS (
        UPDATE ${t.capacity} AS b SET held = x.held, reserved = x.reserved, updated_at = now()
          FROM changes, jsonb_to_recordset(c -> 'beds') AS x(clinic_ik text, department_code text, admission_date date, held integer, reserved integer,
               read_free_beds integer, read_held integer, read_reserved integer)
         WHERE b.clinic_ik = x.clinic_ik AND b.department_code = x.department_code AND b.admission_date = x.admission_date
           -- The count the batch booked against: unchanged by another batch or by the clinic meanwhile.
           AND b.free_beds = x.read_free_beds AND b.held = x.read_held AND b.reserved = x.read_reserved
        RETURNING 1),
      holds_removed AS (
        DELETE FROM ${t.hold} AS h
         USING changes, jsonb_to_recordset(c -> 'holds_removed') AS x(task_id uuid, clinic_ik text, department_code text, admission_date date, state text)
         WHERE h.task_id = x.task_id AND h.state = x.state
           AND h.clinic_ik = x.clinic_ik AND h.department_code = x.department_code AND h.admission_date = x.admission_date
        RETURNING 1),
      holds_added AS (
        INSERT INTO ${t.hold} (task_id, request_identifier, clinic_ik, department_code, admission_date, state)
        SELECT x.task_id, x.request_identifier, x.clinic_ik, x.department_code, x.admission_date, x.state
          FROM changes, jsonb_to_recordset(c -> 'holds_added') AS x(task_id uuid, request_identifier text, clinic_ik text, department_code text, admission_date date, state text)),
      holds_changed AS (
        UPDATE ${t.hold} AS h
           SET clinic_ik = x.clinic_ik, department_code = x.department_code, admission_date = x.admission_date, state = x.state, updated_at = now()
          FROM changes, jsonb_to_recordset(c -> 'holds_changed') AS x(task_id uuid, clinic_ik text, department_code text, admission_date date, state text, read jsonb)
         WHERE h.task_id = x.task_id AND h.state = x.read ->> 'state'
           AND h.clinic_ik = x.read ->> 'clinic_ik' AND h.department_code = x.read ->> 'department_code' AND h.admission_date = (x.read ->> 'admission_date')::date
        RETURNING 1),
      notifications AS (
        INSERT INTO ${t.notification} (message_id, task_id, clinic_ik, request_identifier, request_version, change, action, department_code, admission_date, outcome, answer, note)
        SELECT x.message_id, x.task_id, x.clinic_ik, x.request_identifier, x.request_version, x.change, x.action, x.department_code, x.admission_date, x.outcome, x.answer, x.note
          FROM changes, jsonb_to_recordset(c -> 'notifications') AS x(message_id uuid, task_id uuid, clinic_ik text, request_identifier text, request_version integer,
               change text, action text, department_code text, admission_date date, outcome text, answer text, note text)),
      erasures AS (
        INSERT INTO ${t.erasure} (request_identifier, erased_at)
        SELECT x.request_identifier, x.erased_at FROM changes, jsonb_to_recordset(c -> 'erasures') AS x(request_identifier text, erased_at timestamptz)
        ON CONFLICT (request_identifier) DO NOTHING),
      erased_notifications AS (
        UPDATE ${t.notification} AS n SET department_code = NULL, admission_date = NULL, note = NULL
          FROM changes, jsonb_to_recordset(c -> 'erasures') AS x(request_identifier text)
         WHERE n.request_identifier = x.request_identifier),
      outbox AS (
        INSERT INTO ${t.outbox} (routing_key, envelope, trace_context)
        SELECT x.routing_key, x.envelope, x.trace_context
          FROM changes, ROWS FROM (jsonb_to_recordset(c -> 'outbox') AS (routing_key text, envelope jsonb, trace_context jsonb))
               WITH ORDINALITY AS x(routing_key, envelope, trace_context, n)
         ORDER BY x.n)
      SELECT ${t.expectRows}(${changes.routedTasks.filter((task) => !task.isNew).length}, (SELECT count(*) FROM routed_changed), 'routed Tasks')
         AND ${t.expectRows}(${changes.bedCounts.length}, (SELECT count(*) FROM beds), 'bed counts')
         AND ${t.expectRows}(${changes.holds.removed.length + changes.holds.changed.length}, (SELECT count(*) FROM holds_removed) + (SELECT count(*) FROM holds_changed), 'holds')
         -- A request the batch dispatched and another batch erased after this one read it. The check
         -- sees erasures committed before this statement began; one committed while it runs is met
         -- only where both change the same bed count. That needs a stale dispatch of the request
         -- (intake's outbox sends it before the erasure) on another replica in the same instant.
         -- (Both checks join the batch's identifiers to the table, so that they read its index: an
         -- IN over a subquery scanned all of request_erasure and bed_hold on every batch.)
         AND ${t.expectRows}(0, (SELECT count(*) FROM changes, jsonb_array_elements_text(c -> 'dispatched') d(request_identifier)
                                   JOIN ${t.erasure} e ON e.request_identifier = d.request_identifier), 'erased requests')
         -- And the other way round: a hold of a request this batch erases that another batch added
         -- after this one read the request's holds (a stale dispatch booking another clinic's bed)
         -- would outlive the erasure: the batch is tried again and finds it.
         AND ${t.expectRows}(0, (SELECT count(*) FROM changes, jsonb_to_recordset(c -> 'erasures') x(request_identifier text)
                                   JOIN ${t.hold} h ON h.request_identifier = x.request_identifier
                                  WHERE h.task_id NOT IN (SELECT (r ->> 'task_id')::uuid FROM changes, jsonb_array_elements(c -> 'holds_removed') r)), 'holds of erased requests')
         AS written`;
  }

  /** The clinic's notification log, newest first. */
  async notificationsOf(clinicIk: string, limit: number): Promise<StoredNotification[]> {
    const rows = await this.prisma.clinicNotification.findMany({ where: { clinicIk }, orderBy: { id: 'desc' }, take: limit });
    return rows.map((row) => ({
      messageId: row.messageId,
      taskId: row.taskId,
      clinicIk: row.clinicIk,
      requestIdentifier: row.requestIdentifier,
      requestVersion: row.requestVersion,
      change: row.change,
      action: row.action,
      ...(row.departmentCode ? { departmentCode: row.departmentCode } : {}),
      ...(row.admissionDate ? { admissionDate: row.admissionDate.toISOString().slice(0, 10) } : {}),
      outcome: row.outcome,
      ...(row.answer ? { answer: row.answer } : {}),
      ...(row.note ? { note: row.note } : {}),
      createdAt: row.createdAt,
    }));
  }
}
