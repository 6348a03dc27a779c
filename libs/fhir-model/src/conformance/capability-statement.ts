import type {
  CapabilityStatement,
  CapabilityStatementRestResource,
  CapabilityStatementRestResourceSearchParam,
  CapabilityStatementRestSecurity,
  CodeSystem,
  StructureDefinition,
} from '@medplum/fhirtypes';
import { AUDIT_EVENT_SEARCH_PARAMETERS } from '../audit-event-search-parameters';
import { TASK_SEARCH_PARAMETERS, type TaskSearchParameter } from '../task-search-parameters';
import type { ConformanceOptions } from './canonical';
import { codeSystems } from './code-systems';
import { extensionDefinitions } from './extension-definitions';
import { bundleProfiles } from './structure-definitions';

/** The conformance resources the service serves without a token, by resource type. */
export interface ConformanceResources {
  StructureDefinition: StructureDefinition[];
  CodeSystem: CodeSystem[];
}
export type ConformanceResourceType = keyof ConformanceResources;
export const CONFORMANCE_RESOURCE_TYPES = ['StructureDefinition', 'CodeSystem'] as const satisfies readonly ConformanceResourceType[];

export function conformanceResources(options: ConformanceOptions): ConformanceResources {
  return { StructureDefinition: [...bundleProfiles(options), ...extensionDefinitions(options)], CodeSystem: codeSystems(options) };
}

export interface CapabilityStatementOptions extends ConformanceOptions {
  /** The FHIR base the statement describes (`implementation.url`), when the caller knows it. */
  fhirBaseUrl?: string;
  /** Where parties get and renew their bearer tokens (paths on the server). */
  tokenEndpoints: { login: string; refresh: string };
  /** SMART Backend Services: where system clients get their tokens, how they sign, which scopes they may ask for. */
  systemClients?: SystemClientSecurity;
}

export interface SystemClientSecurity {
  /** The token endpoint as callers reach it (absolute). */
  tokenEndpoint: string;
  grantType: string;
  authMethod: string;
  algorithms: readonly string[];
  scopes: readonly string[];
}

/** SMART's extension naming the OAuth endpoints in `rest.security` (App Launch 1.0; 2.x reads .well-known first). */
const OAUTH_URIS = 'http://fhir-registry.smarthealthit.org/StructureDefinition/oauth-uris';

/** http://terminology.hl7.org/CodeSystem/restful-security-service */
const RESTFUL_SECURITY_SERVICE = 'http://terminology.hl7.org/CodeSystem/restful-security-service';

/**
 * The search result parameters the Task search takes besides `TASK_SEARCH_PARAMETERS` (docs/decisions.md,
 * "Tasks"; FHIR R4 search.html#count, #total, #summary, #elements). R4 lists such control
 * parameters among a resource's searchParam (CapabilityStatement.rest.resource.searchParam, comments).
 */
export const TASK_RESULT_PARAMETERS = [
  {
    name: '_count',
    type: 'number',
    documentation: 'Page size; the next page is at link[relation=next] while more matches exist (by _offset up to 10000, then by _cursor).',
  },
  {
    name: '_total',
    type: 'token',
    documentation: '`none`: no total; `accurate` (the default, also for `estimate`): the number of matches.',
  },
  {
    name: '_summary',
    type: 'token',
    documentation: '`count`: the total alone, without entries.',
  },
  {
    name: '_elements',
    type: 'string',
    documentation: 'Comma-separated top-level Task elements to return; the mandatory ones always come too, and such Tasks are tagged SUBSETTED.',
  },
] as const satisfies readonly CapabilityStatementRestResourceSearchParam[];

/** The result parameters the AuditEvent search takes besides AUDIT_EVENT_SEARCH_PARAMETERS. */
export const AUDIT_EVENT_RESULT_PARAMETERS = [
  {
    name: '_count',
    type: 'number',
    documentation:
      'Page size (default 50, at most 500); the next page is at link[relation=next] while more matches exist (by _offset up to 10000, then by _cursor).',
  },
  {
    name: '_total',
    type: 'token',
    documentation: '`accurate`: the number of matches, counted for this request; `none` and `estimate` (the default): no total.',
  },
] as const satisfies readonly CapabilityStatementRestResourceSearchParam[];

/**
 * The FHIR R4 CapabilityStatement of the service (`GET [base]/metadata`), built from the
 * declarations the routes use: the profiles and code systems from `fhirSystems` (via
 * `conformanceResources`), the Task search from `TASK_SEARCH_PARAMETERS`. `kind: instance`, so it
 * describes the running server: its version, its base and its start as `date`.
 */
