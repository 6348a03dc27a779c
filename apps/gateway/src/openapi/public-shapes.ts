import { z } from 'zod';
import { ApiErrorBody, FhirTask } from '@bedrequest/contracts';
import { MAX_ISSUES } from '@bedrequest/fhir-model';
import { errorCodes, type ErrorCode } from '@bedrequest/http';

/**
 * The shapes of the public API that no router checks with a schema of its own and no other module
 * reads, declared here once for the OpenAPI document (the bodies a route checks, and what the
 * services answer, are declared by the routers and libs/contracts, and the document uses those). FHIR resources other than the
 * Task are described by what a client relies on and left open (`looseObject`): their full
 * definitions are FHIR R4's and the profiles the service serves at /api/v2/fhir/StructureDefinition.
 */

/** `{"error", "message"}` of /api/v1 (docs/decisions.md, "Errors"), its `error` one of the codes every service answers with. */
export const ApiError = ApiErrorBody.extend({
  error: z.enum(Object.keys(errorCodes) as [ErrorCode, ...ErrorCode[]]).describe('The error code (docs/api.md, "Errors")'),
  message: z.string().describe('What was refused, naming the field or parameter; it quotes no value at length'),
}).describe('The error body of every /api/v1 endpoint');

/** Every 4xx/5xx body on a FHIR endpoint, and the 202 of a bundle (libs/fhir-model `outcome`). */
export const OperationOutcome = z
  .object({
    resourceType: z.literal('OperationOutcome'),
    issue: z
      .array(
        z.object({
          severity: z.enum(['fatal', 'error', 'warning', 'information']),
          code: z
            .string()
            .describe(
              'FHIR issue type: invalid, structure, required, value, too-long, login, forbidden, not-found, not-supported, conflict, too-costly, throttled, transient, informational…',
            ),
          diagnostics: z.string().describe('What is wrong; it quotes input only as a short excerpt'),
          expression: z.array(z.string()).length(1).optional().describe('The FHIRPath of the element or the name of the parameter'),
        }),
      )
      .min(1)
      .max(MAX_ISSUES + 1)
      .describe(`One issue per problem, at most ${MAX_ISSUES}, then one informational issue counting the rest`),
  })
  .describe('A FHIR R4 OperationOutcome: every error on /api/v2/fhir, and the information of a 202');

const Coding = z.looseObject({ system: z.string(), code: z.string(), display: z.string().optional() });
/**
 * A Task read or searched with `_elements` (FHIR search.html#elements): the mandatory elements and
 * the ones named, tagged SUBSETTED. Derived from the Task, so the two cannot drift.
 */
export const TaskSubset = FhirTask.partial()
  .required({ resourceType: true, id: true, status: true, intent: true })
  .extend({
    meta: FhirTask.shape.meta.extend({ tag: z.array(Coding).min(1).describe('SUBSETTED (http://terminology.hl7.org/CodeSystem/v3-ObservationValue)') }),
  })
  .describe('A Task with only the elements `_elements` named and the mandatory ones, tagged SUBSETTED');

const SearchLink = z.object({ relation: z.enum(['self', 'next']), url: z.url() });

/** intake's answer to `GET /api/v2/fhir/Task` (apps/intake TaskReadService.search). */
export const TaskSearchSet = z
  .object({
    resourceType: z.literal('Bundle'),
    type: z.literal('searchset'),
    total: z.number().int().min(0).optional().describe('The number of matches; absent with `_total=none`'),
    link: z.array(SearchLink).min(1).describe('`self`, and `next` while more pages follow (with every parameter of the query)'),
    entry: z
      .array(z.object({ fullUrl: z.url(), resource: z.union([FhirTask, TaskSubset]), search: z.object({ mode: z.literal('match') }) }))
      .min(1)
      .optional()
      .describe('The page of Tasks; absent when nothing matched, with `_summary=count` and with `_count=0`'),
  })
  .describe('A FHIR searchset of Tasks, ordered by lastModified, then id');

