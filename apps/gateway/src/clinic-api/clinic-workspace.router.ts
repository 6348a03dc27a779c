import { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { AssigneeInput, InternalNoteInput, MAX_WORKSPACE_TASKS, SeenInput } from '@bedrequest/contracts';
import { HttpError, type RawAnswer, jsonErrorHandler } from '@bedrequest/http';
import { forwardedCallOf, ForwardingIntakeClient } from '../fhir/intake.client';
import { jsonBody } from '../json-body';

/** `GET /api/v1/clinic/workspace?tasks=`: the Tasks whose marks are asked for. */
export const WorkspaceMarksQuery = z.strictObject({
  tasks: z
    .string()
    .regex(/^[0-9a-fA-F-]{36}(,[0-9a-fA-F-]{36}){0,99}$/, `tasks: at most ${MAX_WORKSPACE_TASKS} Task ids, comma-separated`)
    .describe(`At most ${MAX_WORKSPACE_TASKS} Task ids, comma-separated`),
});

/** Intake's clinic workspace (`/internal/clinic-workspace…`), with the clinic's forwarded token. */
export class ClinicWorkspaceClient extends ForwardingIntakeClient {
  constructor(intakeUrl: string, timeoutMs = 10_000) {
    super(intakeUrl, '/internal/clinic-workspace', 'the Task store is unavailable; please retry', { timeoutMs, connections: 4 });
  }
}

/**
 * What a clinic's people share about its Tasks (docs/api.md, "Working on a request together"; clinic
 * tokens only, mounted behind the clinic-role guard at `/api/v1/clinic`), never sent to the referrer:
 *
 * - `GET /tasks/{taskId}/workspace`: `{taskId, version, seenVersion?, seen, assignee?, internalNotes}`.
 * - `PUT /tasks/{taskId}/assignee` `{"takeOver"?: true}`: the caller takes the request; 409 while a
 *   colleague has it, unless `takeOver`. `DELETE`: the caller releases it (409 when a colleague has it).
 * - `GET /tasks/{taskId}/internal-notes`: `{total, items}`; `POST` `{"text"}` (1–2000 characters): 201.
 * - `POST /tasks/{taskId}/seen` `{"version"}`: the clinic opened that version.
 * - `GET /workspace?tasks=<id>,…`: `{unseen, items}`, the marks of up to 100 Tasks and the clinic's count of unseen ones.
 *
 * The bodies are checked here and again by intake, which answers; 404 for another clinic's Task,
 * 410 for a change once the request's patient data was erased. `Cache-Control: no-store`.
 */
export function clinicWorkspaceRouter(options: { workspace: ClinicWorkspaceClient; logger: Logger }): Router {
  const router = Router();
  const { workspace } = options;
  const pass = (res: Response, answer: RawAnswer, body: (json: unknown) => unknown = (json) => json) => {
    if (answer.status === 404) throw new HttpError('not_found', 'no such Task');
    res.status(answer.status).set('cache-control', 'no-store');
    if (answer.status >= 300) {
      res.type('application/json').send(answer.body);
      return;
    }
    res.json(body(JSON.parse(answer.body.toString('utf8'))));
  };
  const taskPath = (req: Request, rest = '') => {
    const taskId = String(req.params.taskId);
    if (!z.guid().safeParse(taskId).success) throw new HttpError('not_found', 'no such Task');
    return `/${encodeURIComponent(taskId)}${rest}`;
  };
  const body = jsonBody({ limit: 32 * 1024 });

  router.get('/workspace', async (req, res) => {
    const query = HttpError.parseInput(WorkspaceMarksQuery, req.query);
    pass(res, await workspace.call('GET', '', forwardedCallOf(req, res), { query: new URLSearchParams({ tasks: query.tasks }) }));
  });
  router.get('/tasks/:taskId/workspace', async (req, res) => {
    pass(res, await workspace.call('GET', taskPath(req), forwardedCallOf(req, res)));
  });
  router.put('/tasks/:taskId/assignee', ...body, async (req, res) => {
    const input = HttpError.parseInput(AssigneeInput, req.body);
    pass(res, await workspace.call('PUT', taskPath(req, '/assignee'), forwardedCallOf(req, res), { json: input }));
  });
  router.delete('/tasks/:taskId/assignee', async (req, res) => {
    pass(res, await workspace.call('DELETE', taskPath(req, '/assignee'), forwardedCallOf(req, res)));
  });
  router.get('/tasks/:taskId/internal-notes', async (req, res) => {
    pass(res, await workspace.call('GET', taskPath(req), forwardedCallOf(req, res)), (json) => {
      const notes = (json as { internalNotes: unknown[] }).internalNotes;
      return { total: notes.length, items: notes };
    });
  });
  router.post('/tasks/:taskId/internal-notes', ...body, async (req, res) => {
    const input = HttpError.parseInput(InternalNoteInput, req.body);
    pass(res, await workspace.call('POST', taskPath(req, '/internal-notes'), forwardedCallOf(req, res), { json: input }));
  });
  router.post('/tasks/:taskId/seen', ...body, async (req, res) => {
    const input = HttpError.parseInput(SeenInput, req.body);
    pass(res, await workspace.call('POST', taskPath(req, '/seen'), forwardedCallOf(req, res), { json: input }));
  });

  router.use(jsonErrorHandler(options.logger));
  return router;
}
