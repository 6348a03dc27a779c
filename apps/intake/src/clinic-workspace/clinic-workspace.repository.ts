import { randomUUID } from 'node:crypto';
import type { ClinicPerson, InternalNote, TaskAssignee, TaskWorkspaceMarks } from '@bedrequest/contracts';
import { taskAccess, type ClinicViewer } from '../access';
import { appendPayload, entriesOf, type AuditRecord } from '../audit';
import { type Prisma } from '../generated/prisma/client';
import { intakeTable, sealedFor, type IntakeDatabase, type SealedFields } from '../persistence';

/** A Task as the workspace reads it: what the access policy and the audit trail need, and its current version. */
export interface WorkspaceTask {
  id: string;
  clinicIk: string;
  status: string;
  sentVersion: number;
  cancelledAt: Date | null;
  requestIdentifier: string;
  referrerPartyId: string;
  erasedAt: Date | null;
}

interface MarksRow {
  task_id: string;
  sent_version: number;
  seen_version: number | null;
  assignee_user: string | null;
  assignee_name: string | null;
  assigned_at: Date | null;
}

/** A sealed internal note's content: the author's user id and display name are sealed with the text. */
interface SealedNote {
  text: string;
  user: string;
  name?: string;
}

/** What a change of the assignee found and did. */
export type AssigneeChange = { outcome: 'changed' | 'unchanged'; previous?: TaskAssignee } | { outcome: 'held'; assignee: TaskAssignee };

/**
 * The clinic's shared state of its Tasks (migration 0007): who works on a Task, the latest version
 * its people opened, and its internal notes, sealed like the Task's notes (docs/data-protection.md).
 * Each change is written with its audit entries in one transaction, as a request batch writes an
 * answer with its entries: no change without its record.
 */
export class ClinicWorkspaceRepository {
  private readonly t: { task: Prisma.Sql; request: Prisma.Sql; erasure: Prisma.Sql; workspace: Prisma.Sql; note: Prisma.Sql; appendAudit: Prisma.Sql };

  constructor(
    private readonly prisma: IntakeDatabase,
    schema: string,
    private readonly fields: SealedFields,
  ) {
    const table = (name: string) => intakeTable(schema, name);
    this.t = {
      task: table('clinic_task'),
      request: table('admission_request'),
      erasure: table('request_erasure'),
      workspace: table('clinic_task_workspace'),
      note: table('clinic_internal_note'),
      appendAudit: table('append_audit_events'),
    };
  }

  async findTask(taskId: string): Promise<WorkspaceTask | undefined> {
    const [row] = await this.prisma.$queryRaw<
      {
        id: string;
        clinic_ik: string;
        status: string;
        sent_version: number;
        cancelled_at: Date | null;
        identifier: string;
        referrer_party_id: string;
        erased_at: Date | null;
      }[]
    >`SELECT t.id::text AS id, t.clinic_ik, t.status, t.sent_version, t.cancelled_at, r.identifier, r.referrer_party_id, e.erased_at
        FROM ${this.t.task} t
        JOIN ${this.t.request} r ON r.id = t.request_id
        LEFT JOIN ${this.t.erasure} e ON e.request_id = t.request_id
       WHERE t.id = ${taskId}::uuid`;
    if (!row) return undefined;
    return {
      id: row.id,
      clinicIk: row.clinic_ik,
      status: row.status,
      sentVersion: row.sent_version,
      cancelledAt: row.cancelled_at,
      requestIdentifier: row.identifier,
      referrerPartyId: row.referrer_party_id,
      erasedAt: row.erased_at,
    };
  }

  /** The marks of those of `taskIds` the viewer may see, in no particular order. */
  async marks(viewer: ClinicViewer, taskIds: readonly string[]): Promise<TaskWorkspaceMarks[]> {
    if (taskIds.length === 0) return [];
    const rows = await this.prisma.$queryRaw<MarksRow[]>`
      SELECT t.id::text AS task_id, t.sent_version, w.seen_version, w.assignee_user, w.assignee_name, w.assigned_at
        FROM ${this.t.task} t
        LEFT JOIN ${this.t.workspace} w ON w.task_id = t.id
       WHERE t.id = ANY(${[...taskIds]}::uuid[]) AND ${taskAccess.where(viewer)}`;
    return rows.map(marksOf);
  }

  /** The viewer's Tasks, cancelled ones aside, whose current version none of its people opened. */
  async unseen(viewer: ClinicViewer): Promise<number> {
    const [row] = await this.prisma.$queryRaw<{ unseen: number }[]>`
      SELECT count(*)::int AS unseen
        FROM ${this.t.task} t
        LEFT JOIN ${this.t.workspace} w ON w.task_id = t.id
       WHERE ${taskAccess.where(viewer)} AND t.status <> 'cancelled' AND t.sent_version > coalesce(w.seen_version, 0)`;
    return row?.unseen ?? 0;
  }

  /** The Task's internal notes, oldest first, opened. */
  async notes(taskId: string): Promise<InternalNote[]> {
    const rows = await this.prisma.$queryRaw<{ id: string; sealed_note: Uint8Array; created_at: Date }[]>`
      SELECT id::text AS id, sealed_note, created_at FROM ${this.t.note} WHERE task_id = ${taskId}::uuid ORDER BY created_at, id`;
    return Promise.all(
      rows.map(async (row) => {
        const note = await this.fields.open<SealedNote>(sealedFor.internalNote(row.id), row.sealed_note);
        return { id: row.id, time: row.created_at.toISOString(), author: personView(note), text: note.text };
      }),
    );
  }

