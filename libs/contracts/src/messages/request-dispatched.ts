import { z } from 'zod';
import { defineMessage } from '../envelope';
import { IkNumber } from './ik-number';

/** How a request changed (spec, "States and transitions"). */
export const RequestChange = z.enum(['created', 'supplemented', 'selected', 'selection-withdrawn', 'revoked']);
export type RequestChange = z.infer<typeof RequestChange>;

/** What a request's change means for one clinic, and so what routing tells it. */
export const DispatchAction = z.enum(['answer-requested', 'selected', 'cancelled']);
export type DispatchAction = z.infer<typeof DispatchAction>;

/** Why intake declined for a clinic at once (docs/decisions.md, "Clinics answer"). */
export const AutomaticDeclineReason = z.enum(['not-participating', 'department-not-offered']);
export type AutomaticDeclineReason = z.infer<typeof AutomaticDeclineReason>;

/**
 * Intake → routing: a request changed and these clinics must hear about it. Routing notifies the
 * clinics, records the declines intake made, and answers on their behalf where the registry says so
 * (automatic bed-count answers, bed reservations on selection).
 */
export const RequestDispatchedV1 = defineMessage(
  'request.dispatched',
  1,
  z.object({
    requestIdentifier: z.string().min(1),
    referrerPartyId: z.string().min(1),
    version: z.number().int().positive(),
    change: RequestChange,
    /** Resolved from performerType (specialty first, then department key). */
    departmentCode: z.string(),
    specialty: z.string().optional(),
    /** Desired admission date (YYYY-MM-DD) when given. */
    occurrenceDate: z.string().optional(),
    tasks: z.array(
      z.object({
        taskId: z.uuid(),
        clinicIk: IkNumber,
        /** What this change means for the clinic. */
        action: DispatchAction,
        /**
         * Set when intake declined for the clinic at once (docs/decisions.md: a requested clinic that is
         * not participating or does not offer the resolved department is declined automatically):
         * routing records it and answers nothing itself. Absent for every other clinic.
         */
        declined: AutomaticDeclineReason.optional(),
      }),
    ),
  }),
);
export type RequestDispatchedV1 = z.infer<typeof RequestDispatchedV1.payload>;
