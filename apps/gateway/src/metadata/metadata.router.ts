import { Router, type Request, type RequestHandler } from 'express';
import type { Bundle, OperationOutcome, Resource } from '@medplum/fhirtypes';
import { capabilityStatement, conformanceResources, CONFORMANCE_RESOURCE_TYPES, outcome, type Issue } from '@bedrequest/fhir-model';
import { HttpError } from '@bedrequest/http';
import { sendFhir, sendOutcome } from '../fhir/fhir-response';
import { answerError } from '../http-errors';
import { smartConfigurationRoute, systemClientSecurity } from './smart-configuration';

export interface MetadataRouterOptions {
  /** `{profile_base}` (config `PROFILE_BASE`): the canonical URLs of the profiles and code systems. */
  profileBase: string;
  /** The service's version: `software.version`, and the version of every conformance resource. */
  version: string;
  /** Runs before each of its routes: the gateway's limit per client address (served without a token). */
  limit?: RequestHandler;
  /** The public API's address (config `API_PUBLIC_URL`): where system clients get their tokens. */
  publicApiUrl: string;
}

/** Where parties get and renew their tokens: the gateway's token proxy, mounted at `/api/v1/token`. */
const TOKEN_ENDPOINTS = { login: '/api/v1/token/login', refresh: '/api/v1/token/refresh' };

/**
 * What a FHIR client reads before anything else, before it has a token, so served without one (as
 * FHIR servers commonly do): `GET [base]/metadata`, the CapabilityStatement (R4
 * http.html#capabilities), SMART's discovery document `GET [base]/.well-known/smart-configuration`, and the conformance resources it refers to, each at the id its
 * canonical URL ends in (`GET [base]/StructureDefinition/AdmissionRequestBundle`,
 * `GET [base]/CodeSystem/specialty`, and the searches without parameters). Mount it at
 * `/api/v2/fhir` before the token guard; every other request passes on untouched.
 */
export function metadataRouter({ profileBase, version, limit, publicApiUrl }: MetadataRouterOptions): Router {
  // kind "instance": the statement describes this running server, published when it started.
  const date = new Date().toISOString();
  const resources = conformanceResources({ profileBase, version, date });
  const router = Router();
  const limited: RequestHandler[] = limit ? [limit] : [];

  const systemClients = systemClientSecurity(publicApiUrl);
  router.get('/.well-known/smart-configuration', ...limited, smartConfigurationRoute(systemClients));
  router.get('/metadata', ...limited, (req, res) => {
    const refused = refusedParameters(req);
    if (refused) return sendOutcome(res, refused.outcome, refused.status);
    const statement = capabilityStatement({ profileBase, version, date, tokenEndpoints: TOKEN_ENDPOINTS, systemClients, fhirBaseUrl: fhirBaseOf(req) });
    sendFhir(res, 200, statement);
  });

  for (const type of CONFORMANCE_RESOURCE_TYPES) {
    const all: readonly Resource[] = resources[type];
    const byId = new Map(all.map((resource) => [resource.id, resource]));
    const known = [...byId.keys()].join(', ');

    router.get(`/${type}`, ...limited, (req, res) => {
      const refused = refusedParameters(req);
      if (refused) return sendOutcome(res, refused.outcome, refused.status);
      sendFhir(res, 200, searchset(all, fhirBaseOf(req)));
    });
    router.get(`/${type}/:id`, ...limited, (req, res) => {
      const refused = refusedParameters(req);
      if (refused) return sendOutcome(res, refused.outcome, refused.status);
      const resource = byId.get(String(req.params.id));
      // The id is not quoted back: it is the caller's input, of any length.
      if (!resource) return answerError(req, res, new HttpError('not_found', `no ${type} with this id; there are: ${known}`));
      sendFhir(res, 200, resource);
    });
  }
  return router;
}

/** All conformance resources of one type, as FHIR R4 search results. */
function searchset(resources: readonly Resource[], fhirBase: string | undefined): Bundle {
  const urlOf = (resource: Resource) => fhirBase && `${fhirBase}/${resource.resourceType}/${resource.id}`;
  const type = resources[0]?.resourceType;
  return {
    resourceType: 'Bundle',
    type: 'searchset',
    total: resources.length,
    ...(fhirBase && type ? { link: [{ relation: 'self', url: `${fhirBase}/${type}` }] } : {}),
    entry: resources.map((resource) => {
      const fullUrl = urlOf(resource);
      return { ...(fullUrl ? { fullUrl } : {}), resource, search: { mode: 'match' } };
    }),
  };
}

/**
 * The FHIR base this request reached (`http://127.0.0.1:8080/api/v2/fhir`), from its Host header and
 * the router's mount path; none when the Host header is not a plain host[:port], so that a forged
 * header cannot make the answer name a URL with a path or query of the caller's choosing.
 */
function fhirBaseOf(req: Request): string | undefined {
  const host = req.get('host');
  if (!host || !/^([A-Za-z0-9.-]{1,253}|\[[0-9A-Fa-f:.]{2,45}\])(:\d{1,5})?$/.test(host)) return undefined;
  return `${req.protocol}://${host}${req.baseUrl}`;
}

/** `_format` values that ask for what is served (FHIR R4 http.html#mime-type): JSON only. */
const JSON_FORMATS = new Set(['json', 'application/json', 'application/fhir+json']);
/** How much of a parameter name an error quotes: names are the caller's input. */
const QUOTED_NAME_LENGTH = 64;

/**
 * These reads take no search parameters, only `_format`: anything else is 400 with the parameter
 * named, as the Task search answers an unknown parameter (docs/decisions.md, "Tasks"); a `_format` other
 * than JSON is 406 Not Acceptable, as there: a format this server cannot produce (R4
 * http.html#mime-type).
 */
function refusedParameters(req: Request): { outcome: OperationOutcome; status: 400 | 406 } | undefined {
  const unknown: Issue[] = [];
  let formatRefused = false;
  for (const [name, value] of Object.entries(req.query)) {
    if (name === '_format') {
      formatRefused ||= !(Array.isArray(value) ? value : [value]).every((format) => JSON_FORMATS.has(mimeTypeOf(String(format))));
      continue;
    }
    const quoted = name.length > QUOTED_NAME_LENGTH ? `${name.slice(0, QUOTED_NAME_LENGTH)}…` : name;
    unknown.push({ code: 'invalid', diagnostics: `${quoted}: unknown parameter`, expression: quoted });
  }
  if (unknown.length > 0) return { outcome: outcome(unknown), status: 400 };
  if (!formatRefused) return undefined;
  const diagnostics = `_format: only JSON is served (${[...JSON_FORMATS].join(', ')})`;
  return { outcome: outcome([{ code: 'not-supported', diagnostics, expression: '_format' }]), status: 406 };
}

/** `application/fhir+json; fhirVersion=4.0` → `application/fhir+json`. */
function mimeTypeOf(format: string): string {
  // A `+` not percent-encoded in the URL reaches the query as a space (application/x-www-form-urlencoded).
  return (format.split(';')[0] ?? '').trim().toLowerCase().replaceAll(' ', '+');
}