export function capabilityStatement(options: CapabilityStatementOptions): CapabilityStatement {
  const resources = conformanceResources(options);
  const { login, refresh } = options.tokenEndpoints;
  return {
    resourceType: 'CapabilityStatement',
    name: 'BedOccupancyRequestService',
    title: 'Bed Occupancy Request Service',
    status: 'active',
    experimental: false,
    date: options.date,
    description:
      'Acute hospitals and referral portals ask rehabilitation clinics whether they can admit a patient: one AdmissionRequestBundle reaches many clinics, each answers on its Task.',
    kind: 'instance',
    software: { name: 'Bed Occupancy Request Service', version: options.version },
    implementation: {
      description: 'Bed Occupancy Request Service, FHIR R4 interface',
      ...(options.fhirBaseUrl ? { url: options.fhirBaseUrl } : {}),
    },
    fhirVersion: '4.0.1',
    format: ['application/fhir+json', 'json'],
    rest: [
      {
        mode: 'server',
        documentation:
          'Every error is an OperationOutcome whose issues carry severity, code and diagnostics, and for invalid content the FHIRPath of the element in expression.',
        security: securityOf(options, [
          `Every FHIR endpoint except \`GET [base]/metadata\`, \`GET [base]/.well-known/smart-configuration\` and the conformance resources (StructureDefinition, CodeSystem) requires \`Authorization: Bearer <access token>\`; without a valid one the answer is 401 with an OperationOutcome.`,
          `People get the token with \`POST ${login}\` (JSON \`{"username", "password"}\`) and renew it without the password with \`POST ${refresh}\` (JSON \`{"refreshToken"}\`); both answer \`{"tokenType": "Bearer", "accessToken", "expiresIn", "refreshToken"}\`.`,
          'Referrers send bundles, referrers and clinics read Tasks and the AuditEvents of their own data; a token of the other role is 403.',
        ]),
        resource: [bundleResource(resources), taskResource(), serviceRequestResource(), auditEventResource(), ...conformanceResourceEntries(resources)],
      },
    ],
  };
}

/**
 * `rest.security`: bearer tokens for everyone and, where the server takes system clients, SMART
 * Backend Services beside them (the token endpoint in SMART's oauth-uris extension, the rest in words;
 * the discovery document at `[base]/.well-known/smart-configuration` says it as data).
 */
function securityOf(options: CapabilityStatementOptions, sentences: string[]): CapabilityStatementRestSecurity {
  const oauth = { coding: [{ system: RESTFUL_SECURITY_SERVICE, code: 'OAuth', display: 'OAuth' }], text: 'Bearer access token' };
  const clients = options.systemClients;
  if (!clients) return { service: [oauth], description: sentences.join(' ') };
  return {
    extension: [{ url: OAUTH_URIS, extension: [{ url: 'token', valueUri: clients.tokenEndpoint }] }],
    service: [oauth, { coding: [{ system: RESTFUL_SECURITY_SERVICE, code: 'SMART-on-FHIR', display: 'SMART-on-FHIR' }] }],
    description: [
      ...sentences,
      `Systems (SMART Backend Services) get a token with \`POST ${clients.tokenEndpoint}\`: grant \`${clients.grantType}\`, client authentication \`${clients.authMethod}\` (a JWT assertion signed with ${clients.algorithms.join(' or ')} by a key of the client's registered JWKS, its \`aud\` this endpoint).`,
      `Scopes: ${clients.scopes.map((scope) => `\`${scope}\``).join(', ')}; each within the party's role, and each route refuses a system token without its scope (403, insufficient_scope).`,
    ].join(' '),
  };
}

function bundleResource(resources: ConformanceResources): CapabilityStatementRestResource {
  return {
    type: 'Bundle',
    supportedProfile: resources.StructureDefinition.filter((profile) => profile.type === 'Bundle').map((profile) => profile.url),
    documentation:
      'Referrers send AdmissionRequestBundles (a new request, or the next version of one: supplement, selection, withdrawal, revocation) and DocumentBundles; meta.profile tells them apart.',
    interaction: [
      {
        code: 'create',
        documentation:
          '`POST [base]/Bundle` with `Content-Type: application/fhir+json` (or `application/json`). 202 with an OperationOutcome (information) and `Location` = the Task search of the request; a refused bundle is 400, 403, 404 or 409 with an OperationOutcome naming each problem; an oversized one 413.',
      },
    ],
  };
}

