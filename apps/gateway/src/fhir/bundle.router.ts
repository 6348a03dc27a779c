import type { Request, RequestHandler, Response } from 'express';
import {
  AdmissionBundleSubmittedV1,
  DocumentBundleSubmittedV1,
  IntakeVerdictV1,
  type MessageDefinition,
  type Submitter,
  type VerdictRefusal,
} from '@bedrequest/contracts';
import { ClinicDirectoryUnavailableError, type ClinicDirectory } from '@bedrequest/clinic-directory';
import {
  admissionRequestSummary,
  bundleKind,
  outcome,
  validateAdmissionRequestBundle,
  validateDocumentBundle,
  type AdmissionRequestBundle,
  type Issue,
} from '@bedrequest/fhir-model';
import { HttpError, type ErrorCode } from '@bedrequest/http';
import { BrokerUnavailableError, PublishRejectedError, type Broker } from '@bedrequest/messaging';
import { CORRELATION_HEADER, clientAddressOf } from '@bedrequest/observability';
import { isUnderFhirBase, principalOf, type Principal } from '@bedrequest/tokens';
import { fhirJsonBody } from './fhir-body';
import { sendFhir } from './fhir-response';

export interface BundleRouteOptions {
  broker: Pick<Broker, 'publishAndAwaitReply'>;
  /** The registry in memory: every performer must be a participating clinic. */
  clinics: Pick<ClinicDirectory, 'lookup'>;
  profileBase: string;
  /** How long the caller waits for intake's verdict before getting 202 for a queued bundle. */
  verdictTimeoutMs: number;
}

/**
 * `POST /api/v2/fhir/Bundle` (spec, Endpoints): validate, check the referrer's rights, publish
 * durably, and answer with intake's verdict. The caller learns a refused transition synchronously
 * (409/400/404/403 with an OperationOutcome); only when intake does not answer in time (it is down
 * or busy) is the answer 202 for a bundle that is safely queued and will be processed.
 */
export function bundleRoute(options: BundleRouteOptions): RequestHandler[] {
  const handle: RequestHandler = async (req, res) => {
    const principal = principalOf(res);
    const kind = bundleKind(req.body, options.profileBase);
    if (kind === 'unknown') {
      throw refused('invalid_request', [
        {
          code: 'invalid',
          diagnostics: 'meta.profile names neither the AdmissionRequestBundle nor the DocumentBundle profile',
          expression: 'Bundle.meta.profile',
        },
      ]);
    }
    if (kind === 'admission-request') {
      const result = validateAdmissionRequestBundle(req.body, { profileBase: options.profileBase });
      if (!result.ok) throw refused('invalid_request', result.issues);
      const refusal = referrerRefusal(principal, result.bundle.requestIdentifier, result.bundle.requesterIk);
      if (refusal) throw refused('forbidden', [{ code: 'forbidden', diagnostics: refusal }]);
      let unknownPerformers: Issue[];
      try {
        unknownPerformers = await performersNotParticipating(result.bundle, options.clinics);
      } catch (error) {
        if (error instanceof ClinicDirectoryUnavailableError) throw unavailable('the clinic registry is unavailable', error);
        throw error;
      }
      if (unknownPerformers.length) throw refused('invalid_request', unknownPerformers);
      // Validated once, here: intake gets what it needs of the bundle and never walks it again.
      return submit(
        req,
        res,
        AdmissionBundleSubmittedV1,
        { request: admissionRequestSummary(result.bundle) },
        principal,
        result.bundle.requestIdentifier,
        options,
      );
    }
    const result = validateDocumentBundle(req.body, { profileBase: options.profileBase });
    if (!result.ok) throw refused('invalid_request', result.issues);
    const refusal = referrerRefusal(principal, result.bundle.requestIdentifier);
    if (refusal) throw refused('forbidden', [{ code: 'forbidden', diagnostics: refusal }]);
    const { requestIdentifier } = result.bundle;
    return submit(req, res, DocumentBundleSubmittedV1, { requestIdentifier }, principal, requestIdentifier, options);
  };
  return [...fhirJsonBody(), handle];
}

/** docs/decisions.md, "Parties and credentials": the requester must be one of the referrer's IKs and the identifier must begin with its FHIR base. */
function referrerRefusal(principal: Principal, requestIdentifier: string, requesterIk?: string): string | undefined {
  if (!principal.fhirBase || !isUnderFhirBase(requestIdentifier, principal.fhirBase)) {
    return 'the ServiceRequest identifier must begin with the FHIR base URL registered for the referrer';
  }
  if (requesterIk !== undefined && !principal.ikNumbers.includes(requesterIk)) {
    return `the requester IK ${requesterIk} is not one the referrer may send for`;
  }
  return undefined;
}

