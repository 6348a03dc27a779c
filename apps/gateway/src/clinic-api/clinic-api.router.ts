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
import { forwardedCallOf, type ClinicReadAnswer, type IntakeClient } from '../fhir/intake.client';
import { errorHandler } from '../http-errors';
import { jsonBody } from '../json-body';
import { ClinicDocumentPageQuery, DocumentPosition, passedQuery } from './clinic-pages';
import { preconditionOf } from './if-match';

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
 * docs/decisions.md, "Clinics answer": the selected clinic's withdrawal of its acceptance, with the
 * reason the referrer reads (required, as long as an answer's note may be); unknown fields are refused (400).
 */
export const AcceptanceWithdrawal = z.strictObject({
  reason: z
    .string()
    .min(1)
    .max(MAX_NOTE_CHARACTERS)
    .refine((reason) => reason === '' || reason.trim() !== '', 'must not be blank')
    .refine((reason) => !UNSTORABLE_TEXT.test(reason), 'must not contain U+0000 or unpaired surrogates'),
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

const withdrawalTooLarge = () =>
  new HttpError(
    'invalid_request',
    `reason: must be at most ${MAX_NOTE_CHARACTERS} characters (the body is larger than 32 KiB, more than any valid withdrawal)`,
    {
      issues: [{ code: 'too-long', diagnostics: 'the body is larger than any valid withdrawal', expression: 'reason' }],
    },
  );

export const TaskId = z.guid();
const noSuchTask = () => new HttpError('not_found', 'no such Task');
const noSuchDocument = () => new HttpError('not_found', 'no such Task, or no document at this position');

/** The answers below carry patient data. */
const NO_STORE = 'no-store';
/** What express sends for a string body; a Buffer body (intake's bytes) gets no charset from it. */
const JSON_UTF8 = 'application/json; charset=utf-8';
const FHIR_JSON_UTF8 = `${FHIR_JSON}; charset=utf-8`;

/**
 * The clinic API of docs/decisions.md (clinic tokens only, errors as `{"error", "message"}`): read the
 * bundle a Task's clinic was sent and its documents, answer the Task, and, selected, withdraw its
 * acceptance (`POST /tasks/{taskId}/withdraw-acceptance`, `{"reason"}`: docs/decisions.md, "Clinics answer").
 *
 * - `GET /tasks/{taskId}/bundle`: the latest AdmissionRequestBundle version sent, FHIR JSON.
 * - `GET /tasks/{taskId}/documents?_count=&_offset=`: 200 `{total, items, next?}`, a page of the
 *   request's DocumentBundles, oldest first (clinic-pages.ts: at most 16 MiB of bundles); 400 for
 *   another parameter.
 * - `GET /tasks/{taskId}/documents/{n}`: the one DocumentBundle at position n (from 0), FHIR JSON,
 *   read without the others (the inbox's download of one attachment); 404 past the last.
 *
 * Each 404 for another clinic's Task, 410 once the request's patient data was erased (intake's
 * message); intake's JSON goes back unread, not to be stored (`Cache-Control: no-store`).
 */
export function clinicApiRouter(options: {
  intake: IntakeClient;
  broker: Pick<Broker, 'publishAndAwaitReply'>;
  answerTimeoutMs: number;
  logger: Logger;
}): Router {
  const router = Router();
  const pass = (res: Response, answer: ClinicReadAnswer, contentType: string, notFound: () => HttpError) => {
    if (answer.status === 404) throw notFound();
    if (answer.status !== 200) throw new HttpError(answer.status === 410 ? 'gone' : 'invalid_request', answer.message);
    res.status(200).set({ 'content-type': contentType, 'cache-control': NO_STORE }).send(answer.body);
  };
  const taskIdOf = (req: Request): string => {
    const taskId = String(req.params.taskId);
    if (!TaskId.safeParse(taskId).success) throw noSuchTask();
    return taskId;
  };

  router.get('/tasks/:taskId/bundle', async (req: Request, res: Response) => {
    const answer = await options.intake.clinicRead(taskIdOf(req), 'bundle', undefined, forwardedCallOf(req, res));
    pass(res, answer, FHIR_JSON_UTF8, noSuchTask);
  });
  router.get('/tasks/:taskId/documents', async (req: Request, res: Response) => {
    const taskId = taskIdOf(req);
    const answer = await options.intake.clinicRead(taskId, 'documents', passedQuery(ClinicDocumentPageQuery, req.query), forwardedCallOf(req, res));
    pass(res, answer, JSON_UTF8, noSuchTask);
  });
  router.get('/tasks/:taskId/documents/:position', async (req: Request, res: Response) => {
    const taskId = taskIdOf(req);
    const position = DocumentPosition.safeParse(req.params.position);
    if (!position.success) throw noSuchDocument();
    const answer = await options.intake.clinicRead(taskId, `documents/${Number(position.data)}`, undefined, forwardedCallOf(req, res));
    pass(res, answer, FHIR_JSON_UTF8, noSuchDocument);
  });

  /**
   * Sends a clinic's answer to intake and answers with its verdict: 200 with the Task (and its ETag)
   * as the answer left it, the refusals as intake gave them, 202 when intake did not confirm in time.
   */
  const submit = async (
    req: Request,
    res: Response,
    answer: { businessStatus: BusinessStatus; note?: string | undefined; withdrawsAcceptance?: true },
  ): Promise<unknown> => {
    const taskId = String(req.params.taskId);
    if (!TaskId.safeParse(taskId).success) throw noSuchTask();
    const precondition = preconditionOf(req.headers['if-match']);
    const principal = principalOf(res);
    // Who answered and from where, for the change's AuditEvent, as reads record it
    // (docs/data-protection.md, "Audit trail").
    const clientAddress = clientAddressOf(req);
    const payload = {
      taskId,
      clinicIk: principal.ikNumbers[0]!,
      businessStatus: answer.businessStatus,
      source: 'clinic' as const,
      ...(answer.note ? { note: answer.note } : {}),
      ...(answer.withdrawsAcceptance ? { withdrawsAcceptance: true as const } : {}),
      // The person of the clinic, not the party: the AuditEvent names who answered.
      user: principal.userId,
      ...(principal.userName === undefined ? {} : { userName: principal.userName }),
      ...(clientAddress ? { clientAddress } : {}),
      // Checked by intake where it stores the answer, so that nothing comes between check and write.
      ...(precondition.kind === 'tags' ? { ifMatch: precondition.tags } : {}),
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
    // The Task's tag after the answer, or the current one when If-Match named another (412).
    if (verdict?.success && verdict.data.taskTag) res.setHeader('ETag', `W/"${verdict.data.taskTag}"`);
    // Intake refuses an answer as not found (another clinic's Task), as a conflict (cancelled,
    // revoked, or a withdrawal by a clinic that is not selected) or as a failed precondition
    // (If-Match names a tag the Task no longer has).
    if (verdict?.success && verdict.data.outcome === 'rejected') throw refusedByIntake(verdict.data);
    if (verdict?.success && verdict.data.task) return res.status(200).type(FHIR_JSON).send(JSON.stringify(verdict.data.task));
    return res.status(202).json({ status: 'queued', message: 'the answer is queued; the Task shows it shortly' });
  };

  const answerBody: ErrorRequestHandler = (error: unknown, _req, _res, next) =>
    next(classifyError(error).code === 'payload_too_large' ? answerTooLarge() : error);
  router.post('/tasks/:taskId/answer', ...jsonBody({ limit: MAX_ANSWER_BYTES }), answerBody, async (req: Request, res: Response) => {
    if (!TaskId.safeParse(String(req.params.taskId)).success) throw noSuchTask();
    await submit(req, res, HttpError.parseInput(ClinicAnswer, req.body));
  });
  // The selected clinic's one action that lifts the selection: sent as a decline with the reason as its note.
  const withdrawalBody: ErrorRequestHandler = (error: unknown, _req, _res, next) =>
    next(classifyError(error).code === 'payload_too_large' ? withdrawalTooLarge() : error);
  router.post('/tasks/:taskId/withdraw-acceptance', ...jsonBody({ limit: MAX_ANSWER_BYTES }), withdrawalBody, async (req: Request, res: Response) => {
    if (!TaskId.safeParse(String(req.params.taskId)).success) throw noSuchTask();
    const { reason } = HttpError.parseInput(AcceptanceWithdrawal, req.body);
    await submit(req, res, { businessStatus: 'declined', note: reason, withdrawsAcceptance: true });
  });
  router.use(errorHandler(options.logger));
  return router;
}
