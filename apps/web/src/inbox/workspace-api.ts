import { ApiErrorBody, TaskWorkspace, WorkspaceMarksList } from '@bedrequest/contracts';
import type { InternalClient } from '@bedrequest/http';

/** A change of the clinic's workspace of a Task (docs/api.md, "Working on a request together"). */
export type WorkspaceChange = { kind: 'take'; takeOver: boolean } | { kind: 'release' } | { kind: 'note'; text: string } | { kind: 'seen'; version: number };
export type WorkspaceResult = { status: 200; workspace: TaskWorkspace } | { status: 400 | 404 | 409 | 410; message: string };

/** The person's token, correlation id and address, as InboxApi sends them with every call. */
export interface Credentials {
  credential: string;
  correlationId: string;
  headers: Record<string, string>;
}

const taskPath = (taskId: string) => `/api/v1/clinic/tasks/${encodeURIComponent(taskId)}`;

/**
 * The inbox's calls of the clinic workspace paths (docs/api.md, "Working on a request together"),
 * made with InboxApi's connection, the person's credentials and InboxApi's refusals (401 ends the
 * session, 429 asks to retry): `InboxApi.workspaceFor(call)`.
 */
export class WorkspaceApi {
  constructor(
    private readonly client: InternalClient,
    private readonly credentials: Credentials,
    private readonly refused: (status: 401 | 429) => Error,
  ) {}

  /** The Task's workspace; undefined for a Task the clinic may not see. */
  async read(taskId: string): Promise<TaskWorkspace | undefined> {
    const answer = await this.client.json(
      { method: 'GET', path: `${taskPath(taskId)}/workspace`, ...this.credentials },
      { 200: TaskWorkspace, 401: ApiErrorBody, 404: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 404) return undefined;
    if (answer.status === 200) return answer.body;
    throw this.refused(answer.status);
  }

  /** The marks (seen, assignee) of up to 100 of the clinic's Tasks, and its count of unseen ones. */
  async marks(taskIds: readonly string[]): Promise<WorkspaceMarksList> {
    if (taskIds.length === 0) return { unseen: 0, items: [] };
    const answer = await this.client.json(
      { method: 'GET', path: '/api/v1/clinic/workspace', query: new URLSearchParams({ tasks: taskIds.slice(0, 100).join(',') }), ...this.credentials },
      { 200: WorkspaceMarksList, 401: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200) return answer.body;
    throw this.refused(answer.status);
  }

  /** Takes (`takeOver`: from a colleague) or releases the Task, adds an internal note, or says the person opened a version. */
  async change(taskId: string, change: WorkspaceChange): Promise<WorkspaceResult> {
    const [method, path, json] =
      change.kind === 'take'
        ? (['PUT', 'assignee', change.takeOver ? { takeOver: true } : {}] as const)
        : change.kind === 'release'
          ? (['DELETE', 'assignee', undefined] as const)
          : change.kind === 'note'
            ? (['POST', 'internal-notes', { text: change.text }] as const)
            : (['POST', 'seen', { version: change.version }] as const);
    const answer = await this.client.json(
      { method, path: `${taskPath(taskId)}/${path}`, ...(json ? { json } : {}), ...this.credentials },
      {
        200: TaskWorkspace,
        201: TaskWorkspace,
        400: ApiErrorBody,
        401: ApiErrorBody,
        404: ApiErrorBody,
        409: ApiErrorBody,
        410: ApiErrorBody,
        429: ApiErrorBody,
      },
    );
    if (answer.status === 200 || answer.status === 201) return { status: 200, workspace: answer.body };
    if (answer.status === 401 || answer.status === 429) throw this.refused(answer.status);
    return { status: answer.status, message: answer.body.message };
  }
}
