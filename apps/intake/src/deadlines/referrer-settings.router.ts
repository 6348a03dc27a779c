import express, { Router } from 'express';
import type { Logger } from 'pino';
import { ReferrerSettings } from '@bedrequest/contracts';
import { HttpError, jsonErrorHandler } from '@bedrequest/http';
import { requireToken, type TokenVerifier } from '@bedrequest/tokens';
import { callerOf } from '../access';
import type { ReferrerSettingsRepository } from './referrer-settings.repository';

/**
 * Intake's internal API behind the gateway's `GET|PUT /api/v1/referrer/settings` (docs/api.md,
 * "Answer deadlines"): the caller's party's default answer deadline, with the referrer's forwarded
 * access token (referrer tokens only). Errors are `{"error", "message"}`, which the gateway passes on.
 */
export function referrerSettingsRouter(
  settings: ReferrerSettingsRepository,
  verifier: TokenVerifier,
  logger: Logger,
  now: () => Date = () => new Date(),
): Router {
  const router = Router();
  const path = '/internal/referrer-workspace/settings';
  router.use(path, requireToken({ verifier, roles: ['referrer'] }), express.json({ limit: '4kb' }));
  const partyOf = (req: express.Request, res: express.Response): string => {
    const { viewer } = callerOf(req, res);
    if (viewer.role !== 'referrer') throw new HttpError('forbidden', 'a clinic token may not use this endpoint');
    return viewer.partyId;
  };
  router.get(path, async (req, res) => {
    res.json(await settings.read(partyOf(req, res)));
  });
  router.put(path, async (req, res) => {
    const input = HttpError.parseInput(ReferrerSettings, req.body);
    res.json(await settings.write(partyOf(req, res), input, now()));
  });
  router.use(path, jsonErrorHandler(logger));
  return router;
}
