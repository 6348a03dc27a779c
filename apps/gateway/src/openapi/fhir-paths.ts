import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { AdmissionRequestBundle, DocumentBundle, FhirTask } from '@bedrequest/contracts';
import {
  AUDIT_EVENT_RESULT_PARAMETERS,
  AUDIT_EVENT_SEARCH_PARAMETERS,
  CONFORMANCE_RESOURCE_TYPES,
  conformanceResources,
  ITEM_BOUNDS,
  REQUEST_BOUNDS,
  TASK_RESULT_PARAMETERS,
  TASK_SEARCH_PARAMETERS,
} from '@bedrequest/fhir-model';
import { FHIR_CONTENT_TYPES, MAX_BUNDLE_BYTES } from '../fhir/fhir-body';
import { SERVICE_VERSION } from '../service-index';
import {
  AuditEventSearchSet,
  CapabilityStatement,
  CodeSystem,
  conformanceSearchSet,
  OperationOutcome,
  StructureDefinition,
  TaskSearchSet,
  TaskSubset,
} from './public-shapes';
import { registerServiceRequestSearchPath } from './service-request-search-path';
import { ADDRESS_LIMITED, fhir, guarded, header, merged, NO_TOKEN, refusals, UNDECODABLE_PATH, type Refusals, type Secured, type SecuredBy } from './responses';

/** `_format` (FHIR R4 http.html#mime-type): JSON is all that is served; anything else is 406. */
const Format = z.string().optional().describe('`json`, `application/json` or `application/fhir+json` (the only format served); any other is 406');
const notAcceptable: Refusals = { 406: '`_format` asks for a format other than JSON' };

/** `/api/v2/fhir`: the Bundle intake, the Task read and search, and the conformance resources. */
export function registerFhirPaths(registry: OpenAPIRegistry, secured: SecuredBy): void {
  registerBundlePath(registry, secured('system/Bundle.c'));
  registerTaskPaths(registry, secured('system/Task.rs'));
  registerAuditEventPath(registry, secured('system/AuditEvent.rs'));
  registerErasurePath(registry, secured('system/ServiceRequest.d'));
  registerServiceRequestSearchPath(registry, secured('system/ServiceRequest.rs'));
  registerConformancePaths(registry);
}

function registerBundlePath(registry: OpenAPIRegistry, secured: Secured): void {
  const bundle = z.union([AdmissionRequestBundle, DocumentBundle]);
  registry.registerPath({
    method: 'post',
    path: '/api/v2/fhir/Bundle',
    operationId: 'createBundle',
    summary: 'Send an admission request (new, supplement, selection, withdrawal, revocation) or a document',
    description: [
      'meta.profile tells the two profiles apart. The gateway validates the bundle, checks the referrer’s rights and the performers, publishes it durably and answers with intake’s verdict;',
      'only when intake does not answer in time is the answer 202 for a bundle that is safely queued. Resending the same bundle is safe (an identical bundle changes nothing).',
    ].join(' '),
    security: secured,
    request: { body: { required: true, content: Object.fromEntries(FHIR_CONTENT_TYPES.map((type) => [type, { schema: bundle }])) } },
    responses: {
      202: {
        description: 'Accepted (or safely queued): an informational OperationOutcome; Location and Content-Location name the Task search of the request',
        headers: { Location: header('TaskSearchLocation'), 'Content-Location': header('TaskSearchLocation') },
        content: fhir(OperationOutcome),
      },
      ...refusals(
        'fhir',
        merged(guarded('referrer'), {
          400: [
            'The body is empty or not JSON, nested deeper than 64 levels or with an array or object of more than 1,000 members (checked before it is parsed), or the bundle is invalid (an issue per problem with its FHIRPath: unknown elements, missing ones, values, a performer that is not a participating clinic, an incomplete patient at selection).',
            `A repeating element over its limit is one issue with code too-long at the element: at most ${ITEM_BOUNDS.admissionEntries} entries in an AdmissionRequestBundle and ${ITEM_BOUNDS.documentEntries} in a DocumentBundle,`,
            `${ITEM_BOUNDS.performers} performers, ${ITEM_BOUNDS.codings} codings per concept, ${ITEM_BOUNDS.notes} notes per resource, ${ITEM_BOUNDS.attachments} attachments per DocumentReference, ${ITEM_BOUNDS.other} items in any other repeating element.`,
          ].join(' '),
          403: 'the requester IK is not one of the referrer’s, or the ServiceRequest identifier does not begin with the referrer’s FHIR base',
          404: 'A DocumentBundle for a request the service does not know',
          409: [
            'A transition the request’s state does not allow (e.g. revoked, selecting a clinic that did not accept);',
            `or a supplement or document over what one request may hold (issue code too-long): by default ${REQUEST_BOUNDS.versions} versions,`,
            `${REQUEST_BOUNDS.documents} documents and ${REQUEST_BOUNDS.bytes / (1024 * 1024)} MiB of bundles in all. A selection, its withdrawal and a revocation are never refused for these.`,
          ].join(' '),
          413: `The body is larger than ${MAX_BUNDLE_BYTES / (1024 * 1024)} MiB`,
          415: `Not ${FHIR_CONTENT_TYPES.join(' or ')}, or a charset or Content-Encoding the gateway does not read`,
          503: 'the bundle could not be stored (broker unavailable), or the clinic registry is unavailable: nothing was stored, resend it',
        }),
      ),
    },
  });
}

