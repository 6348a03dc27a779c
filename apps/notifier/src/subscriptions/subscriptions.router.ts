import express, { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { DEFAULT_PAGE_LIMIT, MAX_PAGE_LIMIT, PageLimit, parseDeliveryLogQuery, SequenceNumber } from '@bedrequest/contracts';
import { HttpError, jsonErrorHandler, type DomainErrors } from '@bedrequest/http';
import { principalOf, requireToken, type TokenVerifier } from '@bedrequest/tokens';
import { ErasedEventError, SubscriptionRequestError, type SubscriptionService } from './subscription.service';

const noSuchSubscription = () => new HttpError('not_found', 'no such subscription');
const subscriptionErrors: DomainErrors = (error) => {
  if (error instanceof SubscriptionRequestError) return new HttpError('invalid_request', error.message);
  if (error instanceof ErasedEventError) return new HttpError('conflict', error.message);
  return undefined;
};

/**
 * The notifier's internal subscription API, called by the gateway only (mounted at
 * /internal/subscriptions; not exposed publicly) with the referrer's access token, which the
 * notifier verifies itself (401 without a valid one, 403 for a clinic's). Ownership is checked here,
 * by the owner of the data: another party's subscription is 404 like an unknown one. Errors are
 * `{"error", "message"}` (docs/decisions.md, "Errors") so the gateway can pass them on unchanged.
 */
export function subscriptionsRouter(service: SubscriptionService, verifier: TokenVerifier, logger: Logger): Router {
  const router = Router();
  router.use(requireToken({ verifier, roles: ['referrer'] }));
  router.use(express.json({ limit: '16kb' }));
  const party = (res: Response) => principalOf(res).partyId;
  const id = (req: Request) => String(req.params.id);

  router.post('/', async (req, res) => {
    const { created, subscription } = await service.subscribe(party(res), req.body);
    res.status(created ? 201 : 200).json(subscription);
  });

  router.get('/', async (req, res) => {
    res.json({ items: await service.list(party(res)) });
  });

  router.get('/:id', async (req, res) => {
    const subscription = await service.get(party(res), id(req));
    if (!subscription) throw noSuchSubscription();
    res.json(subscription);
  });

  router.put('/:id', async (req, res) => {
    const subscription = await service.changeAddress(party(res), id(req), req.body);
    if (!subscription) throw noSuchSubscription();
    res.json(subscription);
  });

  router.post('/:id/rotate-secret', async (req, res) => {
    const subscription = await service.rotateSecret(party(res), id(req));
    if (!subscription) throw noSuchSubscription();
    res.json(subscription);
  });

  router.delete('/:id', async (req, res) => {
    if (!(await service.remove(party(res), id(req)))) throw noSuchSubscription();
    res.status(204).end();
  });

  router.get('/:id/deliveries', async (req, res) => {
    const query = parseDeliveryLogQuery(req.query);
    if ('refusal' in query) throw new HttpError('invalid_request', query.refusal);
    const log = await service.deliveryLog(party(res), id(req), query.parameters);
    if (!log) throw noSuchSubscription();
    res.json(log);
  });

  router.post('/:id/deliveries/:eventId/retry', async (req, res) => {
    if (!(await service.redeliver(party(res), id(req), String(req.params.eventId)))) throw new HttpError('not_found', 'no such subscription or event');
    res.status(202).json({ status: 'scheduled', message: 'the event is sent again now' });
  });

  router.get('/:id/events', async (req, res) => {
    const since = SequenceNumber.safeParse(req.query.since ?? '0');
    if (!since.success) throw new HttpError('invalid_request', 'since must be a sequence number (0 or more)');
    const items = await service.eventsSince(party(res), id(req), since.data, limitOf(req));
    if (!items) throw noSuchSubscription();
    res.json({ items });
  });

  router.use(jsonErrorHandler(logger, { domainErrors: subscriptionErrors }));
  return router;
}

function limitOf(req: Request): number {
  if (req.query.limit === undefined) return DEFAULT_PAGE_LIMIT;
  const limit = PageLimit.safeParse(req.query.limit);
  if (!limit.success) throw new HttpError('invalid_request', `limit must be a number from 1 to ${MAX_PAGE_LIMIT}`);
  return limit.data;
}
