import type { Prisma } from '../generated/prisma/client';
import type { BedCount, BedKey, BedState } from '../beds/bed-count';
import type { RoutingDatabase } from '../persistence/database';
import { routingTable } from '../persistence/sql';
import type { DispatchChanges, DispatchState, MessageMeta, NotificationEntry, StoredHold } from './dispatch-batch';

export type Tx = Prisma.TransactionClient;

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
}

interface StateRow {
  fresh: string[];
  routed: { task_id: string; version: number }[];
  holds: { task_id: string; request_identifier: string; clinic_ik: string; department_code: string; admission_date: string; state: BedState }[];
  beds: { clinic_ik: string; department_code: string; admission_date: string; free_beds: number; held: number; reserved: number }[];
  clinics: { ik: string; departments: string[]; auto_answer: boolean }[];
}

/**
 * Routing's SQL about dispatches. A batch costs four round trips whatever its size: BEGIN, `load`
 * (the inbox insert that tells which messages are new, and every row the batch decides on, locked
 * in a fixed order), `write` (every change in one statement), COMMIT. Raw SQL through Prisma: the
 * model API would cost a round trip per row.
 */
export class DispatchRepository {
  private readonly t: Record<'inbox' | 'routed' | 'hold' | 'capacity' | 'clinic' | 'notification' | 'outbox', Prisma.Sql>;

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
      outbox: routingTable(schema, 'outbox_message'),
    };
  }

  transaction<T>(work: (tx: Tx) => Promise<T>): Promise<T> {
    // Waits for row locks of concurrent batches on the same bed counts are short; 15 s is ample.
    return this.prisma.$transaction(work, { timeout: 15_000, maxWait: 10_000 });
  }

  /**
   * Records the batch's message ids (the new ones come back) and reads, under row locks taken in
   * one order (routed tasks, holds, bed counts; each by key), everything the batch decides on. A
   * Task or hold that has no row yet has nothing to lock: a concurrent batch creating the same row
   * meets ours at its primary key, and one of them fails and is tried again.
   */
  async load(tx: Tx, keys: DispatchKeys): Promise<DispatchState> {
    const t = this.t;
    const [row] = await tx.$queryRaw<{ state: StateRow }[]>`
      WITH fresh AS (
        INSERT INTO ${t.inbox} (message_id, message_type)
        SELECT * FROM unnest(${keys.messages.map((meta) => meta.messageId)}::uuid[], ${keys.messages.map((meta) => meta.messageType)}::text[])
        ON CONFLICT DO NOTHING
        RETURNING message_id),
      routed AS (
        SELECT task_id, version FROM ${t.routed} WHERE task_id = ANY(${keys.taskIds}::uuid[]) ORDER BY task_id FOR UPDATE),
      holds AS (
        SELECT task_id, request_identifier, clinic_ik, department_code, to_char(admission_date, 'YYYY-MM-DD') AS admission_date, state, admission_date AS day
          FROM ${t.hold} WHERE task_id = ANY(${keys.holdTaskIds}::uuid[]) ORDER BY task_id FOR UPDATE),
      beds AS (
        SELECT clinic_ik, department_code, to_char(admission_date, 'YYYY-MM-DD') AS admission_date, free_beds, held, reserved
          FROM ${t.capacity}
         WHERE (clinic_ik, department_code, admission_date) IN (
                 SELECT * FROM unnest(${keys.wantedBeds.map((bed) => bed.clinicIk)}::text[], ${keys.wantedBeds.map((bed) => bed.departmentCode)}::text[],
                                      ${keys.wantedBeds.map((bed) => bed.admissionDate)}::date[])
                 UNION SELECT clinic_ik, department_code, day FROM holds)
         ORDER BY clinic_ik, department_code, admission_date
           FOR UPDATE)
      SELECT json_build_object(
        'fresh', (SELECT coalesce(json_agg(message_id), '[]') FROM fresh),
        'routed', (SELECT coalesce(json_agg(routed), '[]') FROM routed),
        'holds', (SELECT coalesce(json_agg(holds), '[]') FROM holds),
        'beds', (SELECT coalesce(json_agg(beds), '[]') FROM beds),
        'clinics', (SELECT coalesce(json_agg(c), '[]') FROM (SELECT ik, departments, auto_answer FROM ${t.clinic} WHERE ik = ANY(${keys.clinicIks}::text[])) c)
      ) AS state`;
    if (!row) throw new Error('the state query returned no row');
    const state = row.state;
    return {
      fresh: new Set(state.fresh),
      routedVersions: new Map(state.routed.map((routed) => [routed.task_id, routed.version])),
      holds: state.holds.map(
        (hold): StoredHold => ({
          taskId: hold.task_id,
          requestIdentifier: hold.request_identifier,
          clinicIk: hold.clinic_ik,
          departmentCode: hold.department_code,
          admissionDate: hold.admission_date,
          state: hold.state,
        }),
      ),
      bedCounts: state.beds.map(
        (bed): BedCount => ({
          clinicIk: bed.clinic_ik,
          departmentCode: bed.department_code,
          admissionDate: bed.admission_date,
          freeBeds: bed.free_beds,
          held: bed.held,
          reserved: bed.reserved,
        }),
      ),
      clinics: new Map(state.clinics.map((clinic) => [clinic.ik, { ik: clinic.ik, departments: clinic.departments, automaticAnswers: clinic.auto_answer }])),
    };
  }

  /** Writes every change of a batch in one statement (the rows it changes are locked by `load`). */
  async write(tx: Tx, changes: DispatchChanges): Promise<void> {
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
      routed_new: changes.routedTasks.filter((task) => task.isNew).map((task) => ({ task_id: task.taskId, request_identifier: task.requestIdentifier, clinic_ik: task.clinicIk, version: task.version })),
      routed_changed: changes.routedTasks.filter((task) => !task.isNew).map((task) => ({ task_id: task.taskId, version: task.version })),
      beds: changes.bedCounts.map((bed) => ({ clinic_ik: bed.clinicIk, department_code: bed.departmentCode, admission_date: bed.admissionDate, held: bed.held, reserved: bed.reserved })),
      holds_removed: changes.holds.removed,
      holds_added: changes.holds.added.map(hold),
      holds_changed: changes.holds.changed.map(hold),
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
      outbox: changes.outbox.map((record) => ({ routing_key: record.routingKey, envelope: record.envelope })),
    });
    await tx.$executeRaw`
      WITH changes AS (SELECT ${payload}::jsonb AS c),
      routed_new AS (
        INSERT INTO ${t.routed} (task_id, request_identifier, clinic_ik, version)
        SELECT x.task_id, x.request_identifier, x.clinic_ik, x.version
          FROM changes, jsonb_to_recordset(c -> 'routed_new') AS x(task_id uuid, request_identifier text, clinic_ik text, version integer)),
      routed_changed AS (
        UPDATE ${t.routed} AS r SET version = x.version, updated_at = now()
          FROM changes, jsonb_to_recordset(c -> 'routed_changed') AS x(task_id uuid, version integer)
         WHERE r.task_id = x.task_id),
      beds AS (
        UPDATE ${t.capacity} AS b SET held = x.held, reserved = x.reserved, updated_at = now()
          FROM changes, jsonb_to_recordset(c -> 'beds') AS x(clinic_ik text, department_code text, admission_date date, held integer, reserved integer)
         WHERE b.clinic_ik = x.clinic_ik AND b.department_code = x.department_code AND b.admission_date = x.admission_date),
      holds_removed AS (
        DELETE FROM ${t.hold} WHERE task_id IN (SELECT jsonb_array_elements_text(c -> 'holds_removed')::uuid FROM changes)),
      holds_added AS (
        INSERT INTO ${t.hold} (task_id, request_identifier, clinic_ik, department_code, admission_date, state)
        SELECT x.task_id, x.request_identifier, x.clinic_ik, x.department_code, x.admission_date, x.state
          FROM changes, jsonb_to_recordset(c -> 'holds_added') AS x(task_id uuid, request_identifier text, clinic_ik text, department_code text, admission_date date, state text)),
      holds_changed AS (
        UPDATE ${t.hold} AS h
           SET clinic_ik = x.clinic_ik, department_code = x.department_code, admission_date = x.admission_date, state = x.state, updated_at = now()
          FROM changes, jsonb_to_recordset(c -> 'holds_changed') AS x(task_id uuid, clinic_ik text, department_code text, admission_date date, state text)
         WHERE h.task_id = x.task_id),
      notifications AS (
        INSERT INTO ${t.notification} (message_id, task_id, clinic_ik, request_identifier, request_version, change, action, department_code, admission_date, outcome, answer, note)
        SELECT x.message_id, x.task_id, x.clinic_ik, x.request_identifier, x.request_version, x.change, x.action, x.department_code, x.admission_date, x.outcome, x.answer, x.note
          FROM changes, jsonb_to_recordset(c -> 'notifications') AS x(message_id uuid, task_id uuid, clinic_ik text, request_identifier text, request_version integer,
               change text, action text, department_code text, admission_date date, outcome text, answer text, note text))
      INSERT INTO ${t.outbox} (routing_key, envelope)
      SELECT x.routing_key, x.envelope
        FROM changes, ROWS FROM (jsonb_to_recordset(c -> 'outbox') AS (routing_key text, envelope jsonb)) WITH ORDINALITY AS x(routing_key, envelope, n)
       ORDER BY x.n`;
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
