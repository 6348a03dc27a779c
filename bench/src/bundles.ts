import { randomUUID } from 'node:crypto';
import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';

export const FHIR_BASE = 'https://bench-hospital.example/fhir';
export const REFERRER_IK = '262200001';
const PLACEHOLDER = '00000000-0000-4000-8000-00000000b0b0';

/**
 * A realistic AdmissionRequestBundle (ServiceRequest, Patient, Coverage, Encounter, 3 Conditions,
 * 2 Observations, 3 Organizations) as a JSON template; `next()` gives it a new request identifier,
 * so every POST creates a new request, and `supplement()` the same request supplemented (a note
 * added: a new version).
 */
export function bundleFactory(performerIks: readonly string[]) {
  const templateOf = (notes?: string[]) =>
    JSON.stringify(
      admissionRequestBundle({
        fhirBase: FHIR_BASE,
        requesterIk: REFERRER_IK,
        performerIks,
        requestIdentifier: `${FHIR_BASE}/ServiceRequest/${PLACEHOLDER}`,
        ...(notes ? { notes } : {}),
      }),
    );
  const template = templateOf();
  const supplemented = templateOf(['Einzelzimmer erwünscht', 'Nachtrag: aktueller Barthel-Index 65, Wunde reizlos']);
  return {
    bytes: Buffer.byteLength(template),
    next(): { identifier: string; body: string; supplement: () => string } {
      const id = randomUUID();
      return {
        identifier: `${FHIR_BASE}/ServiceRequest/${id}`,
        body: template.replaceAll(PLACEHOLDER, id),
        supplement: () => supplemented.replaceAll(PLACEHOLDER, id),
      };
    },
  };
}
