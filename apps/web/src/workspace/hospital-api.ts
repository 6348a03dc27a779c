import type { Bundle } from '@medplum/fhirtypes';
import { z } from 'zod';
import {
  AnswerStatisticsList,
  ApiErrorBody,
  FhirTask,
  FreeBedsList,
  PartyMemberList,
  PartyMemberView,
  PartyView,
  type NewPartyMember,
} from '@bedrequest/contracts';
import { HttpError, type InternalClient } from '@bedrequest/http';
import type { Credentials } from '../inbox/workspace-api';
import { SubscriptionsApi } from '../sandbox/subscriptions-api';
import { ReferrerDataApi } from './referrer-data-api';

/** A page of `GET /api/v2/fhir/Task`: the Tasks, and whether more follow. */
const TaskSearchSet = z.looseObject({
  resourceType: z.literal('Bundle'),
  total: z.number().int().optional(),
  link: z.array(z.looseObject({ relation: z.string(), url: z.string() })).optional(),
  entry: z.array(z.looseObject({ resource: FhirTask })).optional(),
});

/**
 * The hospital workspace's calls of the public API (docs/api.md, "Tasks", "Party and people"), made
 * with the web app's connection, the person's credentials and its refusals (401 ends the session,
 * 429 asks to retry), exactly as any referrer's software makes them: `InboxApi.hospitalFor(call)`.
 */
export class HospitalApi {
  constructor(
    private readonly client: InternalClient,
    private readonly credentials: Credentials,
    private readonly refused: (status: 401 | 429) => Error,
  ) {}

  /** The Tasks of the party's requests the search names (`_count`, `_lastUpdated`, `based-on`, …), and whether more follow. */
  async tasks(query: URLSearchParams): Promise<{ tasks: FhirTask[]; more: boolean }> {
    const answer = await this.client.json(
      { method: 'GET', path: '/api/v2/fhir/Task', query, ...this.credentials },
      // FHIR endpoints refuse with an OperationOutcome: only the status counts.
      { 200: TaskSearchSet, 401: z.unknown(), 429: z.unknown() },
    );
    if (answer.status !== 200) throw this.refused(answer.status);
    const { entry = [], link = [] } = answer.body;
    return { tasks: entry.map((each) => each.resource), more: link.some((each) => each.relation === 'next') };
  }

  /** One Task of the party's requests; undefined for one it may not see (another party's, or none). */
  async task(taskId: string): Promise<FhirTask | undefined> {
    const answer = await this.client.json(
      { method: 'GET', path: `/api/v2/fhir/Task/${encodeURIComponent(taskId)}`, ...this.credentials },
      { 200: FhirTask, 401: z.unknown(), 404: z.unknown(), 429: z.unknown() },
    );
    if (answer.status === 404) return undefined;
    if (answer.status === 200) return answer.body;
    throw this.refused(answer.status);
  }

  /**
   * Erases the patient data of the party's request (docs/api.md, "Erasure"): true when done (202, also
   * for one erased before), false for a request the party does not own or that is unknown (404).
   */
  async erase(identifier: string): Promise<boolean> {
    const answer = await this.client.raw({
      method: 'DELETE',
      path: '/api/v2/fhir/ServiceRequest',
      query: new URLSearchParams({ identifier }),
      ...this.credentials,
    });
    if (answer.status === 202) return true;
    if (answer.status === 404) return false;
    if (answer.status === 401 || answer.status === 429) throw this.refused(answer.status);
    throw new HttpError('unavailable', `the erasure answered HTTP ${answer.status}`, { retryAfterSeconds: 5 });
  }

  /** What the hospital keeps beside its requests, never sent to clinics: case numbers and drafts. */
  referrerData(): ReferrerDataApi {
    return new ReferrerDataApi(this.client, this.credentials, this.refused);
  }

  /** The party's webhook subscriptions, for the sandbox's inspector (sandbox/subscriptions-api.ts). */
  subscriptions(): SubscriptionsApi {
    return new SubscriptionsApi(this.client, this.credentials, this.refused);
  }

