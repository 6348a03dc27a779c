import express, { type Request, type RequestHandler, type Response } from 'express';
import { HttpError } from '@bedrequest/http';
import { nestedDeeperThan } from './json-depth';
import { chargeUnlengthedBody } from './rate-limit';

export const JSON_CONTENT_TYPES = ['application/json'] as const;

/**
 * How deep a JSON body may nest, checked before it is parsed. Parsing deep nesting costs far more
 * than its bytes: a body of 2 MB nested a million levels took JSON.parse seconds of the event loop
 * (hundreds of times what 2 MB of a bundle take), and a body of 200 kB nested 100,000 levels a third
 * of a second. Twice the FHIR guard's 32 levels (libs/fhir-model, json-guard.ts), which still refuses
 * a bundle nested 33 to 64 levels with the path of the element once it is parsed.
 */
export const MAX_JSON_DEPTH = 64;

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
 * (not JSON: 400, over the limit: 413, an unknown charset: 415) go to the error handler as well.
 * Once read and before it is parsed: a body sent without a length is charged to the party's byte
 * budget (rate-limit.ts; one with a length was charged before it was read), and a body nested
 * deeper than MAX_JSON_DEPTH is 400.
 */
export function jsonBody(options: { limit: number; contentTypes?: readonly string[] }): RequestHandler[] {
  const contentTypes = options.contentTypes ?? JSON_CONTENT_TYPES;
  return [
    requireJsonBody(contentTypes),
    express.json({
      type: [...contentTypes],
      limit: options.limit,
      strict: true,
      // An HttpError thrown here reaches the error handler as it is.
      verify: (_req, res, body, encoding) => {
        chargeUnlengthedBody(res as Response, body.length);
        if (nestedDeeperThan(asUtf8(body, encoding), MAX_JSON_DEPTH)) {
          throw new HttpError('invalid_request', `the body is nested deeper than ${MAX_JSON_DEPTH} levels`);
        }
      },
    }),
  ];
}

/** Neither a length nor chunked transfer (as type-is' hasBody reads it), or a length of 0. */
function hasNoBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (length === undefined || Number(length) === 0);
}

/**
 * The body in UTF-8, for its depth to be read byte by byte. Another charset body-parser reads
 * (`utf-*`) is decoded first: UTF-16 by TextDecoder; one it does not know (UTF-32, UTF-7) is 415,
 * as JSON (RFC 8259) and FHIR are UTF-8 anyway, and its depth could not be read before parsing.
 */
function asUtf8(body: Buffer, encoding: string): Buffer {
  if (encoding === 'utf-8' || encoding === 'utf8') return body;
  try {
    return Buffer.from(new TextDecoder(encoding).decode(body));
  } catch (error) {
    // Thrown by TextDecoder's constructor for an encoding it does not know; decoding itself replaces what it cannot read.
    if ((error as { code?: unknown }).code === 'ERR_ENCODING_NOT_SUPPORTED') {
      throw new HttpError('unsupported_media_type', `unsupported charset "${encoding.toUpperCase()}"`);
    }
    throw error;
  }
}
