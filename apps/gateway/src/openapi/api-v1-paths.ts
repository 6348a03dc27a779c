import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import {
  AdmissionRequestBundle,
  AutoAnswerRequest,
  AutoAnswerSetting,
  BedCountList,
  BedCountView,
  ChangeAddressRequest,
  ClinicAnswerQueued,
  ClinicDocumentList,
  ClinicList,
  ClinicTaskList,
  DeliveryLog,
  DeliveryLogQuery,
  FhirTask,
  LoginRequest,
  RedeliveryScheduled,
  RefreshRequest,
  RequestVersionList,
  RevokeRequest,
  SubscribeRequest,
  SubscriptionList,
  SubscriptionView,
  TokenResponse,
  TokenServiceStatus,
  WebhookEventList,
  WebhookEventQuery,
} from '@bedrequest/contracts';
import { BedCount, DateQuery } from '../capacity/capacity.router';
import { ClinicAnswer, MAX_NOTE_CHARACTERS, TaskId } from '../clinic-api/clinic-api.router';
import { ClinicTaskListQuery } from '../clinic-api/clinic-tasks.router';
import { fhir, guarded, header, json, jsonBodyRefusals, merged, refusals, UNDECODABLE_PATH, type Refusals, type Secured } from './responses';

/** `/api/v1`: the token endpoints (auth's, proxied), the clinics, subscriptions, and the clinic API. */
export function registerApiV1Paths(registry: OpenAPIRegistry, secured: Secured): void {
  registerTokenPaths(registry);
  registry.registerPath({
    method: 'get',
    path: '/api/v1/kliniken',
    summary: 'The participating clinics and their departments (either role)',
    security: secured,
    responses: {
      200: { description: 'Every participating clinic', content: json(ClinicList) },
      ...refusals('v1', merged(guarded('any'), { 503: 'the clinic registry is unavailable' })),
    },
  });
  registerSubscriptionPaths(registry, secured);
  registerClinicPaths(registry, secured);
}

