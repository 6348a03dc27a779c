import type { RequestHandler } from 'express';

/** The header that tells a sandbox's answers from production's (docs/sandbox.md, "The header"). */
export const ENVIRONMENT_HEADER = 'Bedrequest-Environment';

/**
 * Sets `Bedrequest-Environment: sandbox` on every answer of the public port, before any route or
 * refusal can answer: a client that was pointed at the sandbox by mistake sees it on a 404, a 401
 * or a 429 as well as on a FHIR Bundle.
 */
export function markSandbox(): RequestHandler {
  return (_req, res, next) => {
    res.setHeader(ENVIRONMENT_HEADER, 'sandbox');
    next();
  };
}
