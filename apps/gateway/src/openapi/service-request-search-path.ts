// The referrer's read of a request it sent (docs/api.md, "Reading a request back"), beside the erasure of fhir-paths.ts.
import type { OpenAPIRegistry } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';
import { fhir, guarded, header, merged, refusals, type Secured } from './responses';

/** The request's ServiceRequest as sent in its latest version, with that version, when it came, and the status the service holds. */
const ReadServiceRequest = z
  .looseObject({
    resourceType: z.literal('ServiceRequest'),
    meta: z.looseObject({
      versionId: z.string().regex(/^\d+$/).describe('The version of the request (1 for the first bundle, one more for each change)'),
      lastUpdated: z.iso.datetime({ offset: true }).describe('When the service received that version'),
    }),
    status: z.enum(['active', 'revoked']).describe('As the service holds it now: `revoked` after a revocation'),
  })
  .describe('The ServiceRequest of the latest version, as the referrer sent it but for meta and status');

const OtherResource = z.looseObject({ resourceType: z.string() }).describe('Another resource of that version, as the referrer sent it');

/** intake's answer to `GET /api/v2/fhir/ServiceRequest` (apps/intake RequestReadService.search). */
export const RequestSearchSet = z
  .object({
    resourceType: z.literal('Bundle'),
    type: z.literal('searchset'),
    total: z.number().int().min(0).max(1).describe('1 for a request of the caller’s party, else 0'),
    link: z.array(z.object({ relation: z.literal('self'), url: z.url() })).length(1),
    entry: z
      .array(
        z.union([
          z.object({ fullUrl: z.string().optional(), resource: ReadServiceRequest, search: z.object({ mode: z.literal('match') }) }),
          z.object({ fullUrl: z.string().optional(), resource: OtherResource, search: z.object({ mode: z.literal('include') }) }),
        ]),
      )
      .min(1)
      .optional()
      .describe(
        'The ServiceRequest (match), then the other resources of its latest AdmissionRequestBundle version (include), with their fullUrls as sent; absent for total 0',
      ),
  })
  .describe('A FHIR searchset of at most one request: the latest version the referrer sent');

/** `GET /api/v2/fhir/ServiceRequest?identifier=` (referrer tokens only). */
export function registerServiceRequestSearchPath(registry: OpenAPIRegistry, secured: Secured): void {
  registry.registerPath({
    method: 'get',
    path: '/api/v2/fhir/ServiceRequest',
    operationId: 'searchServiceRequest',
    summary: 'Read back a request the referrer sent: its latest version, found by the ServiceRequest identifier',
    description: [
      'A request of another party is not told apart from an unknown one: both are an empty searchset (total 0).',
      'Every read that answers a request is recorded in the audit trail (a search-type AuditEvent naming the version).',
    ].join(' '),
    security: secured,
    request: {
      query: z.object({
        identifier: z.string().describe('The ServiceRequest identifier URI, as the erasure takes it; also `urn:ietf:rfc:3986|<uri>`'),
        _format: z.string().optional().describe('`json`, `application/json` or `application/fhir+json` (the only format served); any other is 406'),
      }),
    },
    responses: {
      200: { description: 'A searchset', headers: { 'Cache-Control': header('NoStore') }, content: fhir(RequestSearchSet) },
      ...refusals(
        'fhir',
        merged(guarded('referrer'), {
          400: 'identifier is missing, given twice or not an absolute URI of at most 2048 printable ASCII characters, or another parameter is given (each issue names it)',
          406: '`_format` asks for a format other than JSON',
          410: 'The patient data of the request was erased (the diagnostics say when); its Tasks remain as the tombstone',
          503: 'the request store is unavailable',
        }),
      ),
    },
  });
}
