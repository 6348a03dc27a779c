import { z } from 'zod';
import { defineMessage } from '../envelope';

/** Intake → notifier and routing: a clinic answered (or the service answered for it); deliver to the referrer. */
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
    /**
     * Who answered: the clinic itself, or the service on its behalf (a decline for a department the
     * clinic does not offer, an answer from bed counts). Routing gives back a held bed only for a
     * clinic's own decline; it booked or released the beds of its own answers already. Added after
     * version 1 was first published (optional: absent means unknown).
     */
    source: z.enum(['clinic', 'automatic']).optional(),
  }),
);
export type AdmissionResponseV1 = z.infer<typeof AdmissionResponseV1.payload>;
