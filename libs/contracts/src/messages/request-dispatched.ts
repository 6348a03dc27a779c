import { z } from 'zod';
import { defineMessage } from '../envelope';
import { IkNumber } from './ik-number';

/**
 * Intake → routing: a request changed and these clinics must hear about it. Routing notifies the
 * clinics and answers on their behalf where the registry says so (department not offered,
 * automatic bed-count answers, bed reservations on selection).
 */
export const RequestDispatchedV1 = defineMessage(
  'request.dispatched',
  1,
  z.object({
    requestIdentifier: z.string().min(1),
    referrerPartyId: z.string().min(1),
    version: z.number().int().positive(),
    change: z.enum(['created', 'supplemented', 'selected', 'selection-withdrawn', 'revoked']),
    /** Resolved from performerType (specialty first, then department key). */
    departmentCode: z.string().optional(),
    specialty: z.string().optional(),
    /** Desired admission date (YYYY-MM-DD) when given. */
    occurrenceDate: z.string().optional(),
    tasks: z.array(
      z.object({
        taskId: z.uuid(),
        clinicIk: IkNumber,
        /** What this change means for the clinic. */
        action: z.enum(['answer-requested', 'selected', 'cancelled']),
        /**
         * Set when intake already answered for the clinic (decisions.md: a requested clinic that
         * does not offer the resolved department is declined automatically): routing records it
         * and answers nothing itself. Added after version 1 was first published (optional).
         */
        declined: z.enum(['not-participating', 'department-not-offered']).optional(),
      }),
    ),
  }),
);
export type RequestDispatchedV1 = z.infer<typeof RequestDispatchedV1.payload>;
