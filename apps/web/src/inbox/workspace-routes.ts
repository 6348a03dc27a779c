import { Router, type Request, type Response } from 'express';
import { decodeJwt } from 'jose';
import { z } from 'zod';
import { MAX_INTERNAL_NOTE_CHARACTERS, type TaskWorkspaceMarks, type WorkspaceMarksList } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import { PartyClaims, principalOfClaims } from '@bedrequest/tokens';
import type { Html } from './html';
import type { WorkspaceChange } from './workspace-api';
import { apiCallOf, sessionOf, type InboxContext } from './inbox-context';
import { WORKSPACE_OUTCOMES, workspacePanel, type WorkspaceOutcome } from './pages/task-workspace';

const TaskId = z.guid();
const Outcome = z.enum(WORKSPACE_OUTCOMES);

/**
 * The request's workspace in the clinic (pages/task-workspace.ts): taking, releasing or taking over
 * the request, and adding an internal note, as forms that post here and redirect back to the request
 * (post/redirect/get: the browser's Back and a reload send nothing again). The outcome travels in the
 * address as a word (`?workspace=taken#workspace`), never the note, which may name the patient; a
 * note the API refused is not kept (the form's `required` and `maxlength` stop most before sending).
 * The session guard has checked the origin and the CSRF token of every post.
 */
export function workspaceRoutes(context: InboxContext): Router {
  const router = Router();
  const notFound = () => new HttpError('not_found', context.texts.errors.notFound);
  const taskIdOf = (req: Request): string => {
    const taskId = String(req.params.taskId);
    if (!TaskId.safeParse(taskId).success) throw notFound();
    return taskId;
  };
  const back = (res: Response, taskId: string, outcome: WorkspaceOutcome) => res.redirect(303, `/inbox/tasks/${taskId}?workspace=${outcome}#workspace`);
  const change = async (req: Request, res: Response, taskId: string, what: WorkspaceChange, done: WorkspaceOutcome) => {
    const result = await context.api.workspaceFor(apiCallOf(req, res)).change(taskId, what);
    if (result.status === 404) throw notFound();
    const outcome: WorkspaceOutcome =
      result.status === 200
        ? done
        : result.status === 410
          ? 'erased'
          : result.status === 409
            ? what.kind === 'note'
              ? 'too-many-notes'
              : 'held'
            : what.kind === 'note'
              ? 'note-too-long'
              : 'failed';
    back(res, taskId, outcome);
  };

  router.post('/tasks/:taskId/assignee', async (req, res) => {
    const taskId = taskIdOf(req);
    const action = stringOf((req.body as Record<string, unknown> | undefined)?.action);
    if (action === 'release') return change(req, res, taskId, { kind: 'release' }, 'released');
    if (action === 'take' || action === 'take-over') {
      return change(req, res, taskId, { kind: 'take', takeOver: action === 'take-over' }, action === 'take' ? 'taken' : 'taken-over');
    }
    back(res, taskId, 'failed');
  });

  router.post('/tasks/:taskId/internal-notes', async (req, res) => {
    const taskId = taskIdOf(req);
    const text = (stringOf((req.body as Record<string, unknown> | undefined)?.text) ?? '').trim();
    if (!text) return back(res, taskId, 'note-empty');
    if (text.length > MAX_INTERNAL_NOTE_CHARACTERS) return back(res, taskId, 'note-too-long');
    await change(req, res, taskId, { kind: 'note', text }, 'note-added');
  });

  return router;
}

/**
 * The workspace panel of a request's page, read for it: with `seenVersion`, the version the page
 * shows, which the clinic has then seen (docs/api.md, "What is new"), in the same call. Empty when
 * the API does not answer for it (the page is shown without the panel rather than not at all).
 */
export async function workspacePanelFor(context: InboxContext, req: Request, res: Response, taskId: string, seenVersion?: number): Promise<Html> {
  const read = async () => {
    const api = context.api.workspaceFor(apiCallOf(req, res));
    if (seenVersion !== undefined) {
      const seen = await api.change(taskId, { kind: 'seen', version: seenVersion });
      if (seen.status === 200) return seen.workspace;
    }
    return api.read(taskId);
  };
  const workspace = await read().catch((error: unknown) => {
    context.logger.warn({ reason: error instanceof Error ? error.message : String(error) }, 'inbox: the request workspace could not be read');
    return undefined;
  });
  const outcome = Outcome.safeParse(req.query.workspace);
  const session = sessionOf(res);
  return workspacePanel(
    {
      taskId,
      workspace,
      me: personOf(session.accessToken),
      csrfToken: context.csrf.tokenOf(session.id),
      ...(outcome.success ? { outcome: outcome.data } : {}),
    },
    context.texts,
    context.formats,
  );
}

/** A request page's model with its workspace panel, the version it shows then seen by the clinic (workspacePanelFor). */
export async function withWorkspace<M extends { task: { id: string }; latest?: { version: number } | undefined }>(
  context: InboxContext,
  req: Request,
  res: Response,
  model: M,
): Promise<M & { workspace: Html }> {
  return { ...model, workspace: await workspacePanelFor(context, req, res, model.task.id, model.latest?.version) };
}

/** The marks of a list page's Tasks by id, and the clinic's count of unseen Tasks; none when the API does not answer for them. */
export async function workspaceMarksFor(
  context: InboxContext,
  req: Request,
  res: Response,
  taskIds: readonly string[],
): Promise<{ marks: Map<string, TaskWorkspaceMarks>; unseen?: number }> {
  const list: WorkspaceMarksList | undefined = await (async () => context.api.workspaceFor(apiCallOf(req, res)).marks(taskIds))().catch(() => undefined);
  return { marks: new Map((list?.items ?? []).map((marks) => [marks.taskId, marks])), ...(list ? { unseen: list.unseen } : {}) };
}

function stringOf(value: unknown): string | undefined {
  return typeof value === 'string' ? value : undefined;
}

/** The person of the session (`act.sub`), read from the token's claims as the session reads its party (session.ts, principalOf). */
function personOf(accessToken: string): string {
  try {
    const claims = PartyClaims.safeParse(decodeJwt(accessToken));
    return claims.success ? principalOfClaims(claims.data).userId : '';
  } catch {
    return '';
  }
}
