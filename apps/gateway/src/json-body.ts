import express, { type Request, type RequestHandler, type Response } from 'express';
import { HttpError } from '@bedrequest/http';
import { exceededShapeLimit, type JsonShapeLimits } from './json-shape';
import { chargeUnlengthedBody } from './rate-limit';

export const JSON_CONTENT_TYPES = ['application/json'] as const;

/**
 * The shape a JSON body may have, checked before it is parsed: parsing and validating some shapes
 * cost far more than their bytes. A body of 2 MB nested a million levels took JSON.parse seconds of
 * the event loop (one of 200 kB nested 100,000 levels a third of a second); a bundle with one object
 * of 100,000 keys (1.7 MB) most of a second to parse and validate, against tens of milliseconds for
 * the same keys in a hundred objects. Both bounds are generous for every body the API takes: the
 * FHIR guard (libs/fhir-model, json-guard.ts and bounds.ts) allows 32 levels and at most 200 items
 * per array, no element of the profiles has a hundred keys, and the guard refuses what lies between
 * with the element's path once the bundle is parsed.
 */
export const JSON_SHAPE_LIMITS: JsonShapeLimits = { depth: 64, members: 1_000 };

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
 * budget (rate-limit.ts; one with a length was charged before it was read), and a body beyond
 * JSON_SHAPE_LIMITS is 400.
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
        const exceeded = exceededShapeLimit(asUtf8(body, encoding), JSON_SHAPE_LIMITS);
        if (exceeded) throw shapeRefusal(exceeded);
      },
    }),
  ];
}

/** Neither a length nor chunked transfer (as type-is' hasBody reads it), or a length of 0. */
function hasNoBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] === undefined && (length === undefined || Number(length) === 0);
}

/** 400 with one issue (a FHIR endpoint answers an OperationOutcome of it, without an element's path). */
function shapeRefusal(exceeded: keyof JsonShapeLimits): HttpError {
  const message =
    exceeded === 'depth'
      ? `the body is nested deeper than ${JSON_SHAPE_LIMITS.depth} levels`
      : `the body has an array or object of more than ${JSON_SHAPE_LIMITS.members} members`;
  return new HttpError('invalid_request', message, { issues: [{ code: exceeded === 'depth' ? 'structure' : 'too-long', diagnostics: message }] });
}

/**
 * The body in UTF-8, for its shape to be read byte by byte. Another charset body-parser reads
 * (`utf-*`) is decoded first: UTF-16 by TextDecoder; one it does not know (UTF-32, UTF-7) is 415,
 * as JSON (RFC 8259) and FHIR are UTF-8 anyway, and its shape could not be read before parsing.
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
