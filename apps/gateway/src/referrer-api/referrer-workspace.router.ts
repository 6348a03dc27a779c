import { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { CaseNumberInput, CaseNumberSearch, DraftInput, ReferrerSettings } from '@bedrequest/contracts';
import { HttpError, type RawAnswer } from '@bedrequest/http';
import { forwardedCallOf, ForwardingIntakeClient } from '../fhir/intake.client';
import { errorHandler } from '../http-errors';
import { jsonBody } from '../json-body';

/** A draft id: a UUID. Anything else is not found, as an unknown id, without asking intake. */
export const DraftId = z.uuid();

/** The bodies: a draft's content is at most 256 KiB as JSON; its body, as a client may format it, gets twice that. */
export const REFERRER_BODY_LIMIT = 512 * 1024;

/** Intake's store of the hospital's own data (`/internal/referrer-workspace…`), with the referrer's forwarded token. */
export class ReferrerWorkspaceClient extends ForwardingIntakeClient {
  constructor(intakeUrl: string, timeoutMs = 10_000) {
    super(intakeUrl, '/internal/referrer-workspace', "the hospital's data store is unavailable; please retry", { timeoutMs, connections: 4 });
  }
}

/**
 * The hospital's own data about its requests (docs/api.md, "The hospital's own data: case numbers
 * and drafts"; referrer tokens only, mounted behind the referrer-role guard at `/api/v1/referrer`),
 * kept by intake beside the requests and never sent to a clinic:
 *
 * - `PUT /case-numbers` `{identifier, caseNumber|null}`: the request's case number, set (also before
 *   intake stored the request) or removed; `POST /case-numbers/_search` `{caseNumber}` or
 *   `{identifiers}`: `{items}`. A POST, so that no case number stands in a URL or an access log.
 * - `GET|POST /drafts`, `GET|PUT|DELETE /drafts/{id}`: drafts of new requests, at most 100 per party.
 * - `GET|PUT /settings`: the party's default answer deadline (docs/api.md, "Answer deadlines").
 *
 * The bodies are checked here and again by intake, which answers; the party is the token's, and
 * another party's data is never found (404). `Cache-Control: no-store` on every answer.
 */
export function referrerWorkspaceRouter(options: { workspace: ReferrerWorkspaceClient; logger: Logger }): Router {
  const router = Router();
  const { workspace } = options;
  router.use((_req, res, next) => {
    res.set('cache-control', 'no-store');
    next();
  });
  const pass = (res: Response, answer: RawAnswer) => {
    res.status(answer.status);
    if (answer.status === 204) return void res.end();
    res.type('application/json').send(answer.body);
  };
  const draftPath = (req: Request) => {
    const id = DraftId.safeParse(req.params.id);
    if (!id.success) throw new HttpError('not_found', 'no such draft');
    return `/drafts/${id.data}`;
  };
  const body = jsonBody({ limit: REFERRER_BODY_LIMIT });

  router.put('/case-numbers', ...body, async (req, res) => {
    const input = HttpError.parseInput(CaseNumberInput, req.body);
    pass(res, await workspace.call('PUT', '/case-numbers', forwardedCallOf(req, res), { json: input }));
  });
  router.post('/case-numbers/_search', ...body, async (req, res) => {
    const search = HttpError.parseInput(CaseNumberSearch, req.body);
    pass(res, await workspace.call('POST', '/case-numbers/_search', forwardedCallOf(req, res), { json: search }));
  });
  router.get('/drafts', async (req, res) => {
    pass(res, await workspace.call('GET', '/drafts', forwardedCallOf(req, res)));
  });
  router.post('/drafts', ...body, async (req, res) => {
    const input = HttpError.parseInput(DraftInput, req.body);
    pass(res, await workspace.call('POST', '/drafts', forwardedCallOf(req, res), { json: input }));
  });
  router.get('/drafts/:id', async (req, res) => {
    pass(res, await workspace.call('GET', draftPath(req), forwardedCallOf(req, res)));
  });
  router.put('/drafts/:id', ...body, async (req, res) => {
    const path = draftPath(req);
    const input = HttpError.parseInput(DraftInput, req.body);
    pass(res, await workspace.call('PUT', path, forwardedCallOf(req, res), { json: input }));
  });
  router.delete('/drafts/:id', async (req, res) => {
    pass(res, await workspace.call('DELETE', draftPath(req), forwardedCallOf(req, res)));
  });
  router.get('/settings', async (req, res) => {
    pass(res, await workspace.call('GET', '/settings', forwardedCallOf(req, res)));
  });
  router.put('/settings', ...body, async (req, res) => {
    const input = HttpError.parseInput(ReferrerSettings, req.body);
    pass(res, await workspace.call('PUT', '/settings', forwardedCallOf(req, res), { json: input }));
  });

  router.use(errorHandler(options.logger));
  return router;
}
