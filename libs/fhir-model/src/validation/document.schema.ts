import { z } from 'zod';
import { type FhirSystems, URI_IDENTIFIER_SYSTEM } from '../systems';
import { absoluteUri, fhirId, fhirString, isAbsoluteUri, profilesClaiming } from './datatypes';
import { customIssue, predicateParams } from './issues';
import { perProfileBase } from './per-profile-base';

/**
 * DocumentBundle (docs/decisions.md, "Requests"): profile, `type: document`, a Composition first, and
 * DocumentReferences that name the ServiceRequest identifier and carry base64 attachments.
 */
function bundleSchema(systems: FhirSystems) {
  return z.object({
    resourceType: z.literal('Bundle'),
    id: fhirId.optional(),
    meta: z.object({ profile: profilesClaiming(systems.documentBundleProfile) }),
    type: z.literal('document'),
    entry: z.array(z.object({ fullUrl: absoluteUri, resource: z.object({ resourceType: fhirString }) })),
  });
}

/** FHIR R4 base64Binary; white space between the characters is allowed and ignored. */
export function isBase64(value: string): boolean {
  const compact = value.replace(/\s+/g, '');
  return compact.length > 0 && compact.length % 4 === 0 && /^[A-Za-z0-9+/]*={0,2}$/.test(compact);
}

/** RFC 6838 `type/subtype`, optionally with parameters (`text/plain; charset=utf-8`). */
const MIME_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(\s*;.*)?$/;

const attachment = z.object({
  contentType: z.string().regex(MIME_TYPE, 'must be a MIME type such as application/pdf'),
  data: z.string().refine(isBase64, { message: 'must be base64 encoded', params: predicateParams('value') }),
  title: fhirString.optional(),
});

const relatedIdentifier = z.object({ system: fhirString, value: fhirString }).superRefine((identifier, ctx) => {
  if (identifier.system === URI_IDENTIFIER_SYSTEM && !isAbsoluteUri(identifier.value)) {
    ctx.addIssue(customIssue('value', 'the ServiceRequest identifier must be an absolute URI', ['value']));
  }
});

const documentReferenceSchema = z.object({
  resourceType: z.literal('DocumentReference'),
  id: fhirId.optional(),
  // Required by FHIR R4 (DocumentReference.status 1..1), like content.
  status: z.enum(['current', 'superseded', 'entered-in-error']),
  content: z.array(z.object({ attachment })).min(1),
  context: z.object({
    related: z
      .array(z.object({ identifier: relatedIdentifier.optional() }))
      .min(1)
      .superRefine((related, ctx) => {
        // A malformed value under the right system is reported on the value itself.
        if (!related.some((item) => item.identifier?.system === URI_IDENTIFIER_SYSTEM)) {
          ctx.addIssue(
            customIssue('required', `an identifier with system ${URI_IDENTIFIER_SYSTEM} and the ServiceRequest identifier URI as value is required`),
          );
        }
      }),
  }),
});

/** The ServiceRequest identifier a `context.related` item names, if it names one. */
export function requestIdentifierOf(related: { identifier?: { system: string; value: string } }): string | undefined {
  const { identifier } = related;
  return identifier?.system === URI_IDENTIFIER_SYSTEM && isAbsoluteUri(identifier.value) ? identifier.value : undefined;
}

function buildSchemas(systems: FhirSystems) {
  return { systems, bundle: bundleSchema(systems), documentReference: documentReferenceSchema };
}
export type DocumentSchemas = ReturnType<typeof buildSchemas>;

export const documentSchemas = perProfileBase(buildSchemas);
