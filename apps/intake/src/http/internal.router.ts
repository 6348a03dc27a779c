import { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { badRequest, notFound, outcome } from '@bedrequest/fhir-model';
import { classifyError, logServerError, outcomeOf } from '@bedrequest/http';
import type { TaskReadService } from '../tasks/task-read.service';
import type { Viewer } from '../tasks/task-search';

/**
 * Intake's internal read API, called by the gateway only (not exposed publicly). The gateway has
 * verified the caller's access token and passes who is asking in `x-viewer-*` headers; the
 * visibility rules themselves are applied here, by the owner of the data.
 */
export function internalRouter(tasks: TaskReadService, logger: Logger): Router {
  const router = Router();
  const fhirJson = (res: Response, status: number, body: unknown) => res.status(status).type('application/fhir+json').send(JSON.stringify(body));

  router.get('/internal/tasks', async (req, res) => {
    const viewer = viewerOf(req);
    if (!viewer) return fhirJson(res, 400, badRequest('viewer headers missing'));
    const result = await tasks.search(req.query, viewer, { base: publicBase(req), path: '/api/v2/fhir/Task' });
    if (!result.ok) return fhirJson(res, 400, outcome(result.issues));
    return fhirJson(res, 200, result.bundle);
  });

  router.get('/internal/tasks/:id', async (req, res) => {
    const viewer = viewerOf(req);
    const task = viewer && (await tasks.read(req.params.id, viewer));
    if (!task) return fhirJson(res, 404, notFound('no such Task'));
    return fhirJson(res, 200, task);
  });

  router.get('/internal/tasks/:id/bundle', async (req, res) => {
    const viewer = viewerOf(req);
    const bundle = viewer && (await tasks.bundleForClinic(req.params.id, viewer));
    if (!bundle) return fhirJson(res, 404, notFound('no such Task'));
    return fhirJson(res, 200, bundle);
  });

  router.get('/internal/tasks/:id/documents', async (req, res) => {
    const viewer = viewerOf(req);
    const documents = viewer && (await tasks.documentsForClinic(req.params.id, viewer));
    if (!documents) return fhirJson(res, 404, notFound('no such Task'));
    return fhirJson(res, 200, { items: documents });
  });

  // Classified like every service's errors (@bedrequest/http); answered as an OperationOutcome
  // because the gateway passes intake's answers to FHIR endpoints on unchanged.
  router.use((error: unknown, req: Request, res: Response, _next: (error?: unknown) => void) => {
    const failure = classifyError(error);
    logServerError(logger, req, failure);
    fhirJson(res, failure.status, outcomeOf(failure));
  });
  return router;
}

function viewerOf(req: Request): Viewer | undefined {
  const role = req.header('x-viewer-role');
  if (role === 'referrer') {
    const partyId = req.header('x-viewer-party');
    return partyId ? { role, partyId } : undefined;
  }
  if (role === 'clinic') {
    const ikNumbers = (req.header('x-viewer-iks') ?? '').split(',').filter((ik) => /^\d{9}$/.test(ik));
    return ikNumbers.length ? { role, ikNumbers } : undefined;
  }
  return undefined;
}

function publicBase(req: Request): string {
  return (req.header('x-public-base') ?? '').replace(/\/+$/, '');
}