/**
 * The Task search's parameters, from the declarations intake parses them with and the
 * CapabilityStatement lists (libs/fhir-model), and the ones every search takes.
 */
function taskSearchQuery() {
  const declared = [...TASK_SEARCH_PARAMETERS, ...TASK_RESULT_PARAMETERS].map(
    ({ name, documentation }) => [name, z.string().optional().describe(documentation)] as const,
  );
  return z.object({
    ...Object.fromEntries(declared),
    'based-on:identifier': z.string().optional().describe('`urn:ietf:rfc:3986|<ServiceRequest identifier>`: the same as based-on'),
    _offset: z.string().optional().describe('Paging: as the next link writes it; at most 10000'),
    _cursor: z.string().optional().describe('Paging: as the next link writes it past _offset=10000 (opaque)'),
    _format: Format,
  });
}

function registerTaskPaths(registry: OpenAPIRegistry, secured: Secured): void {
  const base = merged(guarded('any'), { 503: 'the Task store is unavailable' });
  registry.registerPath({
    method: 'get',
    path: '/api/v2/fhir/Task',
    operationId: 'searchTask',
    summary: 'Search Tasks: a referrer sees the Tasks of its own requests, a clinic those addressed to it',
    security: secured,
    request: { query: taskSearchQuery() },
    responses: {
      200: { description: 'A searchset', content: fhir(TaskSearchSet) },
      ...refusals(
        'fhir',
        merged(
          base,
          { 400: 'An unknown parameter or modifier, a malformed value, or a second value of a parameter that takes one (each issue names it)' },
          notAcceptable,
        ),
      ),
    },
  });
  registry.registerPath({
    method: 'get',
    path: '/api/v2/fhir/Task/{id}',
    operationId: 'readTask',
    summary: 'Read a Task',
    security: secured,
    request: {
      params: z.object({ id: z.guid().describe('The Task id') }),
      query: z.object({
        _elements: z.string().optional().describe('Comma-separated top-level Task elements to return; the mandatory ones always come, tagged SUBSETTED'),
        _format: Format,
      }),
    },
    responses: {
      200: { description: 'The Task', headers: { ETag: header('ETag') }, content: fhir(z.union([FhirTask, TaskSubset])) },
      ...refusals(
        'fhir',
        merged(
          base,
          UNDECODABLE_PATH,
          { 400: 'A parameter other than _elements and _format, or an element Task does not have' },
          { 404: 'No Task the caller may see has this id' },
          notAcceptable,
        ),
      ),
    },
  });
}

