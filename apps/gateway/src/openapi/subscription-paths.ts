// The /api/v1/subscriptions paths: the webhook subscriptions, their delivery logs and gap recovery.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  ChangeAddressRequest,
  DeliveryLog,
  DeliveryLogQuery,
  RedeliveryScheduled,
  SubscribeRequest,
  SubscriptionList,
  SubscriptionView,
  WebhookEventList,
  WebhookEventQuery,
} from '@bedrequest/contracts';
import { guarded, json, jsonBodyRefusals, merged, refusals, UNDECODABLE_PATH, type Refusals, type Secured } from './responses';

/** `/api/v1/subscriptions` (referrer tokens only), answered by the notifier through the gateway. */
export function registerSubscriptionPaths(registry: OpenAPIRegistry, secured: Secured): void {
  const base: Refusals = merged(guarded('referrer'), { 503: 'the subscription service is unavailable' });
  const unknown: Refusals = { 404: 'No such subscription of the caller (an unknown id and another party’s are alike)' };
  const addressRefused =
    'a callbackUrl that is not an absolute http(s) URL, carries credentials, is longer than 2048 characters or (in production) is http rather than https or resolves to a private address';
  const optionsRefused =
    'a payload other than full and id-only, a heartbeatSeconds that is not a whole number from 60 (or the deployment’s minimum) to 86400 or null';
  const subscription = { params: z.object({ id: z.uuid() }) };

  registry.registerPath({
    method: 'post',
    path: '/api/v1/subscriptions',
    operationId: 'createSubscription',
    summary:
      'Subscribe to an event type (AdmissionResponse or AdmissionOverdue, each a subscription of its own), optionally with the body form (payload) and heartbeats; a second POST for the same type changes the address and the options given, and keeps id and secret',
    security: secured,
    request: { body: { required: true, content: json(SubscribeRequest) } },
    responses: {
      201: { description: 'Created, with its signing secret', content: json(SubscriptionView) },
      200: { description: 'The existing subscription of this event type, its address changed (same id and secret)', content: json(SubscriptionView) },
      ...refusals(
        'v1',
        merged(base, jsonBodyRefusals('16 KiB'), {
          400: `an eventType other than AdmissionResponse and AdmissionOverdue, ${addressRefused}, ${optionsRefused}, or an unknown field`,
        }),
      ),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/subscriptions',
    operationId: 'listSubscriptions',
    summary: "The caller's subscriptions",
    security: secured,
    responses: { 200: { description: 'The subscriptions', content: json(SubscriptionList) }, ...refusals('v1', base) },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/subscriptions/{id}',
    operationId: 'readSubscription',
    summary: 'One subscription',
    security: secured,
    request: subscription,
    responses: { 200: { description: 'The subscription', content: json(SubscriptionView) }, ...refusals('v1', merged(base, UNDECODABLE_PATH, unknown)) },
  });
  registry.registerPath({
    method: 'put',
    path: '/api/v1/subscriptions/{id}',
    operationId: 'updateSubscription',
    summary:
      'Change the address (and the options given; one left out keeps its setting): pending events go to the new one at once; re-enables a disabled subscription',
    security: secured,
    request: { ...subscription, body: { required: true, content: json(ChangeAddressRequest) } },
    responses: {
      200: { description: 'The subscription (same id and secret)', content: json(SubscriptionView) },
      ...refusals(
        'v1',
        merged(base, jsonBodyRefusals('16 KiB'), UNDECODABLE_PATH, { 400: `${addressRefused}, ${optionsRefused}, or an unknown field` }, unknown),
      ),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/subscriptions/{id}/rotate-secret',
    operationId: 'rotateSubscriptionSecret',
    summary:
      'A new signing secret, answered here: webhooks carry a signature with it and one with the previous secret until previousSecretExpiresAt (the overlap, 24 h unless the deployment sets another), then the previous secret is deleted',
    security: secured,
    request: subscription,
    responses: {
      200: { description: 'The subscription with its new secret and previousSecretExpiresAt', content: json(SubscriptionView) },
      ...refusals('v1', merged(base, UNDECODABLE_PATH, unknown)),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/api/v1/subscriptions/{id}',
    operationId: 'deleteSubscription',
    summary: 'Remove it and discard its undelivered events',
    security: secured,
    request: subscription,
    responses: { 204: { description: 'Deleted' }, ...refusals('v1', merged(base, UNDECODABLE_PATH, unknown)) },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/subscriptions/{id}/deliveries',
    operationId: 'listDeliveries',
    summary:
      'The delivery log: the newest events first, each with its attempts (time, status code or error, duration), next attempt, and why it was withheld; paged by an opaque cursor (`next`), filtered by status and time. No body or Task',
    security: secured,
    request: { ...subscription, query: DeliveryLogQuery },
    responses: {
      200: { description: 'A page of the delivery log; `next` while more follow', content: json(DeliveryLog) },
      ...refusals(
        'v1',
        merged(
          base,
          UNDECODABLE_PATH,
          {
            400: 'limit is not a whole number from 1 to 1000, cursor not one the log’s next wrote, status not pending, delivered, failed or withheld (comma-separated), or since not an ISO 8601 time with Z or an offset; the message names the parameter',
          },
          unknown,
        ),
      ),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/subscriptions/{id}/deliveries/{eventId}/retry',
    operationId: 'retryDelivery',
    summary: 'Deliver an event again now, also a delivered or given-up one, with a fresh schedule',
    security: secured,
    request: { params: z.object({ id: z.uuid(), eventId: z.uuid().describe('The event id (the webhook-id)') }) },
    responses: {
      202: { description: 'Scheduled now', content: json(RedeliveryScheduled) },
      ...refusals(
        'v1',
        merged(base, UNDECODABLE_PATH, {
          404: 'No such subscription of the caller, or no such event of it',
          409: "The event's request had its patient data erased (data protection): its events are not sent any more; the message says when",
        }),
      ),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/subscriptions/{id}/events',
    operationId: 'listSubscriptionEvents',
    summary:
      'Gap recovery: the subscription’s events after a sequence number, oldest first, each in the webhook body’s shape of its event type and in the subscription’s payload form (kept at least 7 days); heartbeats are not events and are not listed',
    security: secured,
    request: { ...subscription, query: WebhookEventQuery },
    responses: {
      200: { description: 'The events; ask again with the last sequence for more', content: json(WebhookEventList) },
      ...refusals(
        'v1',
        merged(base, UNDECODABLE_PATH, { 400: 'since is not a sequence number (0 or more), or limit not a whole number from 1 to 1000' }, unknown),
      ),
    },
  });
}
