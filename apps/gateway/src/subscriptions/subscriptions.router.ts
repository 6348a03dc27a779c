import { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import {
  ApiErrorBody,
  DeliveryLog,
  parseDeliveryLogQuery,
  RedeliveryScheduled,
  SubscriptionList,
  SubscriptionView,
  WebhookEventList,
} from '@bedrequest/contracts';
import { HttpError, type Answers } from '@bedrequest/http';
import { CORRELATION_HEADER } from '@bedrequest/observability';
import { accessTokenOf, principalOf } from '@bedrequest/tokens';
import { errorHandler } from '../http-errors';
import { jsonBody } from '../json-body';
import type { NotifierClient } from './notifier.client';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Query parameters the notifier understands; nothing else is passed on. */
const FORWARDED_QUERY = ['since', 'limit', 'cursor', 'status'];

/**
 * `/api/v1/subscriptions` (spec, "Subscriptions"; docs/decisions.md, "Subscriptions and webhooks"), for
 * referrer tokens only: mount behind requireToken({ roles: ['referrer'] }). The notifier owns
 * subscriptions and applies the rules (one per event type, ownership, URL checks); this router
 * passes the referrer's token and the request on and the notifier's answers back, each checked
 * against the route's contract (anything else, or no answer, is 503 with Retry-After). Routes:
 *   POST /                                   201 created | 200 address updated (same id, secret)
 *   GET  /                                   {"items": [...]}
 *   GET|PUT|DELETE /{id}                     200 | 200 | 204, 404 for unknown or foreign ids
 *   POST /{id}/rotate-secret                 200 with the new secret; the old one signs beside it for the overlap
 *   GET  /{id}/deliveries?limit&cursor&status&since  a page of the delivery log: events with their attempts, next
 *   POST /{id}/deliveries/{eventId}/retry    202, the event is sent again now; 409 if its request was erased
 *   GET  /{id}/events?since=<n>              {"items": [...]} the events after sequence n
 */
export function subscriptionsRouter(options: { notifier: NotifierClient; logger: Logger }): Router {
  const { notifier } = options;
  const router = Router();
  const body = jsonBody({ limit: 16 * 1024 });

  const forward = (method: Method, path: (req: Request) => string, answers: Answers) => async (req: Request, res: Response) => {
    // requireToken already refuses clinic tokens here; kept so the router is safe on its own.
    if (principalOf(res).role !== 'referrer') throw new HttpError('forbidden', 'subscriptions are for referring parties');
    const answer = await notifier.call(
      method,
      path(req),
      {
        token: accessTokenOf(res),
        correlationId: String(req.headers[CORRELATION_HEADER] ?? ''),
        query: forwardedQuery(req),
        ...(method === 'POST' || method === 'PUT' ? { body: req.body } : {}),
      },
      answers,
    );
    if (answer.status === 204) return res.status(204).end();
    return res.status(answer.status).json(answer.body);
  };
  const id = (req: Request) => `/${encodeURIComponent(String(req.params.id))}`;

  const refused = { 400: ApiErrorBody, 404: ApiErrorBody };
  router.post(
    '/',
    ...body,
    forward('POST', () => '', { 200: SubscriptionView, 201: SubscriptionView, 400: ApiErrorBody }),
  );
  router.get(
    '/',
    forward('GET', () => '', { 200: SubscriptionList }),
  );
  router.get('/:id', forward('GET', id, { 200: SubscriptionView, ...refused }));
  router.put('/:id', ...body, forward('PUT', id, { 200: SubscriptionView, ...refused }));
  router.post(
    '/:id/rotate-secret',
    forward('POST', (req) => `${id(req)}/rotate-secret`, { 200: SubscriptionView, ...refused }),
  );
  router.delete('/:id', forward('DELETE', id, { 204: z.undefined(), ...refused }));
  router.get(
    '/:id/deliveries',
    // Refused here already, with the notifier's message: a bad query costs the notifier nothing.
    (req, _res, next) => {
      const query = parseDeliveryLogQuery(req.query);
      next('refusal' in query ? new HttpError('invalid_request', query.refusal) : undefined);
    },
    forward('GET', (req) => `${id(req)}/deliveries`, { 200: DeliveryLog, ...refused }),
  );
  router.post(
    '/:id/deliveries/:eventId/retry',
    forward('POST', (req) => `${id(req)}/deliveries/${encodeURIComponent(String(req.params.eventId))}/retry`, {
      202: RedeliveryScheduled,
      ...refused,
      409: ApiErrorBody,
    }),
  );
  router.get(
    '/:id/events',
    forward('GET', (req) => `${id(req)}/events`, { 200: WebhookEventList, ...refused }),
  );

  router.use(errorHandler(options.logger));
  return router;
}

function forwardedQuery(req: Request): URLSearchParams {
  const query = new URLSearchParams();
  for (const name of FORWARDED_QUERY) {
    const value = req.query[name];
    if (typeof value === 'string') query.set(name, value);
  }
  return query;
}
