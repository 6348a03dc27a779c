import express, { type NextFunction, type Request, type RequestHandler, type Response } from 'express';
import { outcome } from '@bedrequest/fhir-model';
import { classifyError, outcomeOf } from '@bedrequest/http';
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
  // The same classification as every JSON endpoint (@bedrequest/http), answered as an OperationOutcome.
  const parseErrors = (error: unknown, _req: Request, res: Response, next: NextFunction) => {
    const refused = classifyError(error);
    if (refused.status >= 500) return next(error);
    sendOutcome(res, outcomeOf(refused, refused.code === 'invalid_request' ? 'Bundle' : undefined), refused.status);
  };
  return [requireJson, parse, parseErrors as unknown as RequestHandler];
}