/** The audit trail (docs/api.md, "Audit trail"), answered by intake like the Task search, never cached. */
function registerAuditEventPath(registry: OpenAPIRegistry, secured: Secured): void {
  const declared = AUDIT_EVENT_SEARCH_PARAMETERS.map(({ name, documentation }) => [name, z.string().optional().describe(documentation)] as const);
  registry.registerPath({
    method: 'get',
    path: '/api/v2/fhir/AuditEvent',
    operationId: 'searchAuditEvent',
    summary: 'Search the audit trail: a referrer sees the entries about its own requests, a clinic those of its own access',
    security: secured,
    request: {
      query: z.object({
        ...Object.fromEntries(declared),
        'entity:identifier': z.string().optional().describe('`urn:ietf:rfc:3986|<ServiceRequest identifier>`: the same as entity'),
        'agent:identifier': z.string().optional().describe('`http://fhir.de/sid/arge-ik/iknr|<IK>`: the IK only'),
        ...Object.fromEntries(AUDIT_EVENT_RESULT_PARAMETERS.map(({ name, documentation }) => [name, z.string().optional().describe(documentation)] as const)),
        _offset: z.string().optional().describe('Paging: as the next link writes it; at most 10000'),
        _cursor: z.string().optional().describe('Paging: as the next link writes it past _offset=10000 (opaque)'),
        _format: Format,
      }),
    },
    responses: {
      200: { description: 'A searchset', headers: { 'Cache-Control': header('NoStore') }, content: fhir(AuditEventSearchSet) },
      ...refusals(
        'fhir',
        merged(
          guarded('any'),
          { 400: 'An unknown parameter or modifier, or a malformed value (each issue names it)', 503: 'the audit trail is unavailable' },
          notAcceptable,
        ),
      ),
    },
  });
}

function registerErasurePath(registry: OpenAPIRegistry, secured: Secured): void {
  registry.registerPath({
    method: 'delete',
    path: '/api/v2/fhir/ServiceRequest',
    operationId: 'eraseServiceRequest',
    summary: 'Erase the patient data of one of the referrer’s requests',
    description: [
      'Intake erases its copy (versions, documents, the clinics’ notes) before it answers and records the erasure in the audit trail; the notifier and routing follow asynchronously.',
      'The tombstone stays: the Task search and read still answer the request’s Tasks (states, dates), without notes. Asking again is safe (202 again, nothing more changes).',
    ].join(' '),
    security: secured,
    request: { query: z.object({ identifier: z.string().describe('The ServiceRequest identifier (URI) of the request') }) },
    responses: {
      202: {
        description: 'Erased (or erased before): an informational OperationOutcome',
        headers: { 'Cache-Control': header('NoStore') },
        content: fhir(OperationOutcome),
      },
      ...refusals(
        'fhir',
        merged(guarded('referrer'), {
          400: 'identifier is missing',
          404: 'No request of the caller’s with this identifier (another referrer’s is not found either)',
          503: 'the request store is unavailable: nothing was erased, ask again',
        }),
      ),
    },
  });
}

/** The CapabilityStatement and the conformance resources: no token, as FHIR clients read them first. */
function registerConformancePaths(registry: OpenAPIRegistry): void {
  const query = { query: z.object({ _format: Format }) };
  const onlyFormat: Refusals = { 400: 'A parameter other than _format', ...notAcceptable, ...ADDRESS_LIMITED };
  registry.registerPath({
    method: 'get',
    path: '/api/v2/fhir/metadata',
    operationId: 'readCapabilityStatement',
    summary: 'The CapabilityStatement (FHIR R4 http.html#capabilities), without a token',
    security: NO_TOKEN,
    request: query,
    responses: { 200: { description: 'The CapabilityStatement', content: fhir(CapabilityStatement) }, ...refusals('fhir', onlyFormat) },
  });

  // The ids are the last segments of the canonical URLs, which do not depend on the profile base.
  const resources = conformanceResources({ profileBase: 'https://profile-base.invalid', version: SERVICE_VERSION, date: new Date(0).toISOString() });
  const schemas = { StructureDefinition, CodeSystem };
  for (const type of CONFORMANCE_RESOURCE_TYPES) {
    const ids = resources[type].map((resource) => resource.id ?? '') as [string, ...string[]];
    registry.registerPath({
      method: 'get',
      path: `/api/v2/fhir/${type}`,
      operationId: `search${type}`,
      summary: `Every ${type} of the interface, without a token`,
      security: NO_TOKEN,
      request: query,
      responses: { 200: { description: 'A searchset of all of them', content: fhir(conformanceSearchSet(schemas[type])) }, ...refusals('fhir', onlyFormat) },
    });
    registry.registerPath({
      method: 'get',
      path: `/api/v2/fhir/${type}/{id}`,
      operationId: `read${type}`,
      summary: `One ${type} at its canonical id, without a token`,
      security: NO_TOKEN,
      request: { params: z.object({ id: z.enum(ids).describe('The last segment of its canonical URL') }), ...query },
      responses: {
        200: { description: `The ${type}`, content: fhir(schemas[type]) },
        ...refusals('fhir', merged(onlyFormat, UNDECODABLE_PATH, { 404: `No ${type} with this id` })),
      },
    });
  }
}
