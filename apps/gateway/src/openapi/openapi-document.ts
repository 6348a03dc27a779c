import { OpenAPIRegistry, OpenApiGeneratorV31, zodToOpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { type z } from 'zod';
import * as contracts from '@bedrequest/contracts';
import { BedCount } from '../capacity/capacity.router';
import { AcceptanceWithdrawal, ClinicAnswer } from '../clinic-api/clinic-api.router';
import { SERVICE_VERSION } from '../service-index';
import { registerApiV1Paths } from './api-v1-paths';
import { registerClientCredentialsPaths, registerSystemClientScheme } from './client-credentials-paths';
import { registerFhirPaths } from './fhir-paths';
import {
  ApiError,
  AuditEvent,
  AuditEventSearchSet,
  CapabilityStatement,
  CodeSystem,
  OpenApiDocumentShape,
  OperationOutcome,
  ServiceIndex,
  StructureDefinition,
  TaskSearchSet,
  TaskSubset,
} from './public-shapes';
import { ADDRESS_LIMITED, header, HEADERS, json, NO_TOKEN, refusals, type SecuredBy, type Surface } from './responses';
import { RequestSearchSet } from './service-request-search-path';
import { registerWebhooks } from './webhooks';

export type OpenApiDocument = ReturnType<OpenApiGeneratorV31['generateDocument']>;
type PathItem = NonNullable<OpenApiDocument['paths']>[string];
type Operation = NonNullable<PathItem['get']>;

/**
 * The names of the shapes under components/schemas. A schema is named where it is declared (the
 * routers, libs/contracts), not copied: zod-to-openapi then writes every use of it, nested ones
 * included, as a `$ref` (a copy made with `.openapi()` would be a second schema, and the contracts'
 * own compositions, the Task inside the events, would still carry the first inline).
 */
const NAMED_SHAPES: readonly [z.ZodType, string][] = [
  [ApiError, 'ApiError'],
  [OperationOutcome, 'OperationOutcome'],
  [contracts.LoginRequest, 'LoginRequest'],
  [contracts.RefreshRequest, 'RefreshRequest'],
  [contracts.RevokeRequest, 'RevokeRequest'],
  [contracts.TokenResponse, 'TokenResponse'],
  [contracts.ClinicRecord, 'Clinic'],
  [contracts.ClinicList, 'ClinicList'],
  [contracts.SubscribeRequest, 'SubscribeRequest'],
  [contracts.ChangeAddressRequest, 'ChangeAddressRequest'],
  [contracts.SubscriptionView, 'Subscription'],
  [contracts.SubscriptionList, 'SubscriptionList'],
  [contracts.DeliveryLogView, 'Delivery'],
  [contracts.DeliveryLog, 'DeliveryLog'],
  [contracts.AdmissionResponseWebhook, 'AdmissionResponseEvent'],
  [contracts.AdmissionOverdueWebhook, 'AdmissionOverdueEvent'],
  [contracts.HeartbeatWebhook, 'HeartbeatEvent'],
  [contracts.IdOnlyTask, 'IdOnlyTask'],
  [contracts.WebhookEventList, 'WebhookEventList'],
  [contracts.FhirTask, 'Task'],
  [TaskSubset, 'TaskSubset'],
  [TaskSearchSet, 'TaskSearchSet'],
  [contracts.AdmissionRequestBundle, 'AdmissionRequestBundle'],
  [contracts.DocumentBundle, 'DocumentBundle'],
  [contracts.ClinicDocumentList, 'ClinicDocumentList'],
  [contracts.ClinicTaskSummary, 'ClinicTaskSummary'],
  [contracts.ClinicTaskList, 'ClinicTaskList'],
  [contracts.RequestVersionList, 'RequestVersionList'],
  [ClinicAnswer, 'ClinicAnswer'],
  [AcceptanceWithdrawal, 'AcceptanceWithdrawal'],
  [contracts.ClinicAnswerQueued, 'ClinicAnswerQueued'],
  [BedCount, 'BedCount'],
  [contracts.AutoAnswerRequest, 'AutoAnswerRequest'],
  [contracts.AutoAnswerSetting, 'AutoAnswerSetting'],
  [contracts.FreeBedsVisibilityRequest, 'FreeBedsVisibilityRequest'],
  [contracts.FreeBedsVisibility, 'FreeBedsVisibility'],
  [contracts.FreeBedsItem, 'FreeBedsItem'],
  [contracts.FreeBedsList, 'FreeBedsList'],
  [contracts.BedCountView, 'BedCountView'],
  [contracts.BedCountList, 'BedCountList'],
  [contracts.PartyView, 'Party'],
  [contracts.ReferrerContact, 'ReferrerContact'],
  [contracts.PartyMemberView, 'PartyMember'],
  [contracts.PartyMemberList, 'PartyMemberList'],
  [contracts.NewPartyMember, 'NewPartyMember'],
  [contracts.CaseNumberInput, 'CaseNumberInput'],
  [contracts.CaseNumberView, 'CaseNumber'],
  [contracts.CaseNumberSearch, 'CaseNumberSearch'],
  [contracts.CaseNumberList, 'CaseNumberList'],
  [contracts.DraftInput, 'DraftInput'],
  [contracts.DraftSummary, 'DraftSummary'],
  [contracts.DraftView, 'Draft'],
  [contracts.DraftList, 'DraftList'],
  [AuditEvent, 'AuditEvent'],
  [AuditEventSearchSet, 'AuditEventSearchSet'],
  [RequestSearchSet, 'RequestSearchSet'],
  [CapabilityStatement, 'CapabilityStatement'],
  [StructureDefinition, 'StructureDefinition'],
  [CodeSystem, 'CodeSystem'],
  [ServiceIndex, 'ServiceIndex'],
];

const DESCRIPTION = [
  'The public interface of the Bed Occupancy Request Service; docs/api.md gives the rules behind each endpoint, docs/webhooks.md the delivery of the AdmissionResponse webhook.',
  'Errors: an OperationOutcome on /api/v2/fhir, `{"error", "message"}` on every other path, with the same status for the same condition; an unexpected failure is 500 with the same body.',
  'Every path answers OPTIONS with 204 and `Allow` (no token needed), HEAD wherever it answers GET, and any other method it does not take with 405 and `Allow`; an unknown path is 404 (after the token check of a guarded prefix).',
  'Every answer carries `x-correlation-id`. The clinic inbox (the web app, docs/inbox.md) reads and writes through this API like any client and is not part of it; `GET /inbox/…` here redirects to it.',
].join('\n\n');

/**
 * The OpenAPI 3.1 document of the public interface, served at `GET /api/openapi.json`, generated
 * from the schemas the routes check and answer with (the routers' own, libs/contracts), with
 * every status each route can answer and the headers that come with it.
 */
export function openApiDocument(options: { serverUrl: string }): OpenApiDocument {
  for (const [schema, refId] of NAMED_SHAPES) zodToOpenAPIRegistry.add(schema, { _internal: { refId } });

  const registry = new OpenAPIRegistry();
  const bearer = registry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    bearerFormat: 'JWT',
    description: 'The access token of POST /api/v1/token/login or /refresh (EdDSA-signed, 3600 s)',
  });
  const systemClient = registerSystemClientScheme(registry);
  const secured: SecuredBy = (scope) => [{ [bearer.name]: [] }, { [systemClient]: [scope] }];
  for (const [name, object] of Object.entries(HEADERS)) registry.registerComponent('headers', name, object);
  const methodNotAllowed = {
    v1: registry.registerComponent('responses', 'MethodNotAllowed', methodNotAllowedAnswer('application/json', 'ApiError')).ref,
    fhir: registry.registerComponent('responses', 'FhirMethodNotAllowed', methodNotAllowedAnswer('application/fhir+json', 'OperationOutcome')).ref,
  };

  registry.registerPath({
    method: 'get',
    path: '/',
    operationId: 'readServiceIndex',
    summary: 'What answers here: the service, its version, and where to begin',
    security: NO_TOKEN,
    responses: { 200: { description: 'The service index', content: json(ServiceIndex) }, ...refusals('v1', ADDRESS_LIMITED) },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'readOpenApiDocument',
    summary: 'This document',
    security: NO_TOKEN,
    responses: { 200: { description: 'The OpenAPI 3.1 document', content: json(OpenApiDocumentShape) }, ...refusals('v1', ADDRESS_LIMITED) },
  });
  registerApiV1Paths(registry, secured);
  registerClientCredentialsPaths(registry);
  registerFhirPaths(registry, secured);
  registerWebhooks(registry);

  const document = new OpenApiGeneratorV31(registry.definitions).generateDocument({
    openapi: '3.1.0',
    info: { title: 'Bed Occupancy Request Service', version: SERVICE_VERSION, description: DESCRIPTION },
    servers: [{ url: options.serverUrl }],
  });
  return withEveryMethod(document, methodNotAllowed);
}

