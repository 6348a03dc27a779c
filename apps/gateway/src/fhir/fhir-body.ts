import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { badRequest, outcome, tooLarge } from '@bedrequest/fhir-model';
import { sendOutcome } from './fhir-response';

/** decisions.md, "Limits": a bundle over 10 MiB is refused with 413. */
export const MAX_BUNDLE_BYTES = 10 * 1024 * 1024;

/**
 * Parses a FHIR JSON body (`application/fhir+json` or `application/json`) of at most 10 MiB and
 * turns every parsing failure into an OperationOutcome: 415 wrong content type, 413 too large,
 * 400 malformed JSON. Never a 5xx for what the caller sent.
 */
export function fhirJsonBody(): RequestHandler[] {
  const parse = express.json({ type: ['application/fhir+json', 'application/json'], limit: MAX_BUNDLE_BYTES, strict: true });
  const requireJson: RequestHandler = (req, res, next) => {
    if (!req.is(['application/fhir+json', 'application/json'])) {
      return sendOutcome(res, outcome([{ code: 'not-supported', diagnostics: 'Content-Type must be application/fhir+json (or application/json)' }]), 415);
    }
    next();
  };
  const parseErrors = (error: { type?: string; status?: number; message?: string }, _req: Request, res: Response, next: NextFunction) => {
    if (error.type === 'entity.too.large') return sendOutcome(res, tooLarge(`the body exceeds ${MAX_BUNDLE_BYTES} bytes (10 MiB)`));
    if (error.type === 'entity.parse.failed') return sendOutcome(res, badRequest('the body is not valid JSON', 'Bundle'));
    if (error.status && error.status >= 400 && error.status < 500) return sendOutcome(res, badRequest(error.message ?? 'unreadable body'), error.status);
    next(error);
  };
  return [requireJson, parse, parseErrors as unknown as RequestHandler];
}
