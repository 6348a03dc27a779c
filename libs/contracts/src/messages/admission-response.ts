import { z } from 'zod';
import { defineMessage } from '../envelope';

/** Routing → notifier: a clinic answered (or the service answered for it); deliver to the referrer. */
export const AdmissionResponseV1 = defineMessage(
  'admission.response',
  1,
  z.object({
    /** Stable id of the event: the webhook-id of every delivery attempt. */
    eventId: z.uuid(),
    referrerPartyId: z.string().min(1),
    /** The ServiceRequest identifier, the per-request ordering key. */
    requestIdentifier: z.string().min(1),
    /** The FHIR Task after the answer. */
    task: z.record(z.string(), z.unknown()),
  }),
);
export type AdmissionResponseV1 = z.infer<typeof AdmissionResponseV1.payload>;
