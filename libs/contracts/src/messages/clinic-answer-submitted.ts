import { z } from 'zod';
import { defineMessage } from '../envelope';
import { BusinessStatus } from '../codes';
import { IkNumber } from './ik-number';
import { ClientAddress } from './submitter';

/** Who answered a Task: the clinic itself, or the service on its behalf (decisions.md, "Clinics answer"). */
export const AnswerSource = z.enum(['clinic', 'automatic']);
export type AnswerSource = z.infer<typeof AnswerSource>;

/**
 * A clinic's answer to its Task: from the clinic API (gateway → intake, request/reply) or made by
 * the service on the clinic's behalf (routing → intake: automatic decline or bed-count answer).
 */
export const ClinicAnswerSubmittedV1 = defineMessage(
  'clinic.answer.submitted',
  1,
  z.object({
    taskId: z.uuid(),
    /** The IK of the answering clinic; intake refuses an answer to another clinic's Task. */
    clinicIk: IkNumber,
    businessStatus: BusinessStatus,
    note: z.string().max(4000).optional(),
    source: AnswerSource,
    /** For automatic answers: the request version answered, so a stale answer is ignored. */
    answersVersion: z.number().int().positive().optional(),
    /**
     * For the clinic's own answers, who answered, for the change's AuditEvent (issue 14): the
     * access token's `sub`, the user reads record, and where the clinic connected from. Optional:
     * automatic answers have neither, and gateways before it sent neither (their messages may still
     * be queued during a deployment).
     */
    user: z.string().min(1).optional(),
    clientAddress: ClientAddress.optional(),
  }),
);
export type ClinicAnswerSubmittedV1 = z.infer<typeof ClinicAnswerSubmittedV1.payload>;
