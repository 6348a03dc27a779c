import { z } from 'zod';
import { defineMessage } from '../envelope';
import { BusinessStatus } from '../codes';
import { IkNumber } from './ik-number';
import { ClientAddress } from './submitter';

/** Who answered a Task: the clinic itself, or the service on its behalf (docs/decisions.md, "Clinics answer"). */
export const AnswerSource = z.enum(['clinic', 'automatic']);
export type AnswerSource = z.infer<typeof AnswerSource>;

const AnswerFields = z.object({
  taskId: z.uuid(),
  /** The IK of the answering clinic; intake refuses an answer to another clinic's Task. */
  clinicIk: IkNumber,
  businessStatus: BusinessStatus,
  note: z.string().max(4000).optional(),
});

/**
 * A clinic's answer to its Task: from the clinic API (gateway → intake, request/reply) or made by
 * the service on the clinic's behalf (routing → intake: an answer from bed counts).
 */
export const ClinicAnswerSubmittedV1 = defineMessage(
  'clinic.answer.submitted',
  1,
  z.discriminatedUnion('source', [
    AnswerFields.extend({
      source: z.literal('clinic'),
      /**
       * Who answered, for the change's AuditEvent: the person of the clinic (the access token's
       * `act.sub`, or its `sub` from an earlier gateway, whose party had one user), their display
       * name where the token names one, and where the clinic connected from (absent when the
       * gateway no longer knew the connection's address).
       */
      user: z.string().min(1),
      userName: z.string().min(1).max(200).optional(),
      clientAddress: ClientAddress.optional(),
    }),
    AnswerFields.extend({
      source: z.literal('automatic'),
      /** The request version answered: intake refuses the answer when the clinic was sent a newer one meanwhile. */
      answersVersion: z.number().int().positive(),
    }),
  ]),
);
export type ClinicAnswerSubmittedV1 = z.infer<typeof ClinicAnswerSubmittedV1.payload>;