/** docs/decisions.md, "Clinics answer": a performer whose IK is not a participating clinic makes the bundle invalid (400). */
async function performersNotParticipating(bundle: AdmissionRequestBundle, clinics: Pick<ClinicDirectory, 'lookup'>): Promise<Issue[]> {
  const registered = await clinics.lookup(bundle.performerIks);
  const entries = (bundle.bundle.entry ?? []) as { resource?: { resourceType?: string } }[];
  const serviceRequestIndex = entries.findIndex((entry) => entry.resource?.resourceType === 'ServiceRequest');
  return bundle.performerIks.flatMap((ik, index) =>
    registered.has(ik)
      ? []
      : [
          {
            code: 'invalid' as const,
            diagnostics: `the performer with IK ${ik} is not a participating clinic`,
            expression: `Bundle.entry[${serviceRequestIndex}].resource.performer[${index}]`,
          },
        ],
  );
}

async function submit(
  req: Request,
  res: Response,
  definition: MessageDefinition,
  read: Record<string, unknown>,
  principal: Principal,
  requestIdentifier: string,
  options: BundleRouteOptions,
) {
  const clientAddress = clientAddressOf(req);
  const submitter: Submitter = {
    partyId: principal.partyId,
    // The person of the party, whom the change's AuditEvent names (docs/api.md, "Audit trail").
    userId: principal.userId,
    ...(principal.userName === undefined ? {} : { userName: principal.userName }),
    ikNumbers: [...principal.ikNumbers],
    fhirBase: principal.fhirBase ?? '',
    ...(clientAddress ? { clientAddress } : {}),
  };
  const payload = { submitter, receivedAt: new Date().toISOString(), bundle: req.body as Record<string, unknown>, ...read };
  let reply;
  try {
    ({ reply } = await options.broker.publishAndAwaitReply(
      definition,
      payload,
      { correlationId: String(req.headers[CORRELATION_HEADER]) },
      options.verdictTimeoutMs,
    ));
  } catch (error) {
    if (error instanceof BrokerUnavailableError || error instanceof PublishRejectedError) {
      throw unavailable('the bundle could not be stored; please retry', error);
    }
    throw error;
  }
  const taskSearch = `/api/v2/fhir/Task?based-on=${encodeURIComponent(requestIdentifier)}`;
  const verdict = reply && IntakeVerdictV1.payload.safeParse(reply.payload);
  if (verdict?.success && verdict.data.outcome === 'rejected') throw refusedByIntake(verdict.data);
  res.setHeader('Location', taskSearch);
  res.setHeader('Content-Location', taskSearch);
  const diagnostics = !verdict?.success
    ? 'accepted: the bundle is queued for processing; its state follows at the Location'
    : verdict.data.outcome === 'unchanged'
      ? 'accepted: identical to the latest version of this request; nothing changed'
      : 'accepted; the clinics answer asynchronously';
  return sendFhir(res, 202, outcome([{ severity: 'information', code: 'informational', diagnostics }]));
}

/**
 * docs/decisions.md, "Errors": the HTTP answer (400, 403, 404, 409) to each reason intake gives for a
 * refusal; 412 for a clinic answer's failed `If-Match` (docs/api.md, "Clinic API").
 */
const errorCodeOfRefusal: Record<VerdictRefusal, ErrorCode> = {
  invalid: 'invalid_request',
  forbidden: 'forbidden',
  'not-found': 'not_found',
  conflict: 'conflict',
  'precondition-failed': 'precondition_failed',
};

/** Intake's refusal with intake's issues: the OperationOutcome of a bundle, the message of a clinic answer. */
export function refusedByIntake(verdict: Pick<Extract<IntakeVerdictV1, { outcome: 'rejected' }>, 'refusal' | 'issues'>): HttpError {
  return refused(
    errorCodeOfRefusal[verdict.refusal],
    verdict.issues.map((issue) => ({ ...issue, code: issue.code as Issue['code'] })),
  );
}

/**
 * A refusal with its issues, thrown to the gateway's error handler: it answers them as the
 * OperationOutcome (FHIR) or the first one's diagnostics (`{"error", "message"}`), and logs their
 * codes and expressions.
 */
function refused(code: ErrorCode, issues: readonly Issue[]): HttpError {
  return new HttpError(code, issues[0]?.diagnostics ?? 'refused', { issues });
}

/** 503 with Retry-After; the error handler logs what failed underneath. */
function unavailable(message: string, cause: Error): HttpError {
  return new HttpError('unavailable', message, { retryAfterSeconds: 5, cause });
}
