import { z } from 'zod';
import { defineMessage } from '../envelope';
import { FhirTask } from './fhir-task';

export const VerdictIssue = z.object({
  code: z.string(),
  diagnostics: z.string(),
  expression: z.string().optional(),
});

/**
 * Why intake refused a message (docs/decisions.md, "Requests", "Clinics answer"): `invalid` (the bundle
 * breaks a rule, e.g. a selection without complete patient data), `forbidden` (another referrer's
 * request), `not-found` (no such request, or not this clinic's Task), `conflict` (the request's
 * state does not allow it), `precondition-failed` (a clinic answer whose `ifMatch` names none of the
 * Task's current tag: docs/api.md, "Clinic API"). The gateway chooses the HTTP answer for each.
 */
export const VerdictRefusal = z.enum(['invalid', 'forbidden', 'not-found', 'conflict', 'precondition-failed']);
export type VerdictRefusal = z.infer<typeof VerdictRefusal>;

const VerdictDetails = z.object({
  issues: z.array(VerdictIssue),
  requestIdentifier: z.string().optional(),
  /** The Task after a clinic answer. */
  task: FhirTask.optional(),
  /** The entity tag of the Task after a clinic answer, or the current one when its `ifMatch` named another (the answer's `ETag`). */
  taskTag: z.string().optional(),
});

/**
 * Intake → gateway: the reply to a submitted bundle or clinic answer, sent after intake committed
 * (or refused) it. What intake did with the message: took it, found nothing to change, or refused
 * it, and then why (`refusal`).
 */
export const IntakeVerdictV1 = defineMessage(
  'intake.verdict',
  1,
  z.discriminatedUnion('outcome', [
    VerdictDetails.extend({ outcome: z.enum(['accepted', 'unchanged']) }),
    VerdictDetails.extend({ outcome: z.literal('rejected'), refusal: VerdictRefusal }),
  ]),
);
export type IntakeVerdictV1 = z.infer<typeof IntakeVerdictV1.payload>;
