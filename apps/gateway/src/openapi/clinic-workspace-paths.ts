// The clinic's shared workspace of its Tasks: who works on one, internal notes, what its people have seen.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  AssigneeInput,
  InternalNote,
  InternalNoteInput,
  MAX_INTERNAL_NOTE_CHARACTERS,
  MAX_INTERNAL_NOTES,
  SeenInput,
  TaskWorkspace,
  WorkspaceMarksList,
} from '@bedrequest/contracts';
import { TaskId } from '../clinic-api/clinic-api.router';
import { WorkspaceMarksQuery } from '../clinic-api/clinic-workspace.router';
import { guarded, header, json, merged, refusals, UNDECODABLE_PATH, type Refusals, type Secured } from './responses';

const NEVER_SENT = 'Never sent to the referrer: not in its Task, events or webhooks (docs/api.md, "Working on a request together").';

export function registerClinicWorkspacePaths(registry: OpenAPIRegistry, secured: Secured): void {
  const base = guarded('clinic');
  const task = { params: z.object({ taskId: TaskId.describe('The Task id') }) };
  const notThisClinics: Refusals = { 404: 'Not a Task of this clinic (or not a Task id)' };
  const taskStore: Refusals = { 503: 'the Task store is unavailable' };
  const body: Refusals = { 400: 'The body is empty, not JSON, or not as described (the message names the field)', 415: 'Not `application/json`' };
  const erased: Refusals = { 410: "The request's patient data was erased: no more notes or assignees" };
  const noStore = { 'Cache-Control': header('NoStore') };
  const workspace = (description: string) => ({ description, headers: noStore, content: json(TaskWorkspace) });

  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/tasks/{taskId}/workspace',
    operationId: 'readClinicTaskWorkspace',
    summary: "What the clinic's people share about the Task: who has taken it, whether one of them opened its current version, its internal notes",
    description: NEVER_SENT,
    security: secured,
    request: task,
    responses: { 200: workspace('The workspace, internal notes oldest first'), ...refusals('v1', merged(base, UNDECODABLE_PATH, notThisClinics, taskStore)) },
  });
  registry.registerPath({
    method: 'put',
    path: '/api/v1/clinic/tasks/{taskId}/assignee',
    operationId: 'assignClinicTask',
    summary: 'The caller takes the request ("in Bearbeitung"): a visible marker for colleagues, not a lock on answering',
    description: `\`{}\` takes a request nobody has (taking it again changes nothing); \`{"takeOver": true}\` takes it from the colleague who has it. ${NEVER_SENT}`,
    security: secured,
    request: { ...task, body: { required: true, content: json(AssigneeInput) } },
    responses: {
      200: workspace('The workspace with the caller as assignee'),
      ...refusals(
        'v1',
        merged(base, UNDECODABLE_PATH, body, notThisClinics, { 409: 'A colleague has taken the request: take it over with `takeOver`' }, erased, taskStore),
      ),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/api/v1/clinic/tasks/{taskId}/assignee',
    operationId: 'releaseClinicTask',
    summary: 'The caller releases the request they took (nothing to release: unchanged)',
    security: secured,
    request: task,
    responses: {
      200: workspace('The workspace without assignee'),
      ...refusals('v1', merged(base, UNDECODABLE_PATH, notThisClinics, { 409: 'A colleague has taken the request: take it over first' }, taskStore)),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/tasks/{taskId}/internal-notes',
    operationId: 'listInternalNotes',
    summary: "The clinic's internal notes on the Task, oldest first",
    description: NEVER_SENT,
    security: secured,
    request: task,
    responses: {
      200: { description: 'The notes', headers: noStore, content: json(z.object({ total: z.number().int(), items: z.array(InternalNote) })) },
      ...refusals('v1', merged(base, UNDECODABLE_PATH, notThisClinics, taskStore)),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/clinic/tasks/{taskId}/internal-notes',
    operationId: 'addInternalNote',
    summary: `Adds a note internal to the clinic (1–${MAX_INTERNAL_NOTE_CHARACTERS} characters), naming its author`,
    description: `At most ${MAX_INTERNAL_NOTES} per Task; stored sealed like the Task's notes. ${NEVER_SENT}`,
    security: secured,
    request: { ...task, body: { required: true, content: json(InternalNoteInput) } },
    responses: {
      201: workspace('The workspace with the new note'),
      ...refusals(
        'v1',
        merged(base, UNDECODABLE_PATH, body, notThisClinics, { 409: `The Task holds ${MAX_INTERNAL_NOTES} internal notes already` }, erased, taskStore),
      ),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/clinic/tasks/{taskId}/seen',
    operationId: 'markClinicTaskSeen',
    summary: 'A person of the clinic opened this version of the Task: it is no longer new to any of them (until a newer version comes)',
    security: secured,
    request: { ...task, body: { required: true, content: json(SeenInput) } },
    responses: {
      200: workspace('The workspace'),
      ...refusals('v1', merged(base, UNDECODABLE_PATH, body, notThisClinics, { 409: 'A version higher than the one the clinic was sent' }, taskStore)),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/workspace',
    operationId: 'readClinicWorkspace',
    summary: "The marks of up to 100 of the clinic's Tasks (assignee, seen), and how many of its Tasks none of its people opened yet",
    security: secured,
    request: { query: WorkspaceMarksQuery },
    responses: {
      200: { description: 'The marks of the Tasks of this clinic among those asked for', headers: noStore, content: json(WorkspaceMarksList) },
      ...refusals('v1', merged(base, { 400: 'tasks missing or malformed, or another parameter' }, taskStore)),
    },
  });
}
