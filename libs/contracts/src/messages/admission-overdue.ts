import { z } from 'zod';
import { defineMessage } from '../envelope';
import { FhirTask } from './fhir-task';

/**
 * Intake → notifier. Only intake publishes it, once it has committed that a clinic's Task passed its
 * answer deadline unanswered (docs/api.md, "Answer deadlines"): exactly once per Task and deadline,
 * whichever intake replica marked it. The notifier delivers it to the referrer's `AdmissionOverdue`
 * subscription, in a sequence of its own, so that the `AdmissionResponse` stream stays as it is.
 */
export const AdmissionOverdueV1 = defineMessage(
  'admission.overdue',
  1,
  z.object({
    /** Stable id of the event: the webhook-id of every delivery attempt. */
    eventId: z.uuid(),
    referrerPartyId: z.string().min(1),
    /** The ServiceRequest identifier, the per-request ordering key. */
    requestIdentifier: z.string().min(1),
    /** The FHIR Task as marked: `restriction.period.end` the deadline, the overdue extension set. */
    task: FhirTask,
    /** The deadline that passed (ISO 8601 instant). */
    deadline: z.iso.datetime({ offset: true }),
  }),
);
export type AdmissionOverdueV1 = z.infer<typeof AdmissionOverdueV1.payload>;
