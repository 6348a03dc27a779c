export { errorCodes, codeOfStatus, type ErrorCode } from './error-codes';
export { HttpError, type HttpErrorOptions } from './http-error';
export { classifyError, type DomainErrors } from './classify';
export { jsonErrorHandler, logServerError, sendError } from './error-handler';
export { outcomeOf } from './fhir-outcome';
export {
  InternalClient,
  UpstreamUnavailableError,
  type Answer,
  type Answers,
  type Credential,
  type InternalClientOptions,
  type InternalRequest,
  type RawAnswer,
  type TokenSource,
} from './internal-client';
export {
  CallbackAddressRefusedError,
  assertPublicHost,
  forbiddenAddressReason,
  guardedLookup,
  systemResolve,
  type GuardOptions,
  type Resolve,
} from './address-guard';
