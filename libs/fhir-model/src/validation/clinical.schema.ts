import { z } from 'zod';
import { ENCOUNTER_STATUSES, UCUM_UNIT_BY_LOINC } from '../codes';
import { ACT_CODE_SYSTEM, ICD10GM_SYSTEM, IK_NUMBER_SYSTEM, INSURANCE_TYPE_SYSTEM, LOINC_SYSTEM, UCUM_SYSTEM } from '../systems';
import { codedWith, fhirDateTime, fhirId, fhirString, ikNumber, reference } from './datatypes';
import { quoted } from './excerpt';
import { customIssue } from './issues';

/**
 * The supporting resources of an admission request (spec, "Coverage", "Encounter", "Condition",
 * "Observation"). Fields the spec lists without marking them optional are required.
 */

export const coverageSchema = z.object({
  resourceType: z.literal('Coverage'),
  id: fhirId.optional(),
  status: z.literal('active'),
  // The insurance type list is maintained by the national base profile, so any code is accepted.
  type: codedWith(INSURANCE_TYPE_SYSTEM, { label: 'insurance type', atMostOne: true }),
  beneficiary: reference,
  payor: z.array(z.object({ identifier: z.object({ system: z.literal(IK_NUMBER_SYSTEM), value: ikNumber }), display: fhirString })).min(1),
});

export const encounterSchema = z.object({
  resourceType: z.literal('Encounter'),
  id: fhirId.optional(),
  status: z.enum(ENCOUNTER_STATUSES),
  class: z.object({ system: z.literal(ACT_CODE_SYSTEM), code: fhirString, display: fhirString.optional() }),
  subject: reference,
  serviceProvider: reference,
  period: z.object({ start: fhirDateTime, end: fhirDateTime.optional() }),
});

export const conditionSchema = z.object({
  resourceType: z.literal('Condition'),
  id: fhirId.optional(),
  code: codedWith(ICD10GM_SYSTEM, { label: 'ICD-10-GM' }),
  subject: reference,
  encounter: reference.optional(),
  recordedDate: fhirDateTime,
});

/**
 * Observation: weight (LOINC 29463-7) is measured in kg and height (8302-2) in cm. The UCUM `code`
 * decides; `unit` is the human-readable form and may say "Kilogramm".
 */
export const observationSchema = z
  .object({
    resourceType: z.literal('Observation'),
    id: fhirId.optional(),
    status: z.literal('final'),
    code: codedWith(LOINC_SYSTEM, { label: 'LOINC', atMostOne: true }),
    subject: reference,
    valueQuantity: z.object({ value: z.number(), unit: fhirString, system: z.literal(UCUM_SYSTEM), code: fhirString }),
  })
  .superRefine((observation, ctx) => {
    const loinc = observation.code.coding.find((coding) => coding.system === LOINC_SYSTEM)?.code ?? '';
    const unit = UCUM_UNIT_BY_LOINC.get(loinc);
    if (unit && observation.valueQuantity.code !== unit) {
      ctx.addIssue(
        customIssue('code-invalid', `LOINC ${loinc} is measured in '${unit}', not ${quoted(observation.valueQuantity.code)}`, ['valueQuantity', 'code']),
      );
    }
  });
