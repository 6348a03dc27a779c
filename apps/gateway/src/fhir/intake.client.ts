import type { Request, Response } from 'express';
import { z } from 'zod';
import { InternalClient, type RawAnswer } from '@bedrequest/http';
import { CORRELATION_HEADER, clientAddressOf } from '@bedrequest/observability';
import { accessTokenOf } from '@bedrequest/tokens';

/**
 * Who asks intake, and for whom: the caller's verified access token, forwarded so that intake
 * applies its visibility rules to the party the token names (intake verifies it itself), the
 * public base URL that intake writes into `fullUrl` and paging links, and the address the caller
 * connected from, which intake records in the audit trail (`X-Forwarded-For`).
 */
export interface ForwardedCall {
  readonly token: string;
  readonly correlationId: string;
  readonly publicBase: string;
  /** Absent or empty: intake records no address. */
  readonly clientAddress?: string;
}

/** The call as the caller made it; its address is the one rule of every app (clientAddressOf, TRUSTED_PROXIES). */
export function forwardedCallOf(req: Request, res: Response): ForwardedCall {
  return {
    token: accessTokenOf(res),
    correlationId: String(req.headers[CORRELATION_HEADER]),
    publicBase: publicBaseOf(req),
    clientAddress: clientAddressOf(req),
  };
}

/** The headers every call to intake's internal API carries besides the credential. */
export function forwardedHeaders(call: ForwardedCall): Record<string, string> {
  return { 'x-public-base': call.publicBase, ...(call.clientAddress ? { 'x-forwarded-for': call.clientAddress } : {}) };
}

export function publicBaseOf(req: Request): string {
  return `${req.protocol}://${req.get('host') ?? '127.0.0.1'}`;
}

/**
 * A pool of connections to intake's internal API, for one of the gateway's clients of it;
 * `unavailableMessage` is what the caller reads while intake does not answer (503).
 */
export function intakeConnection(intakeUrl: string, unavailableMessage: string, options: { timeoutMs: number; connections?: number }): InternalClient {
  return new InternalClient({ service: 'intake', baseUrl: intakeUrl, unavailableMessage, ...options });
}

/** A FHIR resource as intake answers it; passed on to the clinic as it is. */
const FhirResource = z.looseObject({ resourceType: z.string() });
const DocumentList = z.object({ items: z.array(z.looseObject({})) });
/** Intake's answer for an erased request: why, and since when, in the first issue's diagnostics. */
const ErasedOutcome = z.object({ resourceType: z.literal('OperationOutcome'), issue: z.tuple([z.object({ diagnostics: z.string() })], z.unknown()) });

/**
 * Intake's internal read API (it owns requests and Tasks), called with the caller's forwarded token.
 * Task searches and reads pass intake's FHIR JSON on unread (parsing and serialising it again would
 * change nothing, and polling is the hottest read); the clinic reads are parsed with their contract.
 */
export class IntakeClient {
  private readonly client: InternalClient;

  constructor(intakeUrl: string, timeoutMs = 10_000) {
    this.client = intakeConnection(intakeUrl, 'the Task store is unavailable; please retry', { timeoutMs });
  }

  /**
   * `GET /internal/tasks{search}` or `/internal/tasks/{id}`: a searchset, a Task or an
   * OperationOutcome. The search (`?…`) goes on as the caller wrote it: intake reads and checks it.
   */
  tasks(path: '' | `/${string}`, search: string, call: ForwardedCall): Promise<RawAnswer> {
    return this.client.raw({ method: 'GET', path: `/internal/tasks${path}${search}`, ...this.request(call) });
  }

  /**
   * `GET /internal/audit-events{search}`: a searchset of the AuditEvents the caller may see, or an
   * OperationOutcome; passed on unread, like the Task search.
   */
  auditEvents(search: string, call: ForwardedCall): Promise<RawAnswer> {
    return this.client.raw({ method: 'GET', path: `/internal/audit-events${search}`, ...this.request(call) });
  }

  /** A clinic's read of a Task's bundle or documents: 404 for a Task it may not see, 410 once its request's patient data was erased. */
  clinicRead(taskId: string, what: 'bundle' | 'documents', call: ForwardedCall) {
    return this.client.json(
      { method: 'GET', path: `/internal/tasks/${encodeURIComponent(taskId)}/${what}`, ...this.request(call) },
      { 200: what === 'bundle' ? FhirResource : DocumentList, 404: FhirResource, 410: ErasedOutcome },
    );
  }

  close(): Promise<void> {
    return this.client.close();
  }

  private request(call: ForwardedCall) {
    return { credential: call.token, correlationId: call.correlationId, headers: forwardedHeaders(call) };
  }
}
