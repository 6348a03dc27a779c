import { OpenAPIRegistry, OpenApiGeneratorV31, extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { ClinicList, ClinicRecord, FhirTask } from '@bedrequest/contracts';
import { errorCodes, type ErrorCode } from '@bedrequest/http';
import { BedCount as BedCountBody, DateQuery } from '../capacity/capacity.router';
import { ClinicAnswer, TaskId } from '../clinic-api/clinic-api.router';

// Adds `.openapi()` to zod schemas, which the registry uses to name components. zod gives a schema
// its methods when it is built, so a schema built before this line (those of libs/contracts and the
// routers) is registered through a copy made here (`.describe()`).
extendZodWithOpenApi(z);

/**
 * The OpenAPI 3.1 document of the public interface, served at `GET /api/openapi.json`. Shapes
 * follow the interface specification and decisions.md. Where a router checks a body or parameter
 * with a zod schema, or a contract declares what is sent (the Task, the clinic record), the document
 * is generated from that same schema; the FHIR bundles and OperationOutcome are described loosely
 * (their full definitions are FHIR R4's) and the rules are in the descriptions and docs/api.md.
 */
export function openApiDocument(options: { serverUrl: string }) {
  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'bearer', { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' });
  const secured = [{ [bearer.name]: [] }];

  const ApiError = registry.register(
    'ApiError',
    z.object({ error: z.enum(Object.keys(errorCodes) as [ErrorCode, ...ErrorCode[]]), message: z.string() }).describe('Error body of the /api/v1 endpoints (decisions.md, "Errors"; the codes: docs/api.md)'),
  );
  const OperationOutcome = registry.register(
    'OperationOutcome',
    z
      .object({
        resourceType: z.literal('OperationOutcome'),
        issue: z.array(
          z.object({
            severity: z.enum(['fatal', 'error', 'warning', 'information']),
            code: z.string().describe('FHIR issue type, e.g. invalid, required, forbidden, conflict'),
            diagnostics: z.string(),
            expression: z.array(z.string()).optional().describe('FHIRPath of the offending element'),
          }),
        ),
      })
      .describe('Every 4xx/5xx body on a FHIR endpoint'),
  );
  const TokenResponse = registry.register(
    'TokenResponse',
    z.object({ tokenType: z.literal('Bearer'), accessToken: z.string(), expiresIn: z.literal(3600), refreshToken: z.string() }),
  );
  const Subscription = registry.register(
    'Subscription',
    z.object({
      id: z.uuid(),
      eventType: z.literal('AdmissionResponse'),
      callbackUrl: z.url(),
      secret: z.string().describe('whsec_ + base64 of 24+ random bytes; verifies webhook signatures'),
      status: z.enum(['active', 'disabled']).optional(),
      disabledReason: z.string().nullable().optional(),
    }),
  );
  const Clinic = registry.register('Clinic', ClinicRecord.describe('A participating clinic and its departments (decisions.md, "Clinics")'));
  const FhirBundle = registry.register(
    'Bundle',
    z.object({ resourceType: z.literal('Bundle'), meta: z.object({ profile: z.array(z.string()) }) }).loose().describe(
      'An AdmissionRequestBundle (type collection) or a DocumentBundle (type document), told apart by meta.profile',
    ),
  );
  const Task = registry.register('Task', FhirTask.describe('The state of one (request, clinic) pair (decisions.md, "Tasks")'));
  const SearchSet = registry.register(
    'TaskSearchSet',
    z.object({ resourceType: z.literal('Bundle'), type: z.literal('searchset'), total: z.number().int(), link: z.array(z.object({ relation: z.string(), url: z.string() })), entry: z.array(z.object({ fullUrl: z.string(), resource: Task })) }),
  );

  const json = <T extends z.ZodType>(schema: T) => ({ 'application/json': { schema } });
  const fhir = <T extends z.ZodType>(schema: T) => ({ 'application/fhir+json': { schema } });
  const apiError = (description: string) => ({ description, content: json(ApiError) });
  const fhirError = (description: string) => ({ description, content: fhir(OperationOutcome) });

  registry.registerPath({
    method: 'post',
    path: '/api/v1/token/login',
    summary: 'Exchange username and password for a token pair',
    request: { body: { content: json(z.object({ username: z.string(), password: z.string() })) } },
    responses: { 200: { description: 'Tokens', content: json(TokenResponse) }, 401: apiError('Login failed'), 429: apiError('Too many failed logins (Retry-After)') },
  });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/token/refresh',
    summary: 'Rotate the refresh token and get a fresh pair',
    request: { body: { content: json(z.object({ refreshToken: z.string() })) } },
    responses: { 200: { description: 'Tokens', content: json(TokenResponse) }, 401: apiError('Refresh token expired, invalid or reused') },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/token/status',
    summary: 'Reachability check (no authentication)',
    responses: { 200: { description: 'Up', content: json(z.object({ status: z.literal('ok'), time: z.string() })) } },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/kliniken',
    summary: 'Participating clinics and their departments',
    security: secured,
    responses: { 200: { description: 'Clinics', content: json(ClinicList.extend({ items: z.array(Clinic) })) }, 401: apiError('No valid access token') },
  });

  const subscriptionId = z.object({ id: z.uuid() });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/subscriptions',
    summary: 'Register the webhook address for an event type (a second POST updates it)',
    security: secured,
    request: { body: { content: json(z.object({ eventType: z.literal('AdmissionResponse'), callbackUrl: z.url() })) } },
    responses: {
      201: { description: 'Created', content: json(Subscription) },
      200: { description: 'Existing subscription updated (same id)', content: json(Subscription) },
      400: apiError('Unsupported eventType or callbackUrl'),
      403: apiError('Not a referrer token'),
    },
  });
  registry.registerPath({ method: 'get', path: '/api/v1/subscriptions', summary: "The caller's subscriptions", security: secured, responses: { 200: { description: 'List', content: json(z.object({ items: z.array(Subscription) })) } } });
  registry.registerPath({ method: 'get', path: '/api/v1/subscriptions/{id}', security: secured, request: { params: subscriptionId }, responses: { 200: { description: 'Subscription', content: json(Subscription) }, 404: apiError('Unknown or foreign') } });
  registry.registerPath({
    method: 'put',
    path: '/api/v1/subscriptions/{id}',
    summary: 'Change the address (pending events go to the new one; re-enables a disabled subscription)',
    security: secured,
    request: { params: subscriptionId, body: { content: json(z.object({ callbackUrl: z.url() })) } },
    responses: { 200: { description: 'Subscription', content: json(Subscription) }, 404: apiError('Unknown or foreign') },
  });
  registry.registerPath({ method: 'delete', path: '/api/v1/subscriptions/{id}', summary: 'Remove it and discard undelivered events', security: secured, request: { params: subscriptionId }, responses: { 204: { description: 'Deleted' }, 404: apiError('Unknown or foreign') } });
  registry.registerPath({ method: 'get', path: '/api/v1/subscriptions/{id}/deliveries', summary: 'Delivery log: attempts, status codes, next attempt', security: secured, request: { params: subscriptionId }, responses: { 200: { description: 'Deliveries' }, 404: apiError('Unknown or foreign') } });
  registry.registerPath({ method: 'post', path: '/api/v1/subscriptions/{id}/deliveries/{eventId}/retry', summary: 'Deliver an event again now', security: secured, request: { params: z.object({ id: z.uuid(), eventId: z.uuid() }) }, responses: { 202: { description: 'Scheduled' }, 404: apiError('Unknown or foreign') } });
  registry.registerPath({ method: 'get', path: '/api/v1/subscriptions/{id}/events', summary: 'Events after a sequence number, for gap recovery (kept 7 days)', security: secured, request: { params: subscriptionId, query: z.object({ since: z.coerce.number().int().min(0) }) }, responses: { 200: { description: 'Events in sequence order' } } });

  registry.registerPath({
    method: 'post',
    path: '/api/v2/fhir/Bundle',
    summary: 'Send an admission request (new, supplement, selection, withdrawal, revocation) or a document',
    description:
      'Validated against the spec and decisions.md, then stored durably. 202 once intake accepted it, or once it is safely queued when intake does not answer in time. Refused transitions: 409; incomplete patient at selection: 400.',
    security: secured,
    request: { body: { content: fhir(FhirBundle) } },
    responses: {
      202: { description: 'Accepted; Location points at the Task search of the request', content: fhir(OperationOutcome) },
      400: fhirError('Invalid bundle: every issue with its FHIRPath expression'),
      401: fhirError('No valid access token'),
      403: fhirError('Requester IK or identifier prefix not the referrer’s; or not a referrer token'),
      404: fhirError('Document for an unknown request'),
      409: fhirError('Transition not allowed in the request’s state (e.g. revoked, selecting a clinic that did not accept)'),
      413: fhirError('Body over 10 MiB'),
      415: fhirError('Not application/fhir+json'),
      429: fhirError('Rate limited (Retry-After)'),
      503: fhirError('Broker unavailable: nothing stored, retry (Retry-After)'),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v2/fhir/Task',
    summary: 'Search Tasks',
    security: secured,
    request: {
      query: z.object({
        'based-on': z.string().optional().describe('ServiceRequest identifier URI (or based-on:identifier=urn:ietf:rfc:3986|<uri>)'),
        owner: z.string().optional().describe('Clinic IK'),
        'business-status': z.string().optional(),
        status: z.string().optional(),
        _lastUpdated: z.string().optional().describe('With a FHIR prefix, e.g. gt2026-11-01T00:00:00Z'),
        _count: z.coerce.number().int().optional(),
        _offset: z.coerce.number().int().optional().describe('Paging, as written into link[next]'),
      }),
    },
    responses: { 200: { description: 'searchset', content: fhir(SearchSet) }, 400: fhirError('Unknown or malformed parameter') },
  });
  registry.registerPath({ method: 'get', path: '/api/v2/fhir/Task/{id}', security: secured, request: { params: z.object({ id: z.string() }) }, responses: { 200: { description: 'Task', content: fhir(Task) }, 404: fhirError('Unknown or not visible') } });

  const taskId = z.object({ taskId: TaskId });
  registry.registerPath({ method: 'get', path: '/api/v1/clinic/tasks/{taskId}/bundle', summary: 'The latest bundle version this clinic was sent', security: secured, request: { params: taskId }, responses: { 200: { description: 'AdmissionRequestBundle', content: fhir(FhirBundle) }, 404: apiError('Not this clinic’s Task') } });
  registry.registerPath({ method: 'get', path: '/api/v1/clinic/tasks/{taskId}/documents', summary: 'DocumentBundles sent for the Task’s request', security: secured, request: { params: taskId }, responses: { 200: { description: 'Documents', content: json(z.object({ items: z.array(FhirBundle) })) }, 404: apiError('Not this clinic’s Task') } });
  registry.registerPath({
    method: 'post',
    path: '/api/v1/clinic/tasks/{taskId}/answer',
    summary: 'Answer a Task; emits one AdmissionResponse event to the referrer',
    security: secured,
    request: { params: taskId, body: { content: json(ClinicAnswer) } },
    responses: {
      200: { description: 'Updated Task', content: fhir(Task) },
      202: { description: 'Queued: intake did not answer in time; the Task shows the answer shortly', content: json(z.object({ status: z.literal('queued'), message: z.string() })) },
      400: apiError('Unknown code or note too long'),
      404: apiError('Not this clinic’s Task'),
      409: apiError('Task cancelled or request revoked'),
    },
  });

  const BedCount = registry.register(
    'BedCount',
    BedCountBody.describe('Admissions the clinic offers through the service for a department on a day (docs/parties.md, "Clinics and routing")'),
  );
  const BedCountView = registry.register(
    'BedCountView',
    // Not an extension of BedCount: that body takes no other field (additionalProperties: false).
    z
      .object({ ...BedCountBody.shape, specialty: z.string(), held: z.number().int(), reserved: z.number().int(), available: z.number().int().describe('freeBeds − held − reserved') })
      .describe('A bed count with the beds held for requests and reserved for selections'),
  );
  registry.registerPath({
    method: 'put',
    path: '/api/v1/clinic/capacity',
    summary: 'Publish the free beds of the calling clinic for a department and day (used by automatic answers)',
    security: secured,
    request: { body: { content: json(BedCount) } },
    responses: { 200: { description: 'Stored', content: json(BedCountView) }, 400: apiError('Invalid body or department not offered'), 403: apiError('Not a clinic token') },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v1/clinic/capacity',
    summary: 'The bed counts of the calling clinic',
    security: secured,
    request: { query: z.object({ from: DateQuery, to: DateQuery }) },
    responses: { 200: { description: 'Bed counts with held and reserved beds', content: json(z.object({ items: z.array(BedCountView) })) } },
  });

  return new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Bed Occupancy Request Service', version: '1.0.0', description: 'See docs/api.md for the rules behind each endpoint.' },
    servers: [{ url: options.serverUrl }],
  });
}
