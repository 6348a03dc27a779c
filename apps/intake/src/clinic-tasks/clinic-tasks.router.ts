import { Router } from 'express';
import type { Logger } from 'pino';
import { erasedMessage } from '@bedrequest/fhir-model';
import { HttpError, jsonErrorHandler } from '@bedrequest/http';
import { requireToken, type TokenVerifier } from '@bedrequest/tokens';
import { callerOf } from '../access';
import { VersionPageQuery } from '../search';
import { ClinicTaskListQuery } from './clinic-task-list-query';
import type { ClinicTaskReadsService } from './clinic-task-reads.service';

/**
 * Intake's internal API behind the gateway's `GET /api/v1/clinic/tasks` and
 * `GET /api/v1/clinic/tasks/{id}/versions`, called with the clinic's forwarded access token (verified
 * here: a clinic reads the Tasks addressed to its own IK, nothing else). Errors are
 * `{"error", "message"}`, which the gateway passes on.
 *
 * - `GET /internal/clinic-tasks?state=&since=&_count=&_offset=&_cursor=`: 200 `{total, counts, items,
 *   next?}` (clinic-task-list-query.ts); 400.
 * - `GET /internal/clinic-tasks/{id}/versions?_count=&_offset=&_sort=`: 200 `{total, items: [{version,
 *   receivedAt, bundle}], next?}`, a page of the versions the clinic was sent (search/pages.ts); 400 for
 *   another parameter; 404 for a Task the clinic may not see; 410 once its request's patient data
 *   was erased.
 */
export function clinicTasksRouter(reads: ClinicTaskReadsService, verifier: TokenVerifier, logger: Logger): Router {
  const router = Router();
  router.use('/internal/clinic-tasks', requireToken({ verifier, roles: ['clinic'] }));

  router.get('/internal/clinic-tasks', async (req, res) => {
    const query = ClinicTaskListQuery.safeParse(req.query);
    if (!query.success) throw new HttpError('invalid_request', query.error.issues[0]?.message ?? 'invalid query');
    const caller = callerOf(req, res);
    // requireToken let clinic tokens alone through.
    if (caller.viewer.role !== 'clinic') throw new HttpError('forbidden', 'a referrer token may not use this endpoint');
    res.json(await reads.list({ ...caller, viewer: caller.viewer }, query.data));
  });

  router.get('/internal/clinic-tasks/:id/versions', async (req, res) => {
    const query = VersionPageQuery.safeParse(req.query);
    if (!query.success) throw new HttpError('invalid_request', query.error.issues[0]?.message ?? 'invalid query');
    const versions = await reads.versions(req.params.id, callerOf(req, res), query.data);
    if (versions.outcome === 'not-found') throw new HttpError('not_found', 'no such Task');
    if (versions.outcome === 'erased') throw new HttpError('gone', erasedMessage(versions.erasedAt));
    res.json(versions.value);
  });

  router.use('/internal/clinic-tasks', jsonErrorHandler(logger));
  return router;
}
