import {
  ApiErrorBody,
  AutoAnswerSetting,
  BedCountList,
  BedCountView,
  FreeBedsList,
  FreeBedsVisibility,
  type AutoAnswerRequest,
  type FreeBedsVisibilityRequest,
} from '@bedrequest/contracts';
import { InternalClient } from '@bedrequest/http';

/**
 * The caller's forwarded access token and the correlation id: the clinic's (routing checks that it is
 * the clinic's own IK), or for the free beds a referrer's (routing lets referrers' tokens only).
 */
export interface CapacityCall {
  readonly token: string;
  readonly correlationId: string;
}

/**
 * Routing's internal bed-count API (`/internal/clinics/{ik}/capacity`), the clinic's automatic
 * answers from those counts (`/internal/clinics/{ik}/auto-answer`), whether it shows them to
 * referrers (`/internal/clinics/{ik}/free-beds-visibility`) and the referrers' read of them
 * (`/internal/free-beds`); routing owns all of it.
 */
export class ClinicCapacityClient {
  private readonly client: InternalClient;

  constructor(routingUrl: string, timeoutMs = 5_000) {
    this.client = new InternalClient({
      service: 'routing',
      baseUrl: routingUrl,
      timeoutMs,
      unavailableMessage: 'the bed counts are temporarily unavailable; please retry',
      connections: 8,
    });
  }

  put(ik: string, body: unknown, call: CapacityCall) {
    return this.client.json(
      { method: 'PUT', path: pathOf(ik), json: body, credential: call.token, correlationId: call.correlationId },
      { 200: BedCountView, 400: ApiErrorBody, 404: ApiErrorBody },
    );
  }

  list(ik: string, range: { from?: string | undefined; to?: string | undefined }, call: CapacityCall) {
    const query = new URLSearchParams();
    if (range.from) query.set('from', range.from);
    if (range.to) query.set('to', range.to);
    return this.client.json(
      { method: 'GET', path: pathOf(ik), query, credential: call.token, correlationId: call.correlationId },
      { 200: BedCountList, 400: ApiErrorBody, 404: ApiErrorBody },
    );
  }

  automaticAnswers(ik: string, call: CapacityCall) {
    return this.client.json(
      { method: 'GET', path: autoAnswerPathOf(ik), credential: call.token, correlationId: call.correlationId },
      { 200: AutoAnswerSetting, 404: ApiErrorBody },
    );
  }

  switchAutomaticAnswers(ik: string, body: AutoAnswerRequest, call: CapacityCall) {
    return this.client.json(
      { method: 'PUT', path: autoAnswerPathOf(ik), json: body, credential: call.token, correlationId: call.correlationId },
      { 200: AutoAnswerSetting, 400: ApiErrorBody, 404: ApiErrorBody },
    );
  }

  freeBedsVisibility(ik: string, call: CapacityCall) {
    return this.client.json(
      { method: 'GET', path: visibilityPathOf(ik), credential: call.token, correlationId: call.correlationId },
      { 200: FreeBedsVisibility, 404: ApiErrorBody },
    );
  }

  showFreeBeds(ik: string, body: FreeBedsVisibilityRequest, call: CapacityCall) {
    return this.client.json(
      { method: 'PUT', path: visibilityPathOf(ik), json: body, credential: call.token, correlationId: call.correlationId },
      { 200: FreeBedsVisibility, 400: ApiErrorBody, 404: ApiErrorBody },
    );
  }

  /** One date, optionally one department, with the referrer's token. */
  freeBeds(query: { date: string; department?: string | undefined }, call: CapacityCall) {
    const search = new URLSearchParams({ date: query.date });
    if (query.department) search.set('department', query.department);
    return this.client.json(
      { method: 'GET', path: '/internal/free-beds', query: search, credential: call.token, correlationId: call.correlationId },
      { 200: FreeBedsList, 400: ApiErrorBody },
    );
  }

  close(): Promise<void> {
    return this.client.close();
  }
}

function pathOf(ik: string): string {
  return `/internal/clinics/${encodeURIComponent(ik)}/capacity`;
}

function autoAnswerPathOf(ik: string): string {
  return `/internal/clinics/${encodeURIComponent(ik)}/auto-answer`;
}

function visibilityPathOf(ik: string): string {
  return `/internal/clinics/${encodeURIComponent(ik)}/free-beds-visibility`;
}
