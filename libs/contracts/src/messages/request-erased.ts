import { z } from 'zod';
import { defineMessage } from '../envelope';
import { IkNumber } from './ik-number';

/**
 * Intake → the services that keep a copy of a request's data (the notifier and routing): intake has
 * erased the patient data of a request (at the referrer's demand, the operator's, or when its
 * retention ended) and kept only a tombstone. Each service erases its own copy: the notifier
 * discards the request's pending webhook events and the notes of its stored events; routing gives
 * back the beds held for it and drops department and dates from its notification log.
 * Identifiers only: the message itself carries nothing about the patient.
 */
export const RequestErasedV1 = defineMessage(
  'request.erased',
  1,
  z.object({
    requestIdentifier: z.string().min(1),
    referrerPartyId: z.string().min(1),
    /** Why: the referrer asked for it, or the retention period ended. */
    reason: z.enum(['requested', 'retention']),
    erasedAt: z.iso.datetime({ offset: true }),
    tasks: z.array(z.object({ taskId: z.uuid(), clinicIk: IkNumber })),
  }),
);
export type RequestErasedV1 = z.infer<typeof RequestErasedV1.payload>;
