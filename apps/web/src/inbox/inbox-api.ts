import type { z } from 'zod';
import {
  ApiErrorBody,
  ClinicAnswerQueued,
  ClinicDocumentList,
  ClinicList,
  ClinicTaskList,
  DocumentBundle,
  FhirTask,
  type LoginRequest,
  ReferrerContact,
  RequestVersionList,
  TaskHistory,
  TokenResponse,
} from '@bedrequest/contracts';
import { HttpError, InternalClient, type RawAnswer } from '@bedrequest/http';
import { HospitalApi } from '../workspace/hospital-api';
import { AnswerStatisticsApi } from './answer-statistics-api';
import { CapacityApi } from './capacity-api';
import { NotificationsApi } from './notifications-api';
import { WorkspaceApi } from './workspace-api';

/** The access token the API refused (expired, revoked keys): the person must log in again. */
export class SessionExpiredError extends Error {
  override name = 'SessionExpiredError';
}

/** A refusal of the token endpoints the login form explains. */
export class LoginRefusedError extends Error {
  override name = 'LoginRefusedError';

  constructor(
    readonly reason: 'invalid_credentials' | 'invalid_request' | 'too_many_requests',
    readonly retryAfterSeconds?: number,
  ) {
    super(reason);
  }
}

/** What the API answers for the data of a request whose patient data was erased (410): its Task remains, the rest is gone. */
export const ERASED = 'erased';

/**
 * Who asks: the person's access token, the correlation id of the page request, and the address the
 * browser connected from, which the web app forwards in `X-Forwarded-For` (the gateway believes it
 * because the web app is one of its TRUSTED_PROXIES) and the API records in the audit trail.
 */
export interface ApiCall extends ApiCaller {
  readonly token: string;
}

/**
 * Who asks the token endpoints (login, renewal, logout): the page request's correlation id and the
 * browser's address, forwarded as for every other call, so that the gateway's limit per address
 * counts each person, not the web app all of them together (docs/inbox.md, "For operators").
 */
export interface ApiCaller {
  readonly correlationId: string;
  readonly clientAddress: string;
}

export type AnswerResult = { status: 200; task: FhirTask } | { status: 202 } | { status: 400 | 404 | 409 | 412; message: string };

/** A Task as read, with its entity tag (`ETag`), which an answer on it names in `If-Match` (docs/api.md, "Clinic API"). */
export interface TaskRead {
  task: FhirTask;
  /** Absent only from a gateway of release 1.1 or before, which sends none. */
  etag?: string;
}

/**
 * The clinic inbox's client of the gateway's public API: the inbox reads and writes through the same
 * endpoints, checks and rate limits as any integrator's software, with the person's access token as
 * Bearer (no second path into the data), and the person's address in `X-Forwarded-For` on every
 * call, the token endpoints' too, so that the gateway's limits, login throttling and the audit trail
 * count the browser, not the web app.
 */
export class InboxApi {
  private readonly client: InternalClient;

  constructor(gatewayUrl: string, timeoutMs = 10_000) {
    this.client = new InternalClient({
      service: 'gateway',
      baseUrl: gatewayUrl,
      timeoutMs,
      unavailableMessage: 'the service is temporarily unavailable',
      connections: 16,
    });
  }

  async login(credentials: LoginRequest, caller: ApiCaller): Promise<TokenResponse> {
    return this.token('/api/v1/token/login', credentials, caller);
  }

  async refresh(refreshToken: string, caller: ApiCaller): Promise<TokenResponse> {
    return this.token('/api/v1/token/refresh', { refreshToken }, caller);
  }

  /** Ends the refresh token's whole family (`POST /api/v1/token/revoke`); the API answers 200 whether or not it was live. */
  async revoke(refreshToken: string, caller: ApiCaller): Promise<void> {
    const answer = await this.client.raw({
      method: 'POST',
      path: '/api/v1/token/revoke',
      json: { refreshToken },
      headers: forwardedFor(caller.clientAddress),
      correlationId: caller.correlationId,
    });
    if (answer.status !== 200) {
      throw new HttpError('unavailable', `the token endpoint answered a revocation with HTTP ${answer.status}`, { retryAfterSeconds: 5 });
    }
  }

