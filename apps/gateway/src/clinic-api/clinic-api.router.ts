import express, { Router, type Request, type Response } from 'express';
import type { Logger } from 'pino';
import { z } from 'zod';
import { BusinessStatus, ClinicAnswerSubmittedV1, IntakeVerdictV1 } from '@bedrequest/contracts';
import { UNSTORABLE_TEXT } from '@bedrequest/fhir-model';
import { HttpError, jsonErrorHandler } from '@bedrequest/http';
import { BrokerUnavailableError, PublishRejectedError, type Broker } from '@bedrequest/messaging';
import { CORRELATION_HEADER } from '@bedrequest/observability';
import { principalOf } from '@bedrequest/tokens';
import { refusalErrorCode } from '../fhir/bundle.router';
import { FHIR_JSON } from '../fhir/fhir-response';
import { forwardedCallOf, type IntakeClient } from '../fhir/intake.client';

/** decisions.md, "Clinics answer": the answer body; a note of at most 4000 characters. */
export const ClinicAnswer = z.object({
  businessStatus: BusinessStatus,
  note: z
    .string()
    .max(4000, 'note: at most 4000 characters')
    .refine((note) => !UNSTORABLE_TEXT.test(note), 'note: must not contain U+0000 or unpaired surrogates')
    .optional(),
});

export const TaskId = z.guid();
const noSuchTask = () => new HttpError('not_found', 'no such Task');

/**
 * The clinic API of decisions.md (clinic tokens only, errors as `{"error", "message"}`): read the
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
    return what === 'bundle' ? res.status(200).type(FHIR_JSON).send(JSON.stringify(answer.body)) : res.status(200).json(answer.body);
  };
  router.get('/tasks/:taskId/bundle', read('bundle'));
  router.get('/tasks/:taskId/documents', read('documents'));

  router.post('/tasks/:taskId/answer', express.json({ limit: '64kb' }), async (req, res) => {
    const taskId = String(req.params.taskId);
    if (!TaskId.safeParse(taskId).success) throw noSuchTask();
    const body = ClinicAnswer.safeParse(req.body);
    if (!body.success) {
      const issue = body.error.issues[0];
      const message = issue?.path[0] === 'businessStatus' ? `businessStatus must be one of ${BusinessStatus.options.join(', ')}` : (issue?.message ?? 'invalid body');
      throw new HttpError('invalid_request', message);
    }
    const principal = principalOf(res);
    const payload = { taskId, clinicIk: principal.ikNumbers[0]!, businessStatus: body.data.businessStatus, source: 'clinic' as const, ...(body.data.note ? { note: body.data.note } : {}) };
    let reply;
    try {
      ({ reply } = await options.broker.publishAndAwaitReply(ClinicAnswerSubmittedV1, payload, { correlationId: String(req.headers[CORRELATION_HEADER]) }, options.answerTimeoutMs));
    } catch (error) {
      if (error instanceof BrokerUnavailableError || error instanceof PublishRejectedError) {
        throw new HttpError('unavailable', 'the answer could not be stored; please retry', { retryAfterSeconds: 5, cause: error });
      }
      throw error;
    }
    const verdict = reply && IntakeVerdictV1.payload.safeParse(reply.payload);
    // Intake refuses an answer as not found (another clinic's Task) or as a conflict (cancelled, revoked).
    if (verdict?.success && verdict.data.outcome === 'rejected') throw new HttpError(refusalErrorCode(verdict.data), verdict.data.issues[0]?.diagnostics ?? 'refused');
    if (verdict?.success && verdict.data.task) return res.status(200).type(FHIR_JSON).send(JSON.stringify(verdict.data.task));
    return res.status(202).json({ status: 'queued', message: 'the answer is queued; the Task shows it shortly' });
  });
  router.use(jsonErrorHandler(options.logger));
  return router;
}
