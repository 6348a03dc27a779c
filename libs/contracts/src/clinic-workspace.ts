import { z } from 'zod';

/**
 * What a clinic's people share about a Task beside the Task itself (docs/api.md, "Clinic API",
 * "Working on a request together"): who has taken it, the notes internal to the clinic, and whether
 * anyone of the clinic has opened its current version. None of it is ever sent to the referrer: not
 * in its Task, events or webhooks. The gateway's `/api/v1/clinic/tasks/{taskId}/…` workspace paths,
 * answered by intake's `/internal/clinic-workspace/…`.
 */

/** An internal note's text: 1 to 2000 characters. */
export const MAX_INTERNAL_NOTE_CHARACTERS = 2000;
/** The internal notes one Task keeps: a note over them is refused (409). */
export const MAX_INTERNAL_NOTES = 200;
/** The Tasks one `GET /api/v1/clinic/workspace?tasks=` asks about. */
export const MAX_WORKSPACE_TASKS = 100;

/** A person of the clinic: their user id (the access token's `act.sub`) and their display name where the token named one. */
export const ClinicPerson = z.object({
  user: z.string().describe("The person's user id (`act.sub` of their access token)"),
  name: z.string().optional().describe('Their display name at the time'),
});
export type ClinicPerson = z.infer<typeof ClinicPerson>;

export const TaskAssignee = ClinicPerson.extend({
  since: z.iso.datetime().describe('When they took the request'),
}).describe('Who works on the request: a visible marker for colleagues, not a lock on answering');
export type TaskAssignee = z.infer<typeof TaskAssignee>;

export const InternalNote = z.object({
  id: z.uuid(),
  time: z.iso.datetime(),
  author: ClinicPerson,
  text: z.string(),
});
export type InternalNote = z.infer<typeof InternalNote>;

/** What the clinic shares about one Task, without its notes: the list's marks. */
export const TaskWorkspaceMarks = z.object({
  taskId: z.uuid(),
  /** The request version the clinic was sent last: the Task's current version. */
  version: z.number().int(),
  /** The latest version any person of the clinic opened (absent: none yet). */
  seenVersion: z.number().int().optional(),
  /** Whether a person of the clinic opened the current version. */
  seen: z.boolean(),
  assignee: TaskAssignee.optional(),
});
export type TaskWorkspaceMarks = z.infer<typeof TaskWorkspaceMarks>;

/** `GET /api/v1/clinic/tasks/{taskId}/workspace` and the answer of each change: the marks and the internal notes, oldest first. */
export const TaskWorkspace = TaskWorkspaceMarks.extend({
  internalNotes: z.array(InternalNote),
});
export type TaskWorkspace = z.infer<typeof TaskWorkspace>;

/** `GET /api/v1/clinic/workspace?tasks=`: the marks of the Tasks asked for (those of the clinic), and how many of its Tasks not cancelled it has not seen. */
export const WorkspaceMarksList = z.object({
  unseen: z.number().int().describe("The clinic's Tasks, cancelled ones aside, whose current version no person of the clinic opened yet"),
  items: z.array(TaskWorkspaceMarks),
});
export type WorkspaceMarksList = z.infer<typeof WorkspaceMarksList>;

/** `POST …/internal-notes` */
export const InternalNoteInput = z.strictObject({
  text: z
    .string()
    .trim()
    .min(1, 'text: must not be empty')
    .max(MAX_INTERNAL_NOTE_CHARACTERS, `text: must be at most ${MAX_INTERNAL_NOTE_CHARACTERS} characters`),
});
/** `PUT …/assignee`: `takeOver` takes the request from the colleague who has it (else 409 while someone else has it). */
export const AssigneeInput = z.strictObject({ takeOver: z.boolean().optional() });
/** `POST …/seen`: the version the person opened. */
export const SeenInput = z.strictObject({ version: z.number().int().min(1) });
