import express, { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { CaseNumberInput, CaseNumberSearch, DraftInput } from '@bedrequest/contracts';
import { HttpError, jsonErrorHandler } from '@bedrequest/http';
import { requireToken, type TokenVerifier } from '@bedrequest/tokens';
import { callerOf } from '../access';
import type { ReferrerCaller, ReferrerWorkspaceService } from './referrer-workspace.service';

/** A draft's content is at most 256 KiB as JSON; the body around it, as any client may format it, gets twice that. */
const BODY_LIMIT = '512kb';

/**
 * Intake's internal API behind the gateway's `/api/v1/referrer/…` paths (docs/api.md, "The
 * hospital's own data: case numbers and drafts"), called with the referrer's forwarded access token
 * (verified here; referrer tokens only). Errors are `{"error", "message"}`, which the gateway passes on.
 *
 * - `PUT /internal/referrer-workspace/case-numbers` `{identifier, caseNumber|null}`; `POST …/case-numbers/_search`.
 * - `GET|POST /internal/referrer-workspace/drafts`; `GET|PUT|DELETE …/drafts/{id}`.
 */
export function referrerWorkspaceRouter(workspace: ReferrerWorkspaceService, verifier: TokenVerifier, logger: Logger): Router {
  const router = Router();
  const base = '/internal/referrer-workspace';
  router.use(base, requireToken({ verifier, roles: ['referrer'] }), express.json({ limit: BODY_LIMIT }));
  const referrer = (req: Request, res: Response): ReferrerCaller => {
    const caller = callerOf(req, res);
    // requireToken let referrer tokens alone through.
    if (caller.viewer.role !== 'referrer') throw new HttpError('forbidden', 'a clinic token may not use this endpoint');
    return { ...caller, viewer: caller.viewer };
  };
  const draftId = (req: Request) => String(req.params.id);

  router.put(`${base}/case-numbers`, async (req, res) => {
    const input = HttpError.parseInput(CaseNumberInput, req.body);
    res.json(await workspace.setCaseNumber(input, referrer(req, res)));
  });
  router.post(`${base}/case-numbers/_search`, async (req, res) => {
    const search = HttpError.parseInput(CaseNumberSearch, req.body);
    res.json(await workspace.searchCaseNumbers(search, referrer(req, res)));
  });
  router.get(`${base}/drafts`, async (req, res) => {
    res.json(await workspace.listDrafts(referrer(req, res)));
  });
  router.post(`${base}/drafts`, async (req, res) => {
    const input = HttpError.parseInput(DraftInput, req.body);
    res.status(201).json(await workspace.createDraft(input, referrer(req, res)));
  });
  router.get(`${base}/drafts/:id`, async (req, res) => {
    res.json(await workspace.readDraft(draftId(req), referrer(req, res)));
  });
  router.put(`${base}/drafts/:id`, async (req, res) => {
    const input = HttpError.parseInput(DraftInput, req.body);
    res.json(await workspace.updateDraft(draftId(req), input, referrer(req, res)));
  });
  router.delete(`${base}/drafts/:id`, async (req, res) => {
    await workspace.deleteDraft(draftId(req), referrer(req, res));
    res.status(204).end();
  });

  router.use(base, jsonErrorHandler(logger));
  return router;
}
