import express, { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { AssigneeInput, InternalNoteInput, MAX_WORKSPACE_TASKS, SeenInput } from '@bedrequest/contracts';
import { UNSTORABLE_TEXT } from '@bedrequest/fhir-model';
import { HttpError, jsonErrorHandler } from '@bedrequest/http';
import { requireToken, type TokenVerifier } from '@bedrequest/tokens';
import { callerOf, type Caller, type ClinicViewer } from '../access';
import type { ClinicWorkspaceService } from './clinic-workspace.service';

const TaskList = z.string().regex(/^[0-9a-fA-F-]{36}(,[0-9a-fA-F-]{36}){0,99}$/, `tasks: at most ${MAX_WORKSPACE_TASKS} Task ids, comma-separated`);
const NoteText = InternalNoteInput.refine((input) => !UNSTORABLE_TEXT.test(input.text), {
  message: 'must not contain U+0000 or unpaired surrogates',
  path: ['text'],
});

/**
 * Intake's internal API behind the gateway's clinic workspace paths (docs/api.md, "Working on a
 * request together"), called with the clinic's forwarded access token (verified here; clinic tokens
 * only). Each answers the Task's workspace (`TaskWorkspace`), or `{unseen, items}` for the marks of
 * several Tasks; errors are `{"error", "message"}`, which the gateway passes on.
 *
 * - `GET /internal/clinic-workspace?tasks=<id>,<id>`: the marks of those Tasks, and the clinic's count of unseen ones.
 * - `GET /internal/clinic-workspace/{taskId}`: marks and internal notes.
 * - `PUT|DELETE /internal/clinic-workspace/{taskId}/assignee`: take (`{"takeOver": true}` from a colleague) or release.
 * - `POST /internal/clinic-workspace/{taskId}/internal-notes` `{"text"}`; `POST …/seen` `{"version"}`.
 */
export function clinicWorkspaceRouter(workspace: ClinicWorkspaceService, verifier: TokenVerifier, logger: Logger): Router {
  const router = Router();
  router.use('/internal/clinic-workspace', requireToken({ verifier, roles: ['clinic'] }), express.json({ limit: '32kb' }));
  const clinicCaller = (req: Request, res: Response): Caller & { viewer: ClinicViewer } => {
    const caller = callerOf(req, res);
    // requireToken let clinic tokens alone through.
    if (caller.viewer.role !== 'clinic') throw new HttpError('forbidden', 'a referrer token may not use this endpoint');
    return { ...caller, viewer: caller.viewer };
  };
  const taskId = (req: Request) => String(req.params.taskId);

  router.get('/internal/clinic-workspace', async (req, res) => {
    const tasks = z.strictObject({ tasks: TaskList }).safeParse(req.query);
    if (!tasks.success) throw new HttpError('invalid_request', tasks.error.issues[0]?.message ?? 'invalid query');
    res.json(await workspace.marks(tasks.data.tasks.split(','), clinicCaller(req, res)));
  });
  router.get('/internal/clinic-workspace/:taskId', async (req, res) => {
    res.json(await workspace.read(taskId(req), clinicCaller(req, res)));
  });
  router.put('/internal/clinic-workspace/:taskId/assignee', async (req, res) => {
    const input = HttpError.parseInput(AssigneeInput, req.body ?? {});
    res.json(await workspace.take(taskId(req), clinicCaller(req, res), input.takeOver === true));
  });
  router.delete('/internal/clinic-workspace/:taskId/assignee', async (req, res) => {
    res.json(await workspace.release(taskId(req), clinicCaller(req, res)));
  });
  router.post('/internal/clinic-workspace/:taskId/internal-notes', async (req, res) => {
    const input = HttpError.parseInput(NoteText, req.body);
    res.status(201).json(await workspace.addNote(taskId(req), clinicCaller(req, res), input.text));
  });
  router.post('/internal/clinic-workspace/:taskId/seen', async (req, res) => {
    const input = HttpError.parseInput(SeenInput, req.body);
    res.json(await workspace.markSeen(taskId(req), clinicCaller(req, res), input.version));
  });

  router.use('/internal/clinic-workspace', jsonErrorHandler(logger));
  return router;
}
