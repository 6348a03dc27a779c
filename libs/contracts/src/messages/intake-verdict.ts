import { z } from 'zod';
import { defineMessage } from '../envelope';
import { FhirTask } from './fhir-task';

export const VerdictIssue = z.object({
  code: z.string(),
  diagnostics: z.string(),
  expression: z.string().optional(),
});

/**
 * Intake → gateway: the reply to a submitted bundle or clinic answer, sent after intake committed
 * (or refused) it. `status` is the HTTP status the caller gets (decisions.md: 202, 400, 403, 404, 409).
 */
export const IntakeVerdictV1 = defineMessage(
  'intake.verdict',
  1,
  z.object({
    status: z.number().int().min(200).max(599),
    outcome: z.enum(['accepted', 'unchanged', 'rejected']),
    issues: z.array(VerdictIssue),
    requestIdentifier: z.string().optional(),
    /** The Task after a clinic answer. */
    task: FhirTask.optional(),
  }),
);
export type IntakeVerdictV1 = z.infer<typeof IntakeVerdictV1.payload>;