  /**
   * A page of the clinic's list; undefined when the API refuses where it begins (400: an `_offset`
   * past its bound, a `_cursor` it did not write: docs/api.md, "Paging").
   */
  async tasks(query: URLSearchParams, call: ApiCall): Promise<ClinicTaskList | undefined> {
    const answer = await this.client.json(
      { method: 'GET', path: '/api/v1/clinic/tasks', query, ...this.credentials(call) },
      { 200: ClinicTaskList, 400: ApiErrorBody, 401: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 400) return undefined;
    if (answer.status === 200) return answer.body;
    throw refusalOf(answer.status);
  }

  /**
   * The FHIR Task with its ETag, or undefined when there is none the clinic may see (404); a Task is
   * never erased (it is the tombstone).
   */
  async task(taskId: string, call: ApiCall): Promise<TaskRead | undefined> {
    const answer = await this.client.raw({ method: 'GET', path: `/api/v2/fhir/Task/${encodeURIComponent(taskId)}`, ...this.credentials(call) }, ['etag']);
    if (answer.status === 404) return undefined;
    if (answer.status === 401 || answer.status === 429) throw refusalOf(answer.status);
    const task = answer.status === 200 ? FhirTask.safeParse(jsonOf(answer.body)) : undefined;
    if (!task?.success) throw new HttpError('unavailable', `the Task read answered HTTP ${answer.status} outside its contract`, { retryAfterSeconds: 5 });
    return { task: task.data, ...(answer.headers['etag'] ? { etag: answer.headers['etag'] } : {}) };
  }

  /**
   * A page of the versions the clinic was sent (`_count`, `_offset`, `_sort`: oldest or newest
   * first); undefined for a Task it may not see, `erased` once the request's patient data was erased (410).
   */
  async versions(taskId: string, page: URLSearchParams, call: ApiCall): Promise<RequestVersionList | undefined | typeof ERASED> {
    return this.readOrMissing({ path: `${taskPath(taskId)}/versions`, query: page }, RequestVersionList, ApiErrorBody, call);
  }

  /** A page of the Task's history, newest first (`_count`, `_offset`: answers, documents, request changes); undefined and `erased` as the versions. */
  async history(taskId: string, page: URLSearchParams, call: ApiCall): Promise<TaskHistory | undefined | typeof ERASED> {
    return this.readOrMissing({ path: `${taskPath(taskId)}/history`, query: page }, TaskHistory, ApiErrorBody, call);
  }

  /** A page of the request's DocumentBundles, oldest first (`_count`, `_offset`); undefined and `erased` as the versions. */
  async documents(taskId: string, page: URLSearchParams, call: ApiCall): Promise<ClinicDocumentList | undefined | typeof ERASED> {
    return this.readOrMissing({ path: `${taskPath(taskId)}/documents`, query: page }, ClinicDocumentList, ApiErrorBody, call);
  }

  /** The one DocumentBundle at position `n` (from 0) of the documents, read without the others; undefined past the last. */
  async document(taskId: string, n: number, call: ApiCall): Promise<DocumentBundle | undefined | typeof ERASED> {
    return this.readOrMissing({ path: `${taskPath(taskId)}/documents/${n}` }, DocumentBundle, ApiErrorBody, call);
  }

  /** `ifMatch`: the ETag of the Task the person answers, so that the API refuses the answer (412) once the Task changed. */
  async answer(taskId: string, body: { businessStatus: string; note?: string }, ifMatch: string | undefined, call: ApiCall): Promise<AnswerResult> {
    return this.submit(`${taskPath(taskId)}/answer`, body, ifMatch, call);
  }

  /** The selected clinic withdraws its acceptance, lifting the selection (docs/decisions.md, "Clinics answer"); 409 for a clinic not selected. */
  async withdrawAcceptance(taskId: string, reason: string, ifMatch: string | undefined, call: ApiCall): Promise<AnswerResult> {
    return this.submit(`${taskPath(taskId)}/withdraw-acceptance`, { reason }, ifMatch, call);
  }

  private async submit(path: string, json: object, ifMatch: string | undefined, call: ApiCall): Promise<AnswerResult> {
    const headers = { ...forwardedFor(call.clientAddress), ...(ifMatch ? { 'if-match': ifMatch } : {}) };
    const refusal = ApiErrorBody;
    const answer = await this.client.json(
      { method: 'POST', path, json, ...this.credentials(call), headers },
      { 200: FhirTask, 202: ClinicAnswerQueued, 400: refusal, 401: refusal, 404: refusal, 409: refusal, 412: refusal, 429: refusal },
    );
    if (answer.status === 401 || answer.status === 429) throw refusalOf(answer.status);
    if (answer.status === 200) return { status: 200, task: answer.body };
    if (answer.status === 202) return { status: 202 };
    return { status: answer.status, message: answer.body.message };
  }

  /** The clinic's shared workspace of its Tasks, asked with the person's token (workspace-api.ts). */
  workspaceFor(call: ApiCall): WorkspaceApi {
    return new WorkspaceApi(this.client, this.credentials(call), refusalOf);
  }

  /** The clinic's bed counts and automatic answers, asked with the person's token (capacity-api.ts). */
  capacityFor(call: ApiCall): CapacityApi {
    return new CapacityApi(this.client, this.credentials(call), refusalOf);
  }

  /** The clinic's own answer statistics beside its peers', asked with the person's token (answer-statistics-api.ts). */
  answerStatisticsFor(call: ApiCall): AnswerStatisticsApi {
    return new AnswerStatisticsApi(this.client, this.credentials(call), refusalOf);
  }

  /** The person's own choice of e-mail, asked with their token (notifications-api.ts). */
  notificationsFor(call: ApiCall): NotificationsApi {
    return new NotificationsApi(this.client, this.credentials(call), refusalOf);
  }

  /** The hospital workspace's reads, asked with the person's token (workspace/hospital-api.ts). */
  hospitalFor(call: ApiCall): HospitalApi {
    return new HospitalApi(this.client, this.credentials(call), refusalOf);
  }

  /** The referrer party's name and contact (docs/api.md, "Clinic API"); undefined for a Task the clinic may not see. */
  async referrer(taskId: string, call: ApiCall): Promise<ReferrerContact | undefined> {
    const contact = await this.readOrMissing({ path: `${taskPath(taskId)}/referrer` }, ReferrerContact, ApiErrorBody, call);
    return contact === ERASED ? undefined : contact;
  }

  async clinics(call: ApiCall): Promise<ClinicList> {
    return this.read({ path: '/api/v1/kliniken' }, ClinicList, call);
  }

  close(): Promise<void> {
    return this.client.close();
  }

  private credentials(call: ApiCall) {
    return { credential: call.token, correlationId: call.correlationId, headers: forwardedFor(call.clientAddress) };
  }

  private async read<T extends z.ZodType>(request: { path: string; query?: URLSearchParams }, schema: T, call: ApiCall): Promise<z.output<T>> {
    const answer = await this.client.json({ method: 'GET', ...request, ...this.credentials(call) }, { 200: schema, 401: ApiErrorBody, 429: ApiErrorBody });
    if (answer.status === 200) return answer.body as z.output<T>;
    throw refusalOf(answer.status);
  }

  private async readOrMissing<T extends z.ZodType>(
    request: { path: string; query?: URLSearchParams },
    schema: T,
    missing: z.ZodType,
    call: ApiCall,
  ): Promise<z.output<T> | undefined | typeof ERASED> {
    const answer = await this.client.json(
      { method: 'GET', ...request, ...this.credentials(call) },
      { 200: schema, 401: ApiErrorBody, 404: missing, 410: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 404) return undefined;
    if (answer.status === 410) return ERASED;
    if (answer.status === 200) return answer.body as z.output<T>;
    throw refusalOf(answer.status);
  }

  private async token(path: string, body: unknown, caller: ApiCaller): Promise<TokenResponse> {
    const answer: RawAnswer = await this.client.raw(
      { method: 'POST', path, json: body, headers: forwardedFor(caller.clientAddress), correlationId: caller.correlationId },
      ['retry-after'],
    );
    const parsed = answer.body.length ? (JSON.parse(answer.body.toString('utf8')) as unknown) : undefined;
    if (answer.status === 200) {
      const pair = TokenResponse.safeParse(parsed);
      if (pair.success) return pair.data;
      throw new HttpError('unavailable', 'the token endpoint answered outside its contract', { retryAfterSeconds: 5 });
    }
    if (answer.status === 401) throw new LoginRefusedError('invalid_credentials');
    if (answer.status === 400) throw new LoginRefusedError('invalid_request');
    if (answer.status === 429) throw new LoginRefusedError('too_many_requests', Number(answer.headers['retry-after'] ?? 60) || 60);
    throw new HttpError('unavailable', `the token endpoint answered HTTP ${answer.status}`, { retryAfterSeconds: 5 });
  }
}

function taskPath(taskId: string): string {
  return `/api/v1/clinic/tasks/${encodeURIComponent(taskId)}`;
}

/** A refusal of the session (401: the person logs in again) or of the rate (429). */
function refusalOf(status: 401 | 429): Error {
  return status === 401 ? new SessionExpiredError() : new HttpError('too_many_requests', 'rate limited', { retryAfterSeconds: 1 });
}

const jsonOf = (body: Buffer): unknown => JSON.parse(body.toString('utf8'));

/** The browser's address for the gateway (docs/architecture.md, "Client addresses"); nothing when there is none. */
function forwardedFor(clientAddress: string): Record<string, string> {
  return clientAddress ? { 'x-forwarded-for': clientAddress } : {};
}
