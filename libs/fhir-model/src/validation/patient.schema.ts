import { z } from 'zod';
import { ADMINISTRATIVE_GENDERS, CONTACT_POINT_USES, PATIENT_TELECOM_SYSTEMS } from '../codes';
import { isMaskedName } from '../patient-data';
import { URI_IDENTIFIER_SYSTEM } from '../systems';
import { absoluteUri, fhirDate, fhirId, fhirString } from './datatypes';
import { customIssue } from './issues';

/**
 * Patient (spec, "Patient"). The name is either complete (`family`) or masked
 * (`_family.extension[]` with the nullFlavor `MSK`). Pseudonymized means only birth date, gender,
 * postal code and city are kept, so a masked patient carries no given names, address lines or
 * telecom: sending them to every requested clinic is what masking is meant to prevent.
 */
const humanName = z
  .object({
    family: fhirString.optional(),
    given: z.array(fhirString).optional(),
    _family: z.object({ extension: z.array(z.object({ url: fhirString, valueCode: fhirString.optional() })).optional() }).optional(),
  })
  .superRefine((name, ctx) => {
    if (name.family === undefined && !isMaskedName(name)) {
      ctx.addIssue(customIssue('required', 'family is required unless the name is masked with the nullFlavor extension (MSK)', ['family']));
    }
  });

export const patientSchema = z
  .object({
    resourceType: z.literal('Patient'),
    id: fhirId.optional(),
    identifier: z.array(z.object({ system: z.literal(URI_IDENTIFIER_SYSTEM), value: absoluteUri })).min(1),
    name: z.array(humanName).min(1),
    gender: z.enum(ADMINISTRATIVE_GENDERS),
    birthDate: fhirDate,
    address: z.array(z.object({ line: z.array(fhirString).optional(), postalCode: fhirString.optional(), city: fhirString.optional() })).optional(),
    telecom: z.array(z.object({ system: z.enum(PATIENT_TELECOM_SYSTEMS), value: fhirString, use: z.enum(CONTACT_POINT_USES).optional() })).optional(),
  })
  .superRefine((patient, ctx) => {
    if (!patient.name.some(isMaskedName)) return;
    const leak = (what: string, path: (string | number)[]) =>
      ctx.addIssue(customIssue('invalid', `a pseudonymized (MSK-masked) patient must not carry ${what}`, path));
    patient.name.forEach((name, index) => {
      if (name.given) leak('given names', ['name', index, 'given']);
    });
    patient.address?.forEach((address, index) => {
      if (address.line) leak('address lines', ['address', index, 'line']);
    });
    if (patient.telecom) leak('telecom', ['telecom']);
  });
export type ParsedPatient = z.infer<typeof patientSchema>;
