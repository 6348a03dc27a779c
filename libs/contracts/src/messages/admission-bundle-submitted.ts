import { z } from 'zod';
import { defineMessage } from '../envelope';
import { Submitter } from './submitter';

/** Gateway → intake (request/reply): an AdmissionRequestBundle a referrer POSTed, schema-valid. */
export const AdmissionBundleSubmittedV1 = defineMessage(
  'admission.bundle.submitted',
  1,
  z.object({
    submitter: Submitter,
    receivedAt: z.iso.datetime({ offset: true }),
    /** The bundle exactly as received (validated by the gateway against libs/fhir-model). */
    bundle: z.record(z.string(), z.unknown()),
  }),
);
export type AdmissionBundleSubmittedV1 = z.infer<typeof AdmissionBundleSubmittedV1.payload>;