/** Served by the auth service; the gateway passes them on unchanged, with Cache-Control and Pragma. */
function registerTokenPaths(registry: OpenAPIRegistry): void {
  const tokens = { description: 'A new token pair', headers: { 'Cache-Control': header('NoStore'), Pragma: header('NoCache') }, content: json(TokenResponse) };
  const authUnavailable = { 503: 'The authentication service or its store is unavailable' };
  registry.registerPath({
    method: 'post',
    path: '/api/v1/token/login',
    summary: 'Exchange username and password for a token pair',
    request: { body: { required: true, content: json(LoginRequest) } },
    responses: {
      200: tokens,
      ...refusals(
        'v1',
        merged(jsonBodyRefusals('16 KiB'), {
          400: 'a field is missing, empty, too long or unknown (the message names it)',
          401: 'Login failed: unknown user, wrong password or disabled user (one answer for all three)',
          429: 'Too many failed logins for this username or from this address',
          ...authUnavailable,
        }),
        { challenge: false },
      ),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/token/refresh',
    summary: 'Rotate the refresh token: a fresh pair; the used refresh token is dead (reusing it revokes the family)',
    request: { body: { required: true, content: json(RefreshRequest) } },
    responses: {
      200: tokens,
      ...refusals(
        'v1',
        merged(jsonBodyRefusals('16 KiB'), {
          400: 'no refreshToken string, or an unknown field',
          401: 'Not a live refresh token: unknown, expired, already used, revoked, or any other string',
          ...authUnavailable,
        }),
        { challenge: false },
      ),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/token/revoke',
    summary: "Revoke a refresh token (RFC 7009): the token's whole family never refreshes again",
    request: { body: { required: true, content: json(RevokeRequest) } },
    responses: {
      200: { description: 'Revoked, or not live anyway: no body', headers: { 'Cache-Control': header('NoStore'), Pragma: header('NoCache') } },
      ...refusals(
        'v1',
        merged(jsonBodyRefusals('16 KiB'), {
          400: 'no refreshToken string, or an unknown field',
          503: 'The authentication service or its store is unavailable: nothing was revoked',
        }),
      ),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/token/status',
    summary: 'Reachability check, without authentication',
    responses: { 200: { description: 'The service answers', content: json(TokenServiceStatus) }, ...refusals('v1', authUnavailable) },
  });
}

/** `/api/v1/subscriptions` (referrer tokens only), answered by the notifier through the gateway. */
function registerSubscriptionPaths(registry: OpenAPIRegistry, secured: Secured): void {
  const base: Refusals = merged(guarded('referrer'), { 503: 'the subscription service is unavailable' });
  const unknown: Refusals = { 404: 'No such subscription of the caller (an unknown id and another party’s are alike)' };
  const addressRefused =
    'a callbackUrl that is not an absolute http(s) URL, carries credentials, is longer than 2048 characters or (in production) resolves to a private address';
  const subscription = { params: z.object({ id: z.uuid() }) };

  registry.registerPath({
    method: 'post',
    path: '/api/v1/subscriptions',
    summary: 'Subscribe to an event type; a second POST for the same type changes the address and keeps id and secret',
    security: secured,
    request: { body: { required: true, content: json(SubscribeRequest) } },
    responses: {
      201: { description: 'Created, with its signing secret', content: json(SubscriptionView) },
      200: { description: 'The existing subscription of this event type, its address changed (same id and secret)', content: json(SubscriptionView) },
      ...refusals('v1', merged(base, jsonBodyRefusals('16 KiB'), { 400: `an eventType other than AdmissionResponse, ${addressRefused}, or an unknown field` })),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/subscriptions',
    summary: "The caller's subscriptions",
    security: secured,
    responses: { 200: { description: 'The subscriptions', content: json(SubscriptionList) }, ...refusals('v1', base) },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/subscriptions/{id}',
    summary: 'One subscription',
    security: secured,
    request: subscription,
    responses: { 200: { description: 'The subscription', content: json(SubscriptionView) }, ...refusals('v1', merged(base, UNDECODABLE_PATH, unknown)) },
  });
  registry.registerPath({
    method: 'put',
    path: '/api/v1/subscriptions/{id}',
    summary: 'Change the address: pending events go to the new one at once; re-enables a disabled subscription',
    security: secured,
    request: { ...subscription, body: { required: true, content: json(ChangeAddressRequest) } },
    responses: {
      200: { description: 'The subscription (same id and secret)', content: json(SubscriptionView) },
      ...refusals('v1', merged(base, jsonBodyRefusals('16 KiB'), UNDECODABLE_PATH, { 400: `${addressRefused}, or an unknown field` }, unknown)),
    },
  });
  registry.registerPath({
    method: 'delete',
    path: '/api/v1/subscriptions/{id}',
    summary: 'Remove it and discard its undelivered events',
    security: secured,
    request: subscription,
    responses: { 204: { description: 'Deleted' }, ...refusals('v1', merged(base, UNDECODABLE_PATH, unknown)) },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/subscriptions/{id}/deliveries',
    summary: 'The delivery log: the newest events first, each with its attempts, status codes and next attempt',
    security: secured,
    request: { ...subscription, query: DeliveryLogQuery },
    responses: {
      200: { description: 'The delivery log', content: json(DeliveryLog) },
      ...refusals('v1', merged(base, UNDECODABLE_PATH, { 400: 'limit is not a whole number from 1 to 1000' }, unknown)),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/subscriptions/{id}/deliveries/{eventId}/retry',
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
    summary: 'Gap recovery: the events after a sequence number, oldest first, each in the webhook body’s shape (kept at least 7 days)',
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

/** The clinic API (clinic tokens only): the Task's bundle and documents, the answer, the bed counts. */
function registerClinicPaths(registry: OpenAPIRegistry, secured: Secured): void {
  const base = guarded('clinic');
  const task = { params: z.object({ taskId: TaskId.describe('The Task id') }) };
  const notThisClinics: Refusals = { 404: 'Not a Task of this clinic (or not a Task id)' };
  const erased: Refusals = {
    410: "The request's patient data was erased (data protection): the message says when; the Task remains, read and searched as its tombstone",
  };
  const taskStore: Refusals = { 503: 'the Task store is unavailable' };

  const noStore = { 'Cache-Control': header('NoStore') };
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/tasks',
    summary: "The clinic's Tasks at a glance (no master data): open ones first, then the most recently changed, with the count of each list state",
    security: secured,
    request: { query: ClinicTaskListQuery },
    responses: {
      200: { description: 'A page of summaries', headers: noStore, content: json(ClinicTaskList) },
      ...refusals('v1', merged(base, { 400: 'An unknown parameter or a malformed value (the message names it)' }, taskStore)),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/tasks/{taskId}/versions',
    summary: 'The AdmissionRequestBundle versions this clinic was sent for the Task, oldest first',
    security: secured,
    request: task,
    responses: {
      200: { description: 'The versions as received', headers: noStore, content: json(RequestVersionList) },
      ...refusals('v1', merged(base, UNDECODABLE_PATH, notThisClinics, erased, taskStore)),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/tasks/{taskId}/bundle',
    summary: 'The latest AdmissionRequestBundle version this clinic was sent, as received (only the selected clinic ever receives full master data)',
    security: secured,
    request: task,
    responses: {
      200: { description: 'The bundle', content: fhir(AdmissionRequestBundle) },
      ...refusals('v1', merged(base, UNDECODABLE_PATH, notThisClinics, erased, taskStore)),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/tasks/{taskId}/documents',
    summary: 'The DocumentBundles sent for the request of the Task, oldest first',
    security: secured,
    request: task,
    responses: {
      200: { description: 'The documents', content: json(ClinicDocumentList) },
      ...refusals('v1', merged(base, UNDECODABLE_PATH, notThisClinics, erased, taskStore)),
    },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/clinic/tasks/{taskId}/answer',
    summary: "Answer a Task; the referrer gets one AdmissionResponse event (webhook 'AdmissionResponse')",
    security: secured,
    request: { ...task, body: { required: true, content: json(ClinicAnswer) } },
    responses: {
      200: { description: 'The Task with the answer', content: fhir(FhirTask) },
      202: { description: 'Intake did not confirm in time: the answer is queued', content: json(ClinicAnswerQueued) },
      ...refusals(
        'v1',
        merged(base, UNDECODABLE_PATH, {
          400: `The body is empty or not JSON, an unknown businessStatus, a note over ${MAX_NOTE_CHARACTERS} characters (any body over 32 KiB counts as one), or an unknown field`,
          ...notThisClinics,
          409: 'The Task is cancelled, the request revoked, or its patient data erased',
          415: 'Not `application/json`, or a charset or Content-Encoding the gateway does not read',
          503: 'the answer could not be stored (broker unavailable)',
        }),
      ),
    },
  });

  const routing: Refusals = { 404: 'The clinic is not a participating clinic', 503: 'the bed counts are unavailable' };
  registry.registerPath({
    method: 'put',
    path: '/api/v1/clinic/capacity',
    summary: 'Publish the free beds of the calling clinic for one of its departments and an admission date (used by automatic answers)',
    security: secured,
    request: { body: { required: true, content: json(BedCount) } },
    responses: {
      200: { description: 'The stored count with the beds held and reserved', content: json(BedCountView) },
      ...refusals(
        'v1',
        merged(
          base,
          jsonBodyRefusals('16 KiB'),
          { 400: 'a field is missing, malformed or unknown, not a calendar date, or a department the clinic does not offer' },
          routing,
        ),
      ),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/capacity',
    summary: 'The bed counts of the calling clinic, by date',
    security: secured,
    request: { query: z.object({ from: DateQuery.describe('First admission date, YYYY-MM-DD'), to: DateQuery.describe('Last admission date, YYYY-MM-DD') }) },
    responses: {
      200: { description: 'The counts with the beds held (accepted, not yet selected) and reserved (selected)', content: json(BedCountList) },
      ...refusals('v1', merged(base, { 400: 'from or to is not a date YYYY-MM-DD' }, routing)),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/capacity/auto-answer',
    summary: 'Whether the service answers requests for the calling clinic from its bed counts',
    security: secured,
    responses: { 200: { description: 'The setting', content: json(AutoAnswerSetting) }, ...refusals('v1', merged(base, routing)) },
  });
  registry.registerPath({
    method: 'put',
    path: '/api/v1/clinic/capacity/auto-answer',
    summary: 'Switch the automatic answers from the bed counts on or off (accepted while a bed is free for the department and date, declined when none is)',
    security: secured,
    request: { body: { required: true, content: json(AutoAnswerRequest) } },
    responses: {
      200: { description: 'The new setting', content: json(AutoAnswerSetting) },
      ...refusals('v1', merged(base, jsonBodyRefusals('1 KiB'), { 400: 'not exactly {"enabled": true|false}' }, routing)),
    },
  });
}