function taskResource(): CapabilityStatementRestResource {
  return {
    type: 'Task',
    documentation:
      'One Task per requested clinic of a request, carrying its answer in businessStatus. A referrer sees the Tasks of its own requests, a clinic those addressed to it; a Task id the caller may not see is 404.',
    interaction: [
      { code: 'read', documentation: '`GET [base]/Task/{id}`' },
      {
        code: 'search-type',
        documentation: '`GET [base]/Task?...`: a searchset Bundle with total; the parameters are ANDed; any other parameter is 400.',
      },
    ],
    searchParam: [
      ...TASK_SEARCH_PARAMETERS.map((parameter: TaskSearchParameter) => ({
        name: parameter.name,
        ...(parameter.definition ? { definition: parameter.definition } : {}),
        type: parameter.type,
        documentation: parameter.documentation,
      })),
      ...TASK_RESULT_PARAMETERS,
    ],
  };
}

/**
 * The referrer's read of a request it sent, a search by the request's identifier, and the erasure
 * of its patient data, a conditional delete by the same identifier (http.html#cdelete).
 */
function serviceRequestResource(): CapabilityStatementRestResource {
  return {
    type: 'ServiceRequest',
    documentation:
      'A request is sent inside an AdmissionRequestBundle and followed through its Tasks; the referrer that owns it reads back its latest version and may have its patient data erased. Afterwards its Tasks remain as the tombstone (identifier, dates, states; no notes), a clinic reading its bundle, versions or documents gets 410, and new bundles or answers for it are 409.',
    interaction: [
      {
        code: 'delete',
        documentation:
          "`DELETE [base]/ServiceRequest?identifier=<the ServiceRequest identifier URI>` (referrer tokens): 202 with an OperationOutcome (information) once intake erased the patient data; the other services follow asynchronously. Idempotent; another referrer's or an unknown request is 404, no identifier 400.",
      },
      {
        code: 'search-type',
        documentation:
          "`GET [base]/ServiceRequest?identifier=<the ServiceRequest identifier URI>` (referrer tokens): a searchset with the ServiceRequest of the request's latest version (search.mode match; meta.versionId the version, meta.lastUpdated when it was received, status as the service holds it) and that version's other resources (include), as sent. Another party's or an unknown request: an empty searchset; erased: 410. Recorded in the audit trail.",
      },
    ],
    conditionalDelete: 'single',
    searchParam: [
      {
        name: 'identifier',
        definition: 'http://hl7.org/fhir/SearchParameter/ServiceRequest-identifier',
        type: 'token',
        documentation:
          'The ServiceRequest identifier URI, also as urn:ietf:rfc:3986|<uri>: the one search parameter of the read (with _format), and the criterion of the conditional delete.',
      },
    ],
  };
}

function auditEventResource(): CapabilityStatementRestResource {
  return {
    type: 'AuditEvent',
    documentation:
      "The audit trail: one AuditEvent per read of patient data (Task search and read, a clinic reading a request version or its documents, an administrator's export) and per change (a bundle or document posted, an answer, an erasure), with who (agent: the IK as who, the user as altId, the caller's address), what (entity: the ServiceRequest identifier and the resource), when and the outcome. A referrer sees the entries about its own requests, a clinic those of its own access; nobody sees another party's.",
    interaction: [
      {
        code: 'search-type',
        documentation:
          '`GET [base]/AuditEvent?...`: a searchset Bundle ordered by recorded, with total on `_total=accurate`; the parameters are ANDed; any other parameter is 400.',
      },
    ],
    searchParam: [
      ...AUDIT_EVENT_SEARCH_PARAMETERS.map((parameter: TaskSearchParameter) => ({
        name: parameter.name,
        ...(parameter.definition ? { definition: parameter.definition } : {}),
        type: parameter.type,
        documentation: parameter.documentation,
      })),
      ...AUDIT_EVENT_RESULT_PARAMETERS,
    ],
  };
}

const CONFORMANCE_DOCUMENTATION: Record<ConformanceResourceType, string> = {
  StructureDefinition:
    'The profiles of the bundles and the extensions (answer-deadline on the ServiceRequest, answer-overdue and asked-by-rule on the Task), each at its canonical id.',
  CodeSystem: 'The code systems of the interface, each at its canonical id, with every code and its display.',
};

function conformanceResourceEntries(resources: ConformanceResources): CapabilityStatementRestResource[] {
  return CONFORMANCE_RESOURCE_TYPES.map((type) => ({
    type,
    documentation: `${CONFORMANCE_DOCUMENTATION[type]} No token needed: ${resources[type].map((resource) => resource.url).join(', ')}.`,
    interaction: [
      { code: 'read', documentation: `\`GET [base]/${type}/{id}\`; an unknown id is 404.` },
      { code: 'search-type', documentation: `\`GET [base]/${type}\` without parameters: all of them, as a searchset Bundle.` },
    ],
  }));
}