  /** The person's party: its name for the header. */
  async party(): Promise<PartyView> {
    const answer = await this.client.json(
      { method: 'GET', path: '/api/v1/party', ...this.credentials },
      { 200: PartyView, 401: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200) return answer.body;
    throw this.refused(answer.status);
  }

  /** The party's people; undefined for a person who is not an administrator (403). */
  async people(): Promise<PartyMemberView[] | undefined> {
    const answer = await this.client.json(
      { method: 'GET', path: '/api/v1/party/users', ...this.credentials },
      { 200: PartyMemberList, 401: ApiErrorBody, 403: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 403) return undefined;
    if (answer.status === 200) return answer.body.items;
    throw this.refused(answer.status);
  }

  /** Adds a person to the party: the person, or the API's refusal (400, 403, 409) with its message. */
  async addPerson(person: NewPartyMember): Promise<{ ok: true; person: PartyMemberView } | { ok: false; status: 400 | 403 | 409; message: string }> {
    const answer = await this.client.json(
      { method: 'POST', path: '/api/v1/party/users', json: person, ...this.credentials },
      { 201: PartyMemberView, 400: ApiErrorBody, 401: ApiErrorBody, 403: ApiErrorBody, 409: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 201) return { ok: true, person: answer.body };
    if (answer.status === 400 || answer.status === 403 || answer.status === 409) return { ok: false, status: answer.status, message: answer.body.message };
    throw this.refused(answer.status);
  }

  /** Disables a person of the party: the refusal's message (403, 404, 409), or undefined when done. */
  async disablePerson(userId: string): Promise<string | undefined> {
    const answer = await this.client.json(
      { method: 'POST', path: `/api/v1/party/users/${encodeURIComponent(userId)}/disable`, ...this.credentials },
      { 200: PartyMemberView, 401: ApiErrorBody, 403: ApiErrorBody, 404: ApiErrorBody, 409: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200) return undefined;
    if (answer.status === 401 || answer.status === 429) throw this.refused(answer.status);
    return answer.body.message;
  }

  /**
   * Sends an AdmissionRequestBundle (docs/api.md, "Sending a bundle"): accepted (202), or the
   * refusal's status and the OperationOutcome's issues (diagnostics and FHIRPath expressions).
   */
  async send(bundle: object): Promise<{ ok: true } | { ok: false; status: number; issues: { diagnostics: string; expression: string[] }[] }> {
    const answer = await this.client.raw({ method: 'POST', path: '/api/v2/fhir/Bundle', json: bundle, ...this.credentials });
    if (answer.status === 202 || answer.status === 200 || answer.status === 201) return { ok: true };
    if (answer.status === 401 || answer.status === 429) throw this.refused(answer.status);
    if (answer.status >= 500) throw new HttpError('unavailable', `the bundle was answered with HTTP ${answer.status}`, { retryAfterSeconds: 5 });
    const outcome = OutcomeIssues.safeParse(answer.body.length ? JSON.parse(answer.body.toString('utf8')) : {});
    const issues = (outcome.success ? outcome.data.issue : []).map((issue) => ({ diagnostics: issue.diagnostics ?? '', expression: issue.expression ?? [] }));
    return { ok: false, status: answer.status, issues };
  }

  /** Every clinic's answer figures of the last 90 days (docs/api.md, "Answer statistics"). */
  async answerStatistics(): Promise<AnswerStatisticsList> {
    const answer = await this.client.json(
      { method: 'GET', path: '/api/v1/kliniken/answer-statistics', ...this.credentials },
      { 200: AnswerStatisticsList, 401: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200) return answer.body;
    throw this.refused(answer.status);
  }

  /** The free beds of the clinics that show them to referrers, on a day (docs/api.md, "Free beds for referrers"); none when refused. */
  async freeBeds(date: string): Promise<FreeBedsList['items']> {
    const answer = await this.client.json(
      { method: 'GET', path: '/api/v1/kliniken/free-beds', query: new URLSearchParams({ date }), ...this.credentials },
      { 200: FreeBedsList, 400: ApiErrorBody, 401: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200) return answer.body.items;
    if (answer.status === 400) return [];
    throw this.refused(answer.status);
  }

  /**
   * The latest version of the party's request as sent (docs/api.md, "Reading a request back"): the
   * searchset with the ServiceRequest and the resources it came with; undefined for none the party
   * owns, `erased` once its patient data was erased (410).
   */
  async readBack(identifier: string): Promise<Bundle | undefined | 'erased'> {
    const answer = await this.client.json(
      { method: 'GET', path: '/api/v2/fhir/ServiceRequest', query: new URLSearchParams({ identifier }), ...this.credentials },
      { 200: SearchSet, 401: z.unknown(), 410: z.unknown(), 429: z.unknown() },
    );
    if (answer.status === 410) return 'erased';
    if (answer.status === 401 || answer.status === 429) throw this.refused(answer.status);
    return answer.body.total === 0 ? undefined : (answer.body as Bundle);
  }

  /**
   * The changes of the party's request in the audit trail, oldest first (docs/api.md, "Audit trail"):
   * each with its time, its action (`C` sent, `U` changed, `D` erased) and who acted, the party's own
   * people by name, a clinic by its IK. Reads and searches are left out; at most the first 200 entries.
   */
  async changes(identifier: string): Promise<{ at: string; action: string; ik?: string; name?: string }[]> {
    const answer = await this.client.json(
      { method: 'GET', path: '/api/v2/fhir/AuditEvent', query: new URLSearchParams({ entity: identifier, _count: '200' }), ...this.credentials },
      { 200: AuditSearchSet, 401: z.unknown(), 429: z.unknown() },
    );
    if (answer.status === 401 || answer.status === 429) throw this.refused(answer.status);
    return (answer.body.entry ?? [])
      .map((entry) => entry.resource)
      .filter((event) => event.action === 'C' || event.action === 'U' || event.action === 'D')
      .map((event) => {
        const agent = event.agent[0];
        const ik = agent?.who?.identifier?.value;
        return { at: event.recorded, action: event.action ?? '', ...(ik ? { ik } : {}), ...(agent?.name ? { name: agent.name } : {}) };
      });
  }
}

const OutcomeIssues = z.looseObject({
  issue: z.array(z.looseObject({ diagnostics: z.string().optional(), expression: z.array(z.string()).optional() })),
});
const SearchSet = z.looseObject({ resourceType: z.literal('Bundle'), type: z.literal('searchset'), total: z.number().int() });
const AuditSearchSet = z.looseObject({
  entry: z
    .array(
      z.looseObject({
        resource: z.looseObject({
          recorded: z.string(),
          action: z.string().optional(),
          agent: z.array(
            z.looseObject({ name: z.string().optional(), who: z.looseObject({ identifier: z.looseObject({ value: z.string() }).optional() }).optional() }),
          ),
        }),
      }),
    )
    .optional(),
});
