import { z } from 'zod';
import { defineMessage } from '../envelope';

/** Gateway → intake: a bundle a referrer POSTed, authenticated and schema-valid. */
export const AdmissionBundleSubmittedV1 = defineMessage(
  'admission.bundle.submitted',
  1,
  z.object({
    submitter: z.object({
      partyId: z.string().min(1),
      ikNumbers: z.array(z.string().regex(/^\d{9}$/)).min(1),
      fhirBase: z.string().min(1),
    }),
    receivedAt: z.iso.datetime({ offset: true }),
    /** The bundle exactly as received (validated by the gateway against libs/fhir-model). */
    bundle: z.record(z.string(), z.unknown()),
  }),
);
export type AdmissionBundleSubmittedV1 = z.infer<typeof AdmissionBundleSubmittedV1.payload>;