/** An entry of the audit trail (docs/api.md, "Audit trail"): who read or changed what of a request, when, from where. */
export const AuditEvent = z
  .looseObject({
    resourceType: z.literal('AuditEvent'),
    id: z.string(),
    type: Coding,
    recorded: z.iso.datetime({ offset: true }),
    agent: z.array(z.looseObject({})).min(1),
    source: z.looseObject({}),
    entity: z.array(z.looseObject({})).min(1).optional(),
  })
  .describe('A FHIR R4 AuditEvent of the audit trail: a read of patient data or a change, by whom, about which request');

/** intake's answer to `GET /api/v2/fhir/AuditEvent` (apps/intake AuditTrailService.search). */
export const AuditEventSearchSet = z
  .object({
    resourceType: z.literal('Bundle'),
    type: z.literal('searchset'),
    total: z.number().int().min(0).optional().describe('The number of matches; only with `_total=accurate`'),
    link: z.array(SearchLink).min(1).describe('`self`, and `next` while more pages follow'),
    entry: z
      .array(z.object({ fullUrl: z.url(), resource: AuditEvent, search: z.object({ mode: z.literal('match') }) }))
      .min(1)
      .optional()
      .describe('The page of AuditEvents; absent when nothing matched'),
  })
  .describe('A FHIR searchset of the AuditEvents the caller may see');

/** The conformance resources served without a token (apps/gateway metadataRouter). */
export const CapabilityStatement = z
  .looseObject({
    resourceType: z.literal('CapabilityStatement'),
    status: z.literal('active'),
    kind: z.literal('instance'),
    fhirVersion: z.literal('4.0.1'),
    format: z.array(z.string()).min(1),
    rest: z.array(z.looseObject({ mode: z.literal('server'), resource: z.array(z.looseObject({ type: z.string() })) })).length(1),
  })
  .describe(
    'What this server does: FHIR 4.0.1 in JSON, the Bundle intake and its profiles, the Task read and search with their parameters, the security section naming the token endpoints, the conformance resources',
  );
export const StructureDefinition = z
  .looseObject({
    resourceType: z.literal('StructureDefinition'),
    id: z.string(),
    url: z.url(),
    type: z.enum(['Bundle', 'Extension']),
    derivation: z.literal('constraint'),
  })
  .describe(
    'A profile of the interface (of a Bundle) or one of its extensions (answer-deadline on the ServiceRequest, answer-overdue and asked-by-rule on the Task: docs/api.md, "Answer deadlines"), at its canonical id',
  );
export const CodeSystem = z
  .looseObject({
    resourceType: z.literal('CodeSystem'),
    id: z.string(),
    url: z.url(),
    status: z.literal('active'),
    content: z.literal('complete'),
    concept: z.array(Coding.omit({ system: true })).min(1),
  })
  .describe('A code system of the interface, with every code and its display');

/** `GET /api/v2/fhir/StructureDefinition` and `/CodeSystem`: all of them. */
export const conformanceSearchSet = (resource: z.ZodType) =>
  z.object({
    resourceType: z.literal('Bundle'),
    type: z.literal('searchset'),
    total: z.number().int().min(0),
    link: z.array(SearchLink).optional().describe('`self`, absent when the request named no plain host'),
    entry: z.array(z.object({ fullUrl: z.url().optional(), resource, search: z.object({ mode: z.literal('match') }) })).min(1),
  });

/** `GET /`: apps/gateway service-index.ts. */
export const ServiceIndex = z
  .object({
    service: z.string(),
    version: z.string(),
    links: z.object({
      openapi: z.string().describe('This document'),
      fhirBase: z.string(),
      capabilityStatement: z.string(),
      tokenStatus: z.string(),
    }),
    documentation: z.string(),
  })
  .describe('What answers here and where to begin');

/** `GET /api/openapi.json`: the OpenAPI 3.1 document itself. */
export const OpenApiDocumentShape = z.looseObject({
  openapi: z.literal('3.1.0'),
  info: z.looseObject({ title: z.string(), version: z.string() }),
  paths: z.record(z.string(), z.unknown()),
});