function methodNotAllowedAnswer(mediaType: string, body: 'ApiError' | 'OperationOutcome') {
  return {
    description: 'Only for a method the path does not take (not for the one of this operation): `Allow` lists those it takes',
    headers: { Allow: header('Allow') },
    content: { [mediaType]: { schema: { $ref: `#/components/schemas/${body}` } } },
  };
}

/**
 * Completes each path with what the gateway answers on every path alike (allowed-methods.ts): HEAD
 * where it takes GET, OPTIONS (204 with Allow, no token), 405 for any other method, and the
 * correlation id on every answer. Added to the generated document, so that no route can forget one.
 */
function withEveryMethod(document: OpenApiDocument, methodNotAllowed: Record<Surface, { $ref: string }>): OpenApiDocument {
  const paths: Record<string, PathItem> = {};
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    const surface: Surface = path.startsWith('/api/v2/fhir') ? 'fhir' : 'v1';
    const { get, put, post, delete: remove } = item;
    const pathParameters = [get, put, post, remove].find(Boolean)?.parameters?.filter((parameter) => 'in' in parameter && parameter.in === 'path');
    const completed: PathItem = {
      ...(get ? { get, head: headOf(get) } : {}),
      ...(post ? { post } : {}),
      ...(put ? { put } : {}),
      ...(remove ? { delete: remove } : {}),
      options: {
        operationId: `options${pathName(path)}`,
        summary: 'The methods this path takes (no token needed)',
        security: NO_TOKEN,
        ...(pathParameters?.length ? { parameters: pathParameters } : {}),
        responses: { 204: { description: 'No content; `Allow` lists the methods', headers: { Allow: header('Allow') } } },
      },
    };
    for (const method of ['get', 'head', 'post', 'put', 'delete'] as const) {
      const operation = completed[method];
      if (operation?.responses) operation.responses['405'] = methodNotAllowed[surface];
    }
    paths[path] = completed;
  }
  const completedDocument = { ...document, paths };
  withCorrelationIds(completedDocument);
  return completedDocument;
}

