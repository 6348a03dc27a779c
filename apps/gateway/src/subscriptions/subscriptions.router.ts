import express, { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { HttpError, jsonErrorHandler } from '@bedrequest/http';
import { CORRELATION_HEADER } from '@bedrequest/observability';
import { principalOf } from '../auth';
import { NotifierClient, NotifierUnavailableError } from './notifier.client';

type Method = 'GET' | 'POST' | 'PUT' | 'DELETE';

/** Query parameters the notifier understands; nothing else is passed on. */
const FORWARDED_QUERY = ['since', 'limit'];

/**
 * `/api/v1/subscriptions` (spec, "Subscriptions"; decisions.md, "Subscriptions and webhooks"), for
 * referrer tokens only: mount behind requireAccessToken({ roles: ['referrer'] }). The notifier owns
 * subscriptions and applies the rules (one per event type, ownership, URL checks); this router
 * passes the verified party and the request on and the notifier's `{"error", "message"}` answers
 * back. Routes:
 *   POST /                                   201 created | 200 address updated (same id, secret)
 *   GET  /                                   {"items": [...]}
 *   GET|PUT|DELETE /{id}                     200 | 200 | 204, 404 for unknown or foreign ids
 *   GET  /{id}/deliveries                    the delivery log: events with their attempts
 *   POST /{id}/deliveries/{eventId}/retry    202, the event is sent again now
 *   GET  /{id}/events?since=<n>              {"items": [...]} the events after sequence n
 */
export function subscriptionsRouter(options: { notifierUrl: string; logger: Logger; timeoutMs?: number }): Router {
  const notifier = new NotifierClient(options.notifierUrl, options.timeoutMs);
  const router = Router();
  router.use(express.json({ limit: '16kb' }));

  const forward = (method: Method, path: (req: Request) => string) => async (req: Request, res: Response) => {
    const principal = principalOf(res);
    // requireAccessToken already refuses clinic tokens here; kept so the router is safe on its own.
    if (principal.role !== 'referrer') throw new HttpError('forbidden', 'subscriptions are for referring parties');
    let answer: { status: number; body: unknown };
    try {
      answer = await notifier.call(method, `${path(req)}${forwardedQuery(req)}`, {
        partyId: principal.partyId,
        correlationId: String(req.headers[CORRELATION_HEADER] ?? ''),
        ...(method === 'POST' || method === 'PUT' ? { body: req.body } : {}),
      });
    } catch (error) {
      if (!(error instanceof NotifierUnavailableError)) throw error;
      throw unavailable({ cause: error.cause, detail: error.message });
    }
    if (answer.status >= 500) throw unavailable({ detail: `the notifier answered HTTP ${answer.status}` });
    if (answer.status === 204) return res.status(204).end();
    return res.status(answer.status).json(answer.body);
  };
  const id = (req: Request) => `/${encodeURIComponent(String(req.params.id))}`;

  router.post('/', forward('POST', () => ''));
  router.get('/', forward('GET', () => ''));
  router.get('/:id', forward('GET', id));
  router.put('/:id', forward('PUT', id));
  router.delete('/:id', forward('DELETE', id));
  router.get('/:id/deliveries', forward('GET', (req) => `${id(req)}/deliveries`));
  router.post('/:id/deliveries/:eventId/retry', forward('POST', (req) => `${id(req)}/deliveries/${encodeURIComponent(String(req.params.eventId))}/retry`));
  router.get('/:id/events', forward('GET', (req) => `${id(req)}/events`));

  router.use(jsonErrorHandler(options.logger));
  return router;
}

function unavailable(log: { cause?: unknown; detail: string }): HttpError {
  return new HttpError('unavailable', 'subscriptions are temporarily unavailable; please retry', { retryAfterSeconds: 5, ...log });
}

function forwardedQuery(req: Request): string {
  const query = new URLSearchParams();
  for (const name of FORWARDED_QUERY) {
    const value = req.query[name];
    if (typeof value === 'string') query.set(name, value);
  }
  const text = query.toString();
  return text ? `?${text}` : '';
}
