import { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { erasedMessage, outcome } from '@bedrequest/fhir-model';
import { classifyError, HttpError, logServerError, outcomeOf } from '@bedrequest/http';
import { ANY_ROLE, requireToken, type TokenVerifier } from '@bedrequest/tokens';
import { callerOf, personOf } from '../access';
import type { AuditTrail } from '../audit';
import type { RequestErasureRepository } from '../erasure';
import { PageQuery } from '../search';
import { etagOf, type ClinicRead, type TaskReadService } from '../tasks';

/**
 * Intake's internal read API, called by the gateway only (not exposed publicly) with the caller's
 * access token, which intake verifies itself: who asks is the party the token names, never what a
 * header claims, and a call without a valid party token is 401. The access policy is applied here,
 * by the owner of the data (access/access-policy.ts). The caller's address, which the gateway forwards in
 * `X-Forwarded-For`, goes into the audit trail's entries (it grants nothing).
 */
export function internalRouter(tasks: TaskReadService, audit: AuditTrail, erasure: RequestErasureRepository, verifier: TokenVerifier, logger: Logger): Router {
  const router = Router();
  const fhirJson = (res: Response, status: number, body: unknown) => res.status(status).type('application/fhir+json').send(JSON.stringify(body));
  const notFoundOrErased = (read: Exclude<ClinicRead<unknown>, { outcome: 'found' }>) =>
    read.outcome === 'erased' ? new HttpError('gone', erasedMessage(read.erasedAt)) : new HttpError('not_found', 'no such Task');
  router.use(['/internal/tasks', '/internal/audit-events'], requireToken({ verifier, roles: ANY_ROLE }));
  router.use('/internal/requests', requireToken({ verifier, roles: ['referrer'] }));

  // A referrer erases the patient data of one of its requests (docs/api.md, "Erasure"): done here, in
  // one transaction, before the answer; the notifier and routing follow through the outbox. Another's
  // request is not found; a request erased before answers the same (202 both: the rest is
  // asynchronous).
  router.delete('/internal/requests', async (req, res) => {
    const identifier = req.query['identifier'];
    if (typeof identifier !== 'string' || identifier.length === 0) {
      const diagnostics = 'the parameter identifier (the ServiceRequest identifier, once) is required';
      throw new HttpError('invalid_request', diagnostics, { issues: [{ code: 'required', diagnostics }] });
    }
    const caller = callerOf(req, res);
    if (caller.viewer.role !== 'referrer') throw new HttpError('forbidden', 'only the referrer of a request may ask for its erasure');
    const result = await erasure.erase(
      { identifier, by: caller.viewer },
      {
        agent: (ik) => ({ kind: 'referrer', ...personOf(caller), ik }),
        reason: 'requested',
        correlationId: String(req.header('x-correlation-id') ?? identifier),
      },
    );
    if (result.outcome === 'not-found') throw new HttpError('not_found', 'there is no request of yours with this identifier');
    const diagnostics =
      result.outcome === 'erased'
        ? 'the patient data of the request was erased; the other services follow shortly; its tombstone (identifier, dates, states) stays'
        : 'the patient data of the request was erased before; its tombstone (identifier, dates, states) stays';
    return fhirJson(res, 202, outcome([{ severity: 'information', code: 'informational', diagnostics }]));
  });

  router.get('/internal/tasks', async (req, res) => {
    const result = await tasks.search(req.query, callerOf(req, res), { base: publicBase(req), path: '/api/v2/fhir/Task' });
    if (!result.ok) return fhirJson(res, result.status, outcome(result.issues));
    return fhirJson(res, 200, result.bundle);
  });

  router.get('/internal/tasks/:id', async (req, res) => {
    const result = await tasks.read(req.params.id, req.query, callerOf(req, res));
    if (!result.ok) return fhirJson(res, result.status, outcome(result.issues));
    if (!result.task) throw new HttpError('not_found', 'no such Task');
    // The tag a clinic's answer names in If-Match (docs/api.md, "Clinic API"); the gateway passes it on.
    if (result.tag) res.setHeader('ETag', etagOf(result.tag));
    return fhirJson(res, 200, result.task);
  });

  // A clinic's reads of its Task's request: 404 for a Task it may not see, 410 once the request's
  // patient data was erased (the Task stays readable as its tombstone).
  router.get('/internal/tasks/:id/bundle', async (req, res) => {
    const read = await tasks.bundleForClinic(req.params.id, callerOf(req, res));
    if (read.outcome !== 'found') throw notFoundOrErased(read);
    return fhirJson(res, 200, read.value);
  });

  router.get('/internal/tasks/:id/documents', async (req, res) => {
    const query = PageQuery.safeParse(req.query);
    if (!query.success) throw new HttpError('invalid_request', query.error.issues[0]?.message ?? 'invalid query');
    const read = await tasks.documentsForClinic(req.params.id, callerOf(req, res), query.data);
    if (read.outcome !== 'found') throw notFoundOrErased(read);
    return fhirJson(res, 200, read.value);
  });

  // One document by its position among those the clinic may read (from 0).
  router.get('/internal/tasks/:id/documents/:position', async (req, res) => {
    const position = /^\d{1,6}$/.test(req.params.position) ? Number(req.params.position) : undefined;
    const read = position === undefined ? ({ outcome: 'not-found' } as const) : await tasks.documentForClinic(req.params.id, callerOf(req, res), position);
    if (read.outcome === 'not-found') throw new HttpError('not_found', 'no such Task, or no document at this position');
    if (read.outcome !== 'found') throw notFoundOrErased(read);
    return fhirJson(res, 200, read.value);
  });

  // The AuditEvents the caller may see: a referrer those about its own requests, a clinic those of its own access.
  router.get('/internal/audit-events', async (req, res) => {
    const result = await audit.search(req.query, callerOf(req, res).viewer, { base: publicBase(req), path: '/api/v2/fhir/AuditEvent' });
    if (!result.ok) return fhirJson(res, result.status, outcome(result.issues));
    return fhirJson(res, 200, result.bundle);
  });

  // Classified like every service's errors (@bedrequest/http), the refusals above included: the
  // status and issue type of each code are the one table's (errorCodes). Answered as an
  // OperationOutcome because the gateway passes intake's answers to FHIR endpoints on unchanged.
  router.use((error: unknown, req: Request, res: Response, _next: (error?: unknown) => void) => {
    const failure = classifyError(error);
    logServerError(logger, req, failure);
    fhirJson(res, failure.status, outcomeOf(failure));
  });
  return router;
}

function publicBase(req: Request): string {
  return (req.header('x-public-base') ?? '').replace(/\/+$/, '');
}