/**
 * The path in an operationId: its segments after `/api` and the version, each capitalized, a
 * parameter as `By<Name>`, FHIR's under `Fhir` (`/api/v2/fhir/Task/{id}` → `FhirTaskById`).
 */
function pathName(path: string): string {
  const segments = path.replace(/^\/api(\/v1|\/v2(?=\/fhir))?\//, '').split('/');
  if (segments[0] === '') return 'ServiceIndex';
  return segments.map((segment) => (segment.startsWith('{') ? `By${capitalized(segment.slice(1, -1))}` : words(segment))).join('');
}

/** `smart-configuration` → `SmartConfiguration`, `.well-known` → `WellKnown`. */
const words = (segment: string) =>
  segment
    .split(/[^A-Za-z0-9]+/)
    .map(capitalized)
    .join('');
const capitalized = (word: string) => word.charAt(0).toUpperCase() + word.slice(1);

/** HEAD: GET's answers without their bodies, named after GET (`readTask` → `headReadTask`). */
function headOf(get: Operation): Operation {
  const responses = Object.fromEntries(
    Object.entries(get.responses ?? {}).map(([status, answer]) => {
      const withoutBody = { ...(answer as { content?: unknown; description: string }) };
      delete withoutBody.content;
      return [status, withoutBody];
    }),
  );
  return {
    ...get,
    ...(get.operationId ? { operationId: `head${capitalized(get.operationId)}` } : {}),
    summary: `${get.summary ?? ''} (the headers of GET, without the body)`.trim(),
    responses,
  };
}

/** `x-correlation-id` on every answer of the paths and on the shared answers (components/responses). */
function withCorrelationIds(document: OpenApiDocument): void {
  const answers: { headers?: Record<string, unknown> }[] = Object.values(document.components?.responses ?? {}) as { headers?: Record<string, unknown> }[];
  for (const item of Object.values(document.paths ?? {})) {
    for (const operation of [item.get, item.head, item.post, item.put, item.delete, item.options]) {
      for (const answer of Object.values(operation?.responses ?? {})) if (!('$ref' in answer)) answers.push(answer as { headers?: Record<string, unknown> });
    }
  }
  for (const answer of answers) answer.headers = { ...answer.headers, 'x-correlation-id': header('CorrelationId') };
}
