import { z } from 'zod';
import { ORDER_DETAIL_CODES, SERVICE_REQUEST_INTENTS, SERVICE_REQUEST_STATUSES, SERVICE_TYPE_CODES } from '../codes';
import { findSpecialty, SPECIALTIES } from '../specialties';
import { DEPARTMENT_KEY_SYSTEM, type FhirSystems, URI_IDENTIFIER_SYSTEM } from '../systems';
import { absoluteUri, codedWith, fhirDate, fhirString, reference, uuid } from './datatypes';
import { quoted } from './excerpt';
import { customIssue } from './issues';

/** ServiceRequest (spec, "ServiceRequest"; docs/decisions.md, "Requests"). */
export function serviceRequestSchema(systems: FhirSystems) {
  return z.object({
    resourceType: z.literal('ServiceRequest'),
    id: uuid,
    // At most 2048 printable ASCII characters (RFC 3986 URIs are ASCII): the identifier is a unique
    // database key and goes into the Location header of the 202.
    identifier: z
      .array(
        z.object({
          system: z.literal(URI_IDENTIFIER_SYSTEM),
          value: absoluteUri.pipe(
            z
              .string()
              .max(2048)
              .regex(/^[\x21-\x7e]+$/, 'must be printable ASCII (RFC 3986)'),
          ),
        }),
      )
      .length(1),
    status: z.enum(SERVICE_REQUEST_STATUSES),
    intent: z.enum(SERVICE_REQUEST_INTENTS),
    code: codedWith(systems.serviceTypeSystem, { codes: SERVICE_TYPE_CODES, label: 'service type', atMostOne: true }),
    performerType: performerTypeSchema(systems),
    subject: reference,
    encounter: reference.optional(),
    requester: reference,
    performer: z.array(reference).min(1),
    occurrenceDateTime: fhirDate.optional(),
    orderDetail: z.array(orderDetailSchema(systems)).optional(),
    note: z.array(z.object({ text: fhirString })).optional(),
  });
}
export type ParsedServiceRequest = z.infer<ReturnType<typeof serviceRequestSchema>>;

function orderDetailSchema(systems: FhirSystems) {
  const coding = z.object({
    system: z.literal(systems.orderDetailSystem),
    code: z.enum(ORDER_DETAIL_CODES),
    display: fhirString.optional(),
  });
  return z.object({ coding: z.array(coding).min(1) });
}

/**
 * `performerType.coding` rules (spec, ServiceRequest): department key and/or specialty codings,
 * each with system, code and display. One coding per system: the spec asks for one desired
 * specialty, and two of a kind would make the department depend on coding order, which rule 3
 * forbids.
 */
function performerTypeSchema(systems: FhirSystems) {
  const performerTypeCoding = z
    .object({ system: z.enum([systems.specialtySystem, DEPARTMENT_KEY_SYSTEM]), code: fhirString, display: fhirString })
    .superRefine((coding, ctx) => {
      if (coding.system === systems.specialtySystem && !findSpecialty(coding.code)) {
        const known = SPECIALTIES.map((row) => row.code).join(', ');
        ctx.addIssue(customIssue('code-invalid', `${quoted(coding.code)} is not a specialty code (allowed: ${known})`, ['code']));
      }
      if (coding.system === DEPARTMENT_KEY_SYSTEM && !/^\d{4}$/.test(coding.code)) {
        ctx.addIssue(customIssue('value', `department key ${quoted(coding.code)} must be 4 digits`, ['code']));
      }
    });

  return z.object({ coding: z.array(performerTypeCoding).min(1), text: fhirString.optional() }).superRefine((concept, ctx) => {
    const seen = new Set<string>();
    concept.coding.forEach((coding, index) => {
      if (seen.has(coding.system)) {
        ctx.addIssue(customIssue('invalid', `only one coding with system ${coding.system} is allowed`, ['coding', index]));
      }
      seen.add(coding.system);
    });
  });
}
