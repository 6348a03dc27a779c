import type { Request, Response } from 'express';
import { z } from 'zod';
import { InternalClient, UpstreamUnavailableError, type RawAnswer } from '@bedrequest/http';
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

/**
 * Calls below one of intake's internal paths (`prefix`) with the caller's forwarded token and
 * address: intake checks what the caller's party may see and records it in the audit trail. The
 * gateway's passing routes (the clinic's lists and workspace, the hospital's own data, read-back
 * and erasure) each hold one, with a pool of their own.
 */
export class ForwardingIntakeClient {
  private readonly client: InternalClient;

  constructor(
    intakeUrl: string,
    private readonly prefix: string,
    unavailableMessage: string,
    options: { timeoutMs?: number; connections?: number } = {},
  ) {
    this.client = intakeConnection(intakeUrl, unavailableMessage, {
      timeoutMs: options.timeoutMs ?? 10_000,
      ...(options.connections ? { connections: options.connections } : {}),
    });
  }

  call(
    method: 'GET' | 'PUT' | 'POST' | 'DELETE',
    path: string,
    call: ForwardedCall,
    options: { json?: unknown; query?: URLSearchParams } = {},
  ): Promise<RawAnswer> {
    return this.client.raw({
      method,
      path: `${this.prefix}${path}`,
      ...(options.query ? { query: options.query } : {}),
      ...(options.json === undefined ? {} : { json: options.json }),
      credential: call.token,
      correlationId: call.correlationId,
      headers: forwardedHeaders(call),
    });
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

const UNAVAILABLE = 'the Task store is unavailable; please retry';

/**
 * Intake's refusal of a clinic read, what it is in the first issue's diagnostics: the parameter it
 * refused (400), since when the request's patient data is erased (410).
 */
const RefusalOutcome = z.object({ resourceType: z.literal('OperationOutcome'), issue: z.tuple([z.object({ diagnostics: z.string() })], z.unknown()) });

/** What a clinic reads of a Task's request: its latest bundle, a page of its documents, or one document by its position. */
export type ClinicReadPath = 'bundle' | 'documents' | `documents/${number}`;

/** A clinic read's answer: the body of a 200 as intake wrote it, or why not. */
export type ClinicReadAnswer = { status: 200; body: Buffer } | { status: 404 } | { status: 400 | 410; message: string };

/**
 * Intake's internal read API (it owns requests and Tasks), called with the caller's forwarded token.
 * Its answers pass on unread (parsing and serialising them again would change nothing: polling Task
 * searches is the hottest read, and a page of documents may be 16 MiB); only their refusals are
 * read, with their contract.
 */
export class IntakeClient {
  private readonly client: InternalClient;

  constructor(
    private readonly intakeUrl: string,
    timeoutMs = 10_000,
  ) {
    this.client = intakeConnection(intakeUrl, UNAVAILABLE, { timeoutMs });
  }

  /**
   * `GET /internal/tasks{search}` or `/internal/tasks/{id}`: a searchset, a Task or an
   * OperationOutcome. The search (`?…`) goes on as the caller wrote it: intake reads and checks it.
   * `keepHeaders`: intake's headers to pass on (a Task's `etag`).
   */
  tasks(path: '' | `/${string}`, search: string, call: ForwardedCall, keepHeaders: readonly string[] = []): Promise<RawAnswer> {
    return this.client.raw({ method: 'GET', path: `/internal/tasks${path}${search}`, ...this.request(call) }, keepHeaders);
  }

  /**
   * `GET /internal/audit-events{search}`: a searchset of the AuditEvents the caller may see, or an
   * OperationOutcome; passed on unread, like the Task search.
   */
  auditEvents(search: string, call: ForwardedCall): Promise<RawAnswer> {
    return this.client.raw({ method: 'GET', path: `/internal/audit-events${search}`, ...this.request(call) });
  }

  /**
   * A clinic's read of a Task's request (`query`: a page's `_count` and `_offset`): 404 for a Task it
   * may not see or a position past the last document, 400 for a page parameter intake refuses, 410
   * once the request's patient data was erased; any other answer is intake's failure (503).
   */
  async clinicRead(taskId: string, what: ClinicReadPath, query: URLSearchParams | undefined, call: ForwardedCall): Promise<ClinicReadAnswer> {
    const path = `/internal/tasks/${encodeURIComponent(taskId)}/${what}`;
    const answer = await this.client.raw({ method: 'GET', path, ...(query ? { query } : {}), ...this.request(call) });
    if (answer.status === 200) return { status: 200, body: answer.body };
    if (answer.status === 404) return { status: 404 };
    if (answer.status === 400 || answer.status === 410) {
      const refusal = RefusalOutcome.safeParse(jsonOf(answer.body));
      if (refusal.success) return { status: answer.status, message: refusal.data.issue[0].diagnostics };
    }
    throw new UpstreamUnavailableError(UNAVAILABLE, {
      service: 'intake',
      url: this.intakeUrl,
      reason: `answered a clinic read with HTTP ${answer.status} outside its contract`,
    });
  }

  close(): Promise<void> {
    return this.client.close();
  }

  private request(call: ForwardedCall) {
    return { credential: call.token, correlationId: call.correlationId, headers: forwardedHeaders(call) };
  }
}

function jsonOf(body: Buffer): unknown {
  try {
    return JSON.parse(body.toString('utf8'));
  } catch {
    return undefined;
  }
}
