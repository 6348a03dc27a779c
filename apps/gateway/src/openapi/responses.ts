import type { ResponseConfig, RouteConfig } from '@asteasolutions/zod-to-openapi';
import type { z } from 'zod';
import type { CatalogueScope } from '@bedrequest/tokens';
import { FHIR_JSON } from '../fhir/fhir-response';
import { ApiError, OperationOutcome } from './public-shapes';

/**
 * The building blocks of the document's answers: content of one media type, the headers answers
 * carry, and the error answers of the two surfaces (docs/decisions.md, "Errors": an OperationOutcome on
 * /api/v2/fhir, `{"error", "message"}` on /api/v1), each with the headers its status brings.
 */

export type Surface = 'v1' | 'fhir';
export type Responses = RouteConfig['responses'];
/** The security requirement of a route behind the token guard. */
export type Secured = Record<string, string[]>[];
/**
 * A route's requirement behind the token guard: a person's token, or a system client's with the
 * scope the route asks for (start.ts, requireScope; docs/parties.md, "System clients and scopes").
 */
export type SecuredBy = (scope: CatalogueScope) => Secured;
/**
 * The security of a route that needs no token: an empty requirement, written out rather than left
 * to a default, so that a route that names none fails the document's lint (openapi-lint.spec.ts).
 */
export const NO_TOKEN: Secured = [];
export type ErrorStatus = 400 | 401 | 403 | 404 | 406 | 409 | 410 | 412 | 413 | 415 | 429 | 503;
/** Why a route answers each error status it can answer. */
export type Refusals = Partial<Record<ErrorStatus, string>>;

export const json = (schema: z.ZodType) => ({ 'application/json': { schema } });
export const fhir = (schema: z.ZodType) => ({ [FHIR_JSON]: { schema } });

/** The headers of the document's answers, under components/headers; `required` ones the e2e check insists on. */
export const HEADERS = {
  RetryAfter: { description: 'Seconds to wait before trying again', required: true, schema: { type: 'string', pattern: '^\\d+$' } },
  Allow: { description: 'The methods the path takes, e.g. `GET, HEAD, OPTIONS`', required: true, schema: { type: 'string', pattern: '^[A-Z]+(, [A-Z]+)*$' } },
  WwwAuthenticate: {
    description: 'RFC 6750: `Bearer realm="bedrequest"`, with `error="invalid_token"` and a description for a token that is not valid',
    required: true,
    schema: { type: 'string', pattern: '^Bearer ' },
  },
  TaskSearchLocation: {
    description: 'The Task search of the request: `/api/v2/fhir/Task?based-on=<ServiceRequest identifier, percent-encoded>`',
    required: true,
    schema: { type: 'string', pattern: '^/api/v2/fhir/Task\\?based-on=' },
  },
  NoStore: {
    description: 'Not to be cached: token responses (RFC 6749 §5.1), answers with patient or audit data',
    required: true,
    schema: { type: 'string', const: 'no-store' },
  },
  NoCache: { description: 'RFC 6749 §5.1, for HTTP/1.0 caches', required: true, schema: { type: 'string', const: 'no-cache' } },
  ETag: {
    description:
      'The Task\'s entity tag, weak (`W/"<version>-<revision>-<answer>"`): the request version its clinic was sent and its answer state; a clinic\'s answer names it in `If-Match` (docs/api.md, "Clinic API")',
    required: true,
    schema: { type: 'string', pattern: '^W/"[^"]+"$' },
  },
  CorrelationId: {
    description: "The caller's `x-correlation-id` when it sent a sane one, else a new one; quote it when reporting a problem",
    required: true,
    schema: { type: 'string' },
  },
} as const;
export type HeaderName = keyof typeof HEADERS;
export const header = (name: HeaderName) => ({ $ref: `#/components/headers/${name}` });

/** The headers an error answer carries by its status: the challenge on 401 (where the token guard answers it), the current ETag on 412, Retry-After on 429 and 503. */
function errorHeaders(status: ErrorStatus, challenge: boolean): Record<string, { $ref: string }> | undefined {
  if (status === 401 && challenge) return { 'WWW-Authenticate': header('WwwAuthenticate') };
  if (status === 412) return { ETag: header('ETag') };
  if (status === 429 || status === 503) return { 'Retry-After': header('RetryAfter') };
  return undefined;
}

