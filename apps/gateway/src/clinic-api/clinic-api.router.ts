import { Router, type ErrorRequestHandler, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { BusinessStatus, ClinicAnswerSubmittedV1, IntakeVerdictV1 } from '@bedrequest/contracts';
import { UNSTORABLE_TEXT } from '@bedrequest/fhir-model';
import { classifyError, HttpError } from '@bedrequest/http';
import { BrokerUnavailableError, PublishRejectedError, type Broker } from '@bedrequest/messaging';
import { CORRELATION_HEADER, clientAddressOf } from '@bedrequest/observability';
import { principalOf } from '@bedrequest/tokens';
import { refusedByIntake } from '../fhir/bundle.router';
import { FHIR_JSON } from '../fhir/fhir-response';
import { forwardedCallOf, type IntakeClient } from '../fhir/intake.client';
import { errorHandler } from '../http-errors';
import { jsonBody } from '../json-body';

/** docs/decisions.md, "Clinics answer": a note of at most 4000 characters. */
export const MAX_NOTE_CHARACTERS = 4000;

/** docs/decisions.md, "Clinics answer": the answer body; unknown fields are refused (400). */
export const ClinicAnswer = z.strictObject({
  businessStatus: BusinessStatus,
  note: z
    .string()
    .max(MAX_NOTE_CHARACTERS)
    .refine((note) => !UNSTORABLE_TEXT.test(note), 'must not contain U+0000 or unpaired surrogates')
    .optional(),
});

/**
 * The largest answer body read. A note of 4000 characters takes at most 24,000 bytes of JSON (6
 * bytes for a character written as an escape, \u0000), the rest of the answer well under 100; a
 * larger body cannot be a valid answer, so it is refused like a note that is too long (400, as
 * docs/decisions.md documents it), not as a body too large for the gateway (413).
 */
const MAX_ANSWER_BYTES = 32 * 1024;
const answerTooLarge = () =>
  new HttpError('invalid_request', `note: must be at most ${MAX_NOTE_CHARACTERS} characters (the body is larger than 32 KiB, more than any valid answer)`, {
    issues: [{ code: 'too-long', diagnostics: 'the body is larger than any valid answer', expression: 'note' }],
  });

export const TaskId = z.guid();
const noSuchTask = () => new HttpError('not_found', 'no such Task');

/**
 * The clinic API of docs/decisions.md (clinic tokens only, errors as `{"error", "message"}`): read the
 * bundle a Task's clinic was sent, its documents, and answer the Task.
 */
export function clinicApiRouter(options: {
  intake: IntakeClient;
  broker: Pick<Broker, 'publishAndAwaitReply'>;
  answerTimeoutMs: number;
  logger: Logger;
}): Router {
  const router = Router();
  const read = (what: 'bundle' | 'documents') => async (req: Request, res: Response) => {
    const taskId = String(req.params.taskId);
    if (!TaskId.safeParse(taskId).success) throw noSuchTask();
    const answer = await options.intake.clinicRead(taskId, what, forwardedCallOf(req, res));
    if (answer.status === 404) throw noSuchTask();
    if (answer.status === 410) throw new HttpError('gone', answer.body.issue[0].diagnostics);
    return what === 'bundle' ? res.status(200).type(FHIR_JSON).send(JSON.stringify(answer.body)) : res.status(200).json(answer.body);
  };
  router.get('/tasks/:taskId/bundle', read('bundle'));
  router.get('/tasks/:taskId/documents', read('documents'));

  const answerBody: ErrorRequestHandler = (error: unknown, _req, _res, next) =>
    next(classifyError(error).code === 'payload_too_large' ? answerTooLarge() : error);
  router.post('/tasks/:taskId/answer', ...jsonBody({ limit: MAX_ANSWER_BYTES }), answerBody, async (req: Request, res: Response) => {
    const taskId = String(req.params.taskId);
    if (!TaskId.safeParse(taskId).success) throw noSuchTask();
    const answer = HttpError.parseInput(ClinicAnswer, req.body);
    const principal = principalOf(res);
    // Who answered and from where, for the change's AuditEvent (issue 14), as reads record it.
    const clientAddress = clientAddressOf(req);
    const payload = {
      taskId,
      clinicIk: principal.ikNumbers[0]!,
      businessStatus: answer.businessStatus,
      source: 'clinic' as const,
      ...(answer.note ? { note: answer.note } : {}),
      user: principal.partyId,
      ...(clientAddress ? { clientAddress } : {}),
    };
    let reply;
    try {
      ({ reply } = await options.broker.publishAndAwaitReply(
        ClinicAnswerSubmittedV1,
        payload,
        { correlationId: String(req.headers[CORRELATION_HEADER]) },
        options.answerTimeoutMs,
      ));
    } catch (error) {
      if (error instanceof BrokerUnavailableError || error instanceof PublishRejectedError) {
        throw new HttpError('unavailable', 'the answer could not be stored; please retry', { retryAfterSeconds: 5, cause: error });
      }
      throw error;
    }
    const verdict = reply && IntakeVerdictV1.payload.safeParse(reply.payload);
    // Intake refuses an answer as not found (another clinic's Task) or as a conflict (cancelled, revoked).
    if (verdict?.success && verdict.data.outcome === 'rejected') throw refusedByIntake(verdict.data);
    if (verdict?.success && verdict.data.task) return res.status(200).type(FHIR_JSON).send(JSON.stringify(verdict.data.task));
    return res.status(202).json({ status: 'queued', message: 'the answer is queued; the Task shows it shortly' });
  });
  router.use(errorHandler(options.logger));
  return router;
}
