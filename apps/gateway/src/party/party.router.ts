import { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { NewPartyMember, NotificationSettingsInput, type ApiErrorBody } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import { CORRELATION_HEADER } from '@bedrequest/observability';
import { accessTokenOf } from '@bedrequest/tokens';
import { errorHandler } from '../http-errors';
import { jsonBody } from '../json-body';
import type { PartyCall, PartyClient } from './party.client';

/** Auth's refusals, each answered with auth's message under the code of its status. */
const REFUSALS = { 400: 'invalid_request', 403: 'forbidden', 404: 'not_found', 409: 'conflict' } as const;

/**
 * `/api/v1/party` (docs/api.md, "Party and people"), for a token of either role: mount behind the
 * token guard. Auth owns the parties and their people and applies every rule (who is an
 * administrator, read at each call; the checks of `user create --party`); this router checks the
 * body's shape, passes the person's token on and auth's answers back.
 *
 * - `GET /`: 200 the caller's party.
 * - `GET /users`: 200 `{items}`, the party's people; 403 for a person who is not its administrator.
 * - `POST /users` `{username, password, displayName?, email?, administrator?}`: 201 the person; 400; 409 a taken username.
 * - `POST /users/{id}/disable`: 200 the person; 404 for an id not of the caller's party; 409 for the caller themself.
 * - `GET /users/me/notifications`: 200 `{email, address?}`, whether the caller gets e-mail (any person).
 * - `PUT /users/me/notifications` `{email}`: 200 as GET; 409 turning it on without an address.
 *
 * 401 also when auth finds the token's person or party disabled; 503 with Retry-After when auth
 * cannot be reached or answers outside its contract.
 */
export function partyRouter(options: { party: PartyClient; logger: Logger }): Router {
  const { party } = options;
  const router = Router();
  const callOf = (req: Request, res: Response): PartyCall => ({ token: accessTokenOf(res), correlationId: String(req.headers[CORRELATION_HEADER]) });

  router.get('/', async (req, res) => answer(res, await party.party(callOf(req, res))));
  router.get('/users', async (req, res) => answer(res, await party.members(callOf(req, res))));
  router.post('/users', ...jsonBody({ limit: 16 * 1024 }), async (req, res) => {
    const member = HttpError.parseInput(NewPartyMember, req.body);
    return answer(res, await party.add(member, callOf(req, res)));
  });
  router.get('/users/me/notifications', async (req, res) => answer(res, await party.notifications(callOf(req, res))));
  router.put('/users/me/notifications', ...jsonBody({ limit: 1024 }), async (req, res) => {
    const { email } = HttpError.parseInput(NotificationSettingsInput, req.body);
    return answer(res, await party.notifications(callOf(req, res), email));
  });
  router.post('/users/:id/disable', async (req, res) => answer(res, await party.disable(String(req.params.id), callOf(req, res))));

  router.use(errorHandler(options.logger));
  return router;
}

/** What auth answered: a success to pass on, or a refusal with its message. */
type AuthAnswer = { status: 200; body: unknown } | { status: 201; body: unknown } | { status: 400 | 401 | 403 | 404 | 409; body: ApiErrorBody };

function answer(res: Response, answered: AuthAnswer) {
  if (answered.status === 200 || answered.status === 201) return res.status(answered.status).json(answered.body);
  const { message } = answered.body;
  if (answered.status === 401) {
    // The token verified here, but auth found its person or party disabled: a revoked token (RFC 6750 3.1).
    res.setHeader('WWW-Authenticate', `Bearer realm="bedrequest", error="invalid_token", error_description="${message.replace(/["\\]/g, '')}"`);
    throw new HttpError('unauthorized', message);
  }
  throw new HttpError(REFUSALS[answered.status], message);
}
