import { z } from 'zod';
import { defineMessage } from '../envelope';
import { AnswerSource } from './clinic-answer-submitted';
import { FhirTask } from './fhir-task';

/**
 * Intake → notifier and routing. Only intake publishes it, once it has committed an answer to a Task:
 * the clinic's own (clinic.answer.submitted from the gateway) or one routing made on the clinic's
 * behalf (clinic.answer.submitted from routing: a decline for a department the clinic does not offer,
 * an answer from bed counts). The notifier delivers it to the referrer; routing gives back the held
 * bed of a declined Task.
 */
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
    task: FhirTask,
    /**
     * Who answered: the clinic itself, or the service on its behalf (a decline for a clinic that is
     * not participating or does not offer the department, an answer from bed counts). Routing gives
     * back a held bed only for a clinic's own decline; it booked or released the beds of its own
     * answers already.
     */
    source: AnswerSource,
  }),
);
export type AdmissionResponseV1 = z.infer<typeof AdmissionResponseV1.payload>;
