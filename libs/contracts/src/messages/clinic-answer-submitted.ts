import { z } from 'zod';
import { defineMessage } from '../envelope';
import { BusinessStatus } from '../codes';
import { IkNumber } from './ik-number';
import { ClientAddress } from './submitter';

/** Who answered a Task: the clinic itself, or the service on its behalf (docs/decisions.md, "Clinics answer"). */
export const AnswerSource = z.enum(['clinic', 'automatic']);
export type AnswerSource = z.infer<typeof AnswerSource>;

/** At most this many entity tags in one answer's `If-Match`, each at most this long (a Task's own is about 10 characters). */
export const IF_MATCH_MAX_TAGS = 20;
export const TASK_TAG_MAX_LENGTH = 64;

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
      /**
       * The Task's entity tags the clinic answers (its `If-Match`, docs/api.md "Clinic API"): the
       * opaque tags, without `W/` and quotes. Intake takes the answer only while the Task's current
       * tag is one of them, in the transaction that stores it; absent, the answer is taken on
       * whatever the Task is now.
       */
      ifMatch: z.array(z.string().max(TASK_TAG_MAX_LENGTH)).min(1).max(IF_MATCH_MAX_TAGS).optional(),
      /**
       * The selected clinic withdraws its acceptance (docs/decisions.md, "Clinics answer"): sent with
       * `businessStatus` `declined` and the reason as `note`. Intake lifts the selection and the Task
       * becomes `rejected`; it refuses this on a Task that is not the selected one. An intake of the
       * previous release drops the field and stores a plain `declined` answer (docs/compatibility.md).
       */
      withdrawsAcceptance: z.literal(true).optional(),
    }),
    AnswerFields.extend({
      source: z.literal('automatic'),
      /** The request version answered: intake refuses the answer when the clinic was sent a newer one meanwhile. */
      answersVersion: z.number().int().positive(),
    }),
  ]),
);
export type ClinicAnswerSubmittedV1 = z.infer<typeof ClinicAnswerSubmittedV1.payload>;
