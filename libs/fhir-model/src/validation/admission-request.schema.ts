import { z } from 'zod';
import type { FhirSystems } from '../systems';
import { conditionSchema, coverageSchema, encounterSchema, observationSchema } from './clinical.schema';
import { fhirId, fhirString, instantWithOffset, profilesClaiming, urnUuid } from './datatypes';
import type { Cardinality } from './entries';
import { organizationSchema } from './organization.schema';
import { perProfileBase } from './per-profile-base';
import { patientSchema } from './patient.schema';
import { serviceRequestSchema } from './service-request.schema';

/** The Bundle around the resources (spec, "AdmissionRequestBundle"). */
function bundleSchema(systems: FhirSystems) {
  return z.object({
    resourceType: z.literal('Bundle'),
    id: fhirId,
    meta: z.object({ profile: profilesClaiming(systems.admissionRequestBundleProfile) }),
    identifier: z.object({ system: z.literal(systems.admissionRequestNamingSystem), value: fhirString }),
    type: z.literal('collection'),
    timestamp: instantWithOffset,
    entry: z.array(z.object({ fullUrl: urnUuid, resource: z.object({ resourceType: fhirString }) })),
  });
}

export type BundleEnvelope = z.infer<ReturnType<typeof bundleSchema>>;

/** Spec, AdmissionRequestBundle, "Resources inside entry". */
export const ADMISSION_REQUEST_CARDINALITY: ReadonlyMap<string, Cardinality> = new Map([
  ['ServiceRequest', { min: 1, max: 1 }],
  ['Patient', { min: 1, max: 1 }],
  ['Coverage', { min: 0, max: 1 }],
  ['Encounter', { min: 0, max: 1 }],
  ['Condition', { min: 0, max: Infinity }],
  ['Observation', { min: 0, max: Infinity }],
  ['Organization', { min: 1, max: Infinity }],
]);

function buildSchemas(systems: FhirSystems) {
  return {
    systems,
    bundle: bundleSchema(systems),
    serviceRequest: serviceRequestSchema(systems),
    patient: patientSchema,
    organization: organizationSchema(systems),
    supporting: new Map<string, z.ZodType>([
      ['Coverage', coverageSchema],
      ['Encounter', encounterSchema],
      ['Condition', conditionSchema],
      ['Observation', observationSchema],
    ]),
  };
}
export type AdmissionRequestSchemas = ReturnType<typeof buildSchemas>;

export const admissionRequestSchemas = perProfileBase(buildSchemas);
