import { codeOfStatus } from './error-codes';
import { HttpError } from './http-error';

/** Turns a service's own typed errors into HttpErrors; undefined for errors it does not know. */
export type DomainErrors = (error: unknown) => HttpError | undefined;

/** What body-parser (and express) put on the errors they raise (body-parser README, "Errors"). */
interface RaisedError {
  type?: unknown;
  status?: unknown;
  statusCode?: unknown;
  expose?: unknown;
  message?: unknown;
  limit?: unknown;
  charset?: unknown;
  encoding?: unknown;
}

/**
 * The one classification of a failure into status and code, for the JSON handler and the FHIR
 * handler alike: typed errors as they say, body-parser's errors by their `type`, other errors that
 * carry a 4xx status (e.g. express's undecodable path parameter) by that status, and everything else
 * a 500 whose message is not passed on.
 */
export function classifyError(error: unknown, domainErrors?: DomainErrors): HttpError {
  if (error instanceof HttpError) return error;
  const known = domainErrors?.(error);
  if (known) return known;
  const raised: RaisedError = typeof error === 'object' && error !== null ? error : {};
  switch (raised.type) {
    case 'entity.parse.failed':
      return new HttpError('invalid_request', 'the body is not valid JSON');
    case 'entity.too.large':
      return new HttpError(
        'payload_too_large',
        typeof raised.limit === 'number' ? `the body is larger than ${sizeText(raised.limit)}` : 'the body is too large',
      );
    case 'charset.unsupported':
      return new HttpError('unsupported_media_type', `unsupported charset "${String(raised.charset).toUpperCase()}"`);
    case 'encoding.unsupported':
      return new HttpError('unsupported_media_type', `unsupported content encoding "${String(raised.encoding)}"`);
  }
  const status = typeof raised.status === 'number' ? raised.status : raised.statusCode;
  if (typeof status === 'number' && status >= 400 && status < 500) {
    // http-errors marks 4xx messages as fit to show (`expose`); they describe the request, not the server.
    const message = raised.expose !== false && typeof raised.message === 'string' && raised.message ? raised.message : 'bad request';
    return new HttpError(codeOfStatus(status), message);
  }
  return new HttpError('internal_error', 'internal error', { cause: error });
}

/** 16384 → "16 KiB", 10485760 → "10 MiB": the limits as the docs write them. */
function sizeText(bytes: number): string {
  if (bytes >= 1024 * 1024 && bytes % (1024 * 1024) === 0) return `${bytes / (1024 * 1024)} MiB`;
  if (bytes >= 1024 && bytes % 1024 === 0) return `${bytes / 1024} KiB`;
  return `${bytes} bytes`;
}
