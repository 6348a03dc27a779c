import { z } from 'zod';
import { defineMessage } from '../envelope';
import { FhirTask } from './fhir-task';

export const VerdictIssue = z.object({
  code: z.string(),
  diagnostics: z.string(),
  expression: z.string().optional(),
});

/** What intake did with a message: took it, found nothing to change, or refused it. */
export const VerdictOutcome = z.enum(['accepted', 'unchanged', 'rejected']);
export type VerdictOutcome = z.infer<typeof VerdictOutcome>;

/**
 * Why intake refused a message (decisions.md, "Requests", "Clinics answer"): `invalid` (the bundle
 * breaks a rule, e.g. a selection without complete patient data), `forbidden` (another referrer's
 * request), `not-found` (no such request, or not this clinic's Task), `conflict` (the request's
 * state does not allow it). The gateway chooses the HTTP answer for each.
 */
export const VerdictRefusal = z.enum(['invalid', 'forbidden', 'not-found', 'conflict']);
export type VerdictRefusal = z.infer<typeof VerdictRefusal>;

/**
 * Intake → gateway: the reply to a submitted bundle or clinic answer, sent after intake committed
 * (or refused) it.
 */
export const IntakeVerdictV1 = defineMessage(
  'intake.verdict',
  1,
  z.object({
    /**
     * @deprecated Read `outcome` and `refusal`. The HTTP status the caller got from gateways older
     * than `refusal` (`legacyVerdictStatus`); intake sends it until none of them runs, and
     * intake.verdict.v2 leaves it out.
     */
    status: z.number().int().min(200).max(599),
    outcome: VerdictOutcome,
    /**
     * Why a `rejected` message was refused. Added after version 1 was first published (optional):
     * an older intake's verdict says it in `status` only.
     */
    refusal: VerdictRefusal.optional(),
    issues: z.array(VerdictIssue),
    requestIdentifier: z.string().optional(),
    /** The Task after a clinic answer. */
    task: FhirTask.optional(),
  }),
);
export type IntakeVerdictV1 = z.infer<typeof IntakeVerdictV1.payload>;

/** A verdict as intake decides it: without the deprecated `status`, which `withLegacyStatus` adds. */
export type IntakeVerdict = Omit<IntakeVerdictV1, 'status'>;

/**
 * The deprecated `status` of a verdict: what gateways that predate `refusal` answer with
 * (decisions.md: 200 with the Task for an applied answer, 202 for a bundle taken or unchanged, 400,
 * 403, 404 or 409 for a refusal).
 */
export function legacyVerdictStatus(verdict: IntakeVerdict): number {
  if (verdict.outcome !== 'rejected') return verdict.task ? 200 : 202;
  const byRefusal: Record<VerdictRefusal, number> = { invalid: 400, forbidden: 403, 'not-found': 404, conflict: 409 };
  return byRefusal[verdict.refusal ?? 'invalid'];
}

/** The verdict as version 1 carries it: intake fills in `status`, so that gateways can be deployed after it. */
export function withLegacyStatus(verdict: IntakeVerdict): IntakeVerdictV1 {
  return { status: legacyVerdictStatus(verdict), ...verdict };
}