/**
 * The error answers of a route, one per status it can answer, with the body of its surface.
 * `challenge: false` for a 401 that is not the token guard's (a failed login) and so has no
 * WWW-Authenticate.
 */
export function refusals(surface: Surface, reasons: Refusals, options: { challenge?: boolean } = {}): Responses {
  const body = surface === 'fhir' ? fhir(OperationOutcome) : json(ApiError);
  const answers: Responses = {};
  for (const [key, description] of Object.entries(reasons) as [`${ErrorStatus}`, string][]) {
    const headers = errorHeaders(Number(key) as ErrorStatus, options.challenge ?? true);
    const answer: ResponseConfig = { description, content: body, ...(headers ? { headers } : {}) };
    answers[key] = answer;
  }
  return answers;
}

/** Several routes' reasons for the same statuses, joined: `{403: 'Not a referrer token'}` and `{403: 'Not the referrer's IK'}`. */
export function merged(...reasons: Refusals[]): Refusals {
  const all: Refusals = {};
  for (const each of reasons) {
    for (const [key, description] of Object.entries(each) as [`${ErrorStatus}`, string][]) {
      const status = Number(key) as ErrorStatus;
      all[status] = all[status] ? `${all[status]}; ${description}` : description;
    }
  }
  return all;
}

/** What the limit per client address answers on the routes without a token (address-limits.ts, addressLimit). */
export const ADDRESS_LIMITED: Refusals = {
  429: 'More requests per second from this client address to this group of routes (the token endpoints; the documents served without a token) than RATE_LIMIT_PER_ADDRESS_PER_SECOND allows (20 by default); held until the address could be served again, at most RATE_LIMIT_REFUSAL_HOLD_MS (1 s), then Retry-After says what is left of the wait (at least 1)',
};

/**
 * What the token guard and the limits in front of a route answer (start.ts: invalidTokenLimit,
 * requireToken, partyLimits, requireScope): 401 without a valid party token,
 * 429 over the party's rate or its requests or bytes in flight, or from an address over its budget
 * of invalid tokens, 503 while the signing keys cannot be fetched. 403 for a token of the other role,
 * or a system client's token without the route's scope (requireScope).
 */
export function guarded(role: 'referrer' | 'clinic' | 'any'): Refusals {
  return {
    401: 'No valid access token: missing, malformed, expired, or not a party token',
    403: `${role === 'any' ? '' : `Not a ${role} token; or `}a system client's token without the scope of this route (\`insufficient_scope\`, WWW-Authenticate names the scope)`,
    429: "Over the party's limits: requests per second (RATE_LIMIT_PER_SECOND, 200 by default, over all gateway processes), requests or request bytes at once (RATE_LIMIT_CONCURRENT_PER_PARTY, RATE_LIMIT_BYTES_IN_FLIGHT_PER_PARTY), request body bytes per second (RATE_LIMIT_BYTES_PER_SECOND, 2 MiB by default, over all gateway processes); or, for a token the gateway has not verified before, more invalid tokens per second from this client address than RATE_LIMIT_PER_ADDRESS_PER_SECOND (20 by default): it is refused without verification until the second ends. Held until the caller could be served again, at most RATE_LIMIT_REFUSAL_HOLD_MS (1 s), then Retry-After says what is left of the wait (at least 1)",
    503: 'The access token cannot be checked right now (the signing keys are unavailable)',
  };
}

/** What every JSON body of /api/v1 is checked for before it is read (json-body.ts), with the route's body limit. */
export function jsonBodyRefusals(limit: string): Refusals {
  return {
    400: 'The body is empty or not JSON, nested deeper than 64 levels, or has an array or object of more than 1,000 members',
    413: `The body is larger than ${limit}`,
    415: 'Not `application/json`, or a charset or Content-Encoding the gateway does not read',
  };
}

/** A path segment the gateway cannot decode (a stray `%`): express refuses it before the route. */
export const UNDECODABLE_PATH: Refusals = { 400: 'A path segment is not valid percent-encoding' };
