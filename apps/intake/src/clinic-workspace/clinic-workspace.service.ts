import { z } from 'zod';
import { MAX_INTERNAL_NOTES, type ClinicPerson, type TaskWorkspace, type WorkspaceMarksList } from '@bedrequest/contracts';
import { erasedMessage } from '@bedrequest/fhir-model';
import { HttpError } from '@bedrequest/http';
import { personOf, relationOf, type Caller, type ClinicViewer } from '../access';
import type { AuditRecord, AuditTrail } from '../audit';
import type { ClinicWorkspaceRepository, WorkspaceTask } from './clinic-workspace.repository';

type ClinicCaller = Caller & { viewer: ClinicViewer };

/**
 * A clinic's people working on its Tasks together (docs/api.md, "Working on a request together"):
 * taking a request, internal notes, and what the clinic has seen. Only the clinic the Task is
 * addressed to (or was, before its cancellation) reaches it; any other is 404, as for the Task. None
 * of it changes the Task: the referrer's Task, events and webhooks never show it.
 */
export class ClinicWorkspaceService {
  constructor(
    private readonly workspace: ClinicWorkspaceRepository,
    private readonly audit: Pick<AuditTrail, 'record'>,
    private readonly options: { now?: () => Date; maxNotes?: number } = {},
  ) {}

  /** The Task's marks and internal notes; reading the notes is recorded in the audit trail first, as they may describe the patient. */
  async read(taskId: string, caller: ClinicCaller): Promise<TaskWorkspace> {
    const task = await this.taskOf(taskId, caller);
    const [marks] = await this.workspace.marks(caller.viewer, [task.id]);
    if (!marks) throw noSuchTask();
    const internalNotes = task.erasedAt ? [] : await this.workspace.notes(task.id);
    if (internalNotes.length > 0) await this.audit.record([this.record('read', caller, task)]);
    return { ...marks, internalNotes };
  }

  /** The marks of those of `taskIds` the clinic may see, in the order asked, and its count of unseen Tasks. */
  async marks(taskIds: readonly string[], caller: ClinicCaller): Promise<WorkspaceMarksList> {
    const ids = [...new Set(taskIds.filter((id) => z.guid().safeParse(id).success))];
    const [found, unseen] = await Promise.all([this.workspace.marks(caller.viewer, ids), this.workspace.unseen(caller.viewer)]);
    const byId = new Map(found.map((marks) => [marks.taskId, marks]));
    return { unseen, items: ids.flatMap((id) => byId.get(id) ?? []) };
  }

  async take(taskId: string, caller: ClinicCaller, takeOver: boolean): Promise<TaskWorkspace> {
    const task = await this.writableTask(taskId, caller);
    const change = await this.workspace.take(task.id, personFrom(caller), takeOver, () => this.record('update', caller, task, 'assignee-taken'), this.now());
    if (change.outcome === 'held') {
      throw new HttpError('conflict', 'a colleague has taken this request (see its workspace); take it over with {"takeOver": true}');
    }
    return this.read(task.id, caller);
  }

  async release(taskId: string, caller: ClinicCaller): Promise<TaskWorkspace> {
    const task = await this.taskOf(taskId, caller);
    const change = await this.workspace.release(task.id, personFrom(caller), this.record('update', caller, task, 'assignee-released'), this.now());
    if (change.outcome === 'held') throw new HttpError('conflict', 'a colleague has taken this request: take it over to release it');
    return this.read(task.id, caller);
  }

  async addNote(taskId: string, caller: ClinicCaller, text: string): Promise<TaskWorkspace> {
    const task = await this.writableTask(taskId, caller);
    const max = this.options.maxNotes ?? MAX_INTERNAL_NOTES;
    const added = await this.workspace.addNote(task.id, personFrom(caller), text, max, this.record('create', caller, task, 'internal-note'), this.now());
    if (!added) throw new HttpError('conflict', `the request holds ${max} internal notes already`);
    return this.read(task.id, caller);
  }

  /** The clinic opened `version` of the Task: 409 for a version it was not sent (yet). */
  async markSeen(taskId: string, caller: ClinicCaller, version: number): Promise<TaskWorkspace> {
    const task = await this.taskOf(taskId, caller);
    if (version > task.sentVersion) {
      throw new HttpError('conflict', `version ${version} is not a version this clinic was sent (the current one is ${task.sentVersion})`);
    }
    await this.workspace.markSeen(task.id, version, this.record('update', caller, task, 'seen'), this.now());
    return this.read(task.id, caller);
  }

  private async taskOf(taskId: string, caller: ClinicCaller): Promise<WorkspaceTask> {
    if (!z.guid().safeParse(taskId).success) throw noSuchTask();
    const task = await this.workspace.findTask(taskId);
    if (!task || relationOf(caller.viewer, task) === 'none') throw noSuchTask();
    return task;
  }

  /** A Task whose request's patient data was erased takes no notes and no assignee. */
  private async writableTask(taskId: string, caller: ClinicCaller): Promise<WorkspaceTask> {
    const task = await this.taskOf(taskId, caller);
    if (task.erasedAt) throw new HttpError('gone', erasedMessage(task.erasedAt));
    return task;
  }

  private record(interaction: AuditRecord['interaction'], caller: ClinicCaller, task: WorkspaceTask, change?: string): AuditRecord {
    return {
      interaction,
      agent: { kind: 'clinic', ...personOf(caller), ik: task.clinicIk },
      request: { identifier: task.requestIdentifier, ownerPartyId: task.referrerPartyId, ...(change ? { change } : {}) },
      resources: [{ type: 'Task', id: task.id }],
      source: 'intake',
    };
  }

  private now(): Date {
    return (this.options.now ?? (() => new Date()))();
  }
}

function noSuchTask(): HttpError {
  return new HttpError('not_found', 'no such Task');
}

function personFrom(caller: Caller): ClinicPerson {
  return { user: caller.user, ...(caller.userName === undefined ? {} : { name: caller.userName }) };
}