  /**
   * Appends a note unless the Task holds `max` of them already (false). The Task's workspace row is
   * locked first, so that two notes written at once count each other.
   */
  async addNote(taskId: string, author: ClinicPerson, text: string, max: number, audit: AuditRecord, now: Date): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      await this.lockWorkspace(tx, taskId);
      const [count] = await tx.$queryRaw<{ notes: number }[]>`SELECT count(*)::int AS notes FROM ${this.t.note} WHERE task_id = ${taskId}::uuid`;
      if ((count?.notes ?? 0) >= max) return false;
      const id = randomUUID();
      const sealed = this.fields.seal(sealedFor.internalNote(id), { text, user: author.user, ...(author.name === undefined ? {} : { name: author.name }) });
      await tx.$executeRaw`INSERT INTO ${this.t.note} (id, task_id, sealed_note, created_at) VALUES (${id}::uuid, ${taskId}::uuid, ${sealed}, ${now})`;
      await this.appendAudit(tx, [audit], now);
      return true;
    });
  }

  /**
   * Makes `person` the Task's assignee: unchanged when they are already (keeping since when),
   * `held` when a colleague is and `takeOver` is not set.
   */
  async take(taskId: string, person: ClinicPerson, takeOver: boolean, audit: (previous?: TaskAssignee) => AuditRecord, now: Date): Promise<AssigneeChange> {
    return this.prisma.$transaction(async (tx) => {
      const current = await this.lockWorkspace(tx, taskId);
      if (current?.user === person.user) {
        if (current.name !== person.name) {
          await tx.$executeRaw`UPDATE ${this.t.workspace} SET assignee_name = ${person.name ?? null} WHERE task_id = ${taskId}::uuid`;
        }
        return { outcome: 'unchanged' };
      }
      if (current && !takeOver) return { outcome: 'held', assignee: current };
      await tx.$executeRaw`
        UPDATE ${this.t.workspace} SET assignee_user = ${person.user}, assignee_name = ${person.name ?? null}, assigned_at = ${now}
         WHERE task_id = ${taskId}::uuid`;
      await this.appendAudit(tx, [audit(current)], now);
      return { outcome: 'changed', ...(current ? { previous: current } : {}) };
    });
  }

  /** Releases the Task when `person` has it; `held` when a colleague has it. */
  async release(taskId: string, person: ClinicPerson, audit: AuditRecord, now: Date): Promise<AssigneeChange> {
    return this.prisma.$transaction(async (tx) => {
      const current = await this.lockWorkspace(tx, taskId);
      if (!current) return { outcome: 'unchanged' };
      if (current.user !== person.user) return { outcome: 'held', assignee: current };
      await tx.$executeRaw`UPDATE ${this.t.workspace} SET assignee_user = NULL, assignee_name = NULL, assigned_at = NULL WHERE task_id = ${taskId}::uuid`;
      await this.appendAudit(tx, [audit], now);
      return { outcome: 'changed', previous: current };
    });
  }

  /** Records that the clinic opened `version` of the Task (never lowering what it saw); whether that changed anything. */
  async markSeen(taskId: string, version: number, audit: AuditRecord, now: Date): Promise<boolean> {
    return this.prisma.$transaction(async (tx) => {
      const changed = await tx.$queryRaw<{ task_id: string }[]>`
        INSERT INTO ${this.t.workspace} AS w (task_id, seen_version) VALUES (${taskId}::uuid, ${version})
        ON CONFLICT (task_id) DO UPDATE SET seen_version = EXCLUDED.seen_version WHERE w.seen_version < EXCLUDED.seen_version
        RETURNING w.task_id::text AS task_id`;
      if (changed.length === 0) return false;
      await this.appendAudit(tx, [audit], now);
      return true;
    });
  }

  /** The Task's workspace row, made if missing and locked for the transaction; its assignee, if any. */
  private async lockWorkspace(tx: Prisma.TransactionClient, taskId: string): Promise<TaskAssignee | undefined> {
    await tx.$executeRaw`INSERT INTO ${this.t.workspace} (task_id) VALUES (${taskId}::uuid) ON CONFLICT (task_id) DO NOTHING`;
    const [row] = await tx.$queryRaw<Pick<MarksRow, 'assignee_user' | 'assignee_name' | 'assigned_at'>[]>`
      SELECT assignee_user, assignee_name, assigned_at FROM ${this.t.workspace} WHERE task_id = ${taskId}::uuid FOR UPDATE`;
    return row ? assigneeOf(row) : undefined;
  }

  private async appendAudit(tx: Prisma.TransactionClient, records: readonly AuditRecord[], now: Date): Promise<void> {
    await tx.$queryRaw`SELECT ${this.t.appendAudit}(${appendPayload(entriesOf(records, now))}::jsonb) AS appended`;
  }
}

function personView(person: { user: string; name?: string | null }): ClinicPerson {
  return { user: person.user, ...(person.name ? { name: person.name } : {}) };
}

function assigneeOf(row: Pick<MarksRow, 'assignee_user' | 'assignee_name' | 'assigned_at'>): TaskAssignee | undefined {
  if (row.assignee_user === null || row.assigned_at === null) return undefined;
  return { ...personView({ user: row.assignee_user, name: row.assignee_name }), since: row.assigned_at.toISOString() };
}

function marksOf(row: MarksRow): TaskWorkspaceMarks {
  const assignee = assigneeOf(row);
  const seenVersion = row.seen_version ?? 0;
  return {
    taskId: row.task_id,
    version: row.sent_version,
    ...(seenVersion > 0 ? { seenVersion } : {}),
    seen: seenVersion >= row.sent_version,
    ...(assignee ? { assignee } : {}),
  };
}
