import express, { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { SubscriptionRequestError, type SubscriptionService } from './subscription.service';

/** Page size of the delivery log and of `events?since=`; a client pages on with the last sequence. */
const DEFAULT_LIMIT = 100;
const MAX_LIMIT = 1000;

type ApiError = { status: number; error: string; message: string };
const notFound: ApiError = { status: 404, error: 'not_found', message: 'no such subscription' };
const send = (res: Response, { status, error, message }: ApiError) => res.status(status).json({ error, message });

/**
 * The notifier's internal subscription API, called by the gateway only (mounted at
 * /internal/subscriptions; not exposed publicly). The gateway has verified the referrer's access
 * token and passes the party in `x-viewer-party`; ownership is checked here, by the owner of the
 * data: another party's subscription is 404 like an unknown one. Errors are `{"error", "message"}`
 * (decisions.md, "Errors") so the gateway can pass them on unchanged.
 */
export function subscriptionsRouter(service: SubscriptionService, logger: Logger): Router {
  const router = Router();
  router.use(express.json({ limit: '16kb' }));
  router.use((req, res, next) => {
    if (!req.header('x-viewer-party')) return send(res, { status: 400, error: 'invalid_request', message: 'x-viewer-party header missing' });
    next();
  });
  const party = (req: Request) => req.header('x-viewer-party') ?? '';
  const id = (req: Request) => String(req.params.id);

  router.post('/', async (req, res) => {
    const { created, subscription } = await service.subscribe(party(req), req.body);
    res.status(created ? 201 : 200).json(subscription);
  });

  router.get('/', async (req, res) => {
    res.json({ items: await service.list(party(req)) });
  });

  router.get('/:id', async (req, res) => {
    const subscription = await service.get(party(req), id(req));
    return subscription ? res.json(subscription) : send(res, notFound);
  });

  router.put('/:id', async (req, res) => {
    const subscription = await service.changeAddress(party(req), id(req), req.body);
    return subscription ? res.json(subscription) : send(res, notFound);
  });

  router.delete('/:id', async (req, res) => {
    return (await service.remove(party(req), id(req))) ? res.status(204).end() : send(res, notFound);
  });

  router.get('/:id/deliveries', async (req, res) => {
    const items = await service.deliveryLog(party(req), id(req), limitOf(req));
    return items ? res.json({ items }) : send(res, notFound);
  });

  router.post('/:id/deliveries/:eventId/retry', async (req, res) => {
    if (!(await service.redeliver(party(req), id(req), String(req.params.eventId)))) {
      return send(res, { status: 404, error: 'not_found', message: 'no such subscription or event' });
    }
    return res.status(202).json({ status: 'scheduled', message: 'the event is sent again now' });
  });

  router.get('/:id/events', async (req, res) => {
    const since = req.query.since ?? '0';
    if (typeof since !== 'string' || !/^\d{1,9}$/.test(since)) {
      return send(res, { status: 400, error: 'invalid_request', message: 'since must be a sequence number (0 or more)' });
    }
    const items = await service.eventsSince(party(req), id(req), Number(since), limitOf(req));
    return items ? res.json({ items }) : send(res, notFound);
  });

  const onError: ErrorRequestHandler = (error: unknown, _req, res, _next) => {
    if (error instanceof SubscriptionRequestError) return send(res, { status: 400, error: 'invalid_request', message: error.message });
    if (error instanceof InvalidLimitError) return send(res, { status: 400, error: 'invalid_request', message: error.message });
    const parseFailure = (error as { type?: string }).type;
    if (parseFailure === 'entity.parse.failed') return send(res, { status: 400, error: 'invalid_request', message: 'the body is not valid JSON' });
    if (parseFailure === 'entity.too.large') return send(res, { status: 413, error: 'payload_too_large', message: 'the body is too large' });
    logger.error({ err: error instanceof Error ? error.message : String(error) }, 'subscription API request failed');
    return send(res, { status: 500, error: 'internal', message: 'the subscription service failed to answer' });
  };
  router.use(onError);
  return router;
}

class InvalidLimitError extends Error {
  override name = 'InvalidLimitError';
}

function limitOf(req: Request): number {
  const limit = req.query.limit;
  if (limit === undefined) return DEFAULT_LIMIT;
  if (typeof limit !== 'string' || !/^\d{1,4}$/.test(limit) || Number(limit) < 1 || Number(limit) > MAX_LIMIT) {
    throw new InvalidLimitError(`limit must be a number from 1 to ${MAX_LIMIT}`);
  }
  return Number(limit);
}
