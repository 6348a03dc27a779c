import express, { type Request, type RequestHandler, type Response } from 'express';
import { HttpError } from '@bedrequest/http';
import { chargeUnlengthedBody } from './rate-limit';

export const JSON_CONTENT_TYPES = ['application/json'] as const;

/**
 * What every route that takes a JSON body checks before reading it: a POST or PUT without a body
 * is 400 "the request body is empty" (rather than a complaint about its content type, which an
 * empty request usually lacks), one of another content type 415. Thrown as HttpErrors, which the
 * gateway's error handler answers in the endpoint's form.
 */
export function requireJsonBody(contentTypes: readonly string[] = JSON_CONTENT_TYPES): RequestHandler {
  const expected = `Content-Type must be ${contentTypes.join(' or ')}`;
  return (req, _res, next) => {
    if (hasNoBody(req)) return next(new HttpError('invalid_request', 'the request body is empty'));
    if (!req.is([...contentTypes])) return next(new HttpError('unsupported_media_type', expected));
    next();
  };
}

/**
 * A JSON body, checked (requireJsonBody) and parsed within `limit` bytes. express.json's own refusals
 * (not JSON: 400, over the limit: 413, an unknown charset: 415) go to the error handler as well. A
 * body sent without a length is charged to the party's byte budget once read, before it is parsed
 * (rate-limit.ts); one with a length was charged before it was read.
 */
export function jsonBody(options: { limit: number; contentTypes?: readonly string[] }): RequestHandler[] {
  const contentTypes = options.contentTypes ?? JSON_CONTENT_TYPES;
  return [
    requireJsonBody(contentTypes),
    express.json({
      type: [...contentTypes],
      limit: options.limit,
      strict: true,
      // An error thrown here (the 429 of an exhausted budget) reaches the error handler as it is.
      verify: (_req, res, body) => chargeUnlengthedBody(res as Response, body.length),
    }),
  ];
}

/** Neither a length nor chunked transfer (as type-is' hasBody reads it), or a length of 0. */
function hasNoBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (length === undefined || Number(length) === 0);
}
