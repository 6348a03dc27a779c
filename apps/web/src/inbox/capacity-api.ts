import type { z } from 'zod';
import { ApiErrorBody, AutoAnswerSetting, BedCountList, BedCountView, FreeBedsVisibility } from '@bedrequest/contracts';
import type { InternalClient } from '@bedrequest/http';
import type { Credentials } from './workspace-api';

const AUTO_ANSWER_PATH = '/api/v1/clinic/capacity/auto-answer';
const VISIBILITY_PATH = '/api/v1/clinic/capacity/visibility';

/**
 * The inbox's calls of the clinic's bed counts, its automatic answers and whether referrers see its
 * free beds (docs/api.md, "Bed counts", "Free beds for referrers"),
 * made with InboxApi's connection, the person's credentials and InboxApi's refusals (401 ends the
 * session, 429 asks to retry): `InboxApi.capacityFor(call)`.
 */
export class CapacityApi {
  constructor(
    private readonly client: InternalClient,
    private readonly credentials: Credentials,
    private readonly refused: (status: 401 | 429) => Error,
  ) {}

  /** The published, reserved and free beds per department and day; undefined for a clinic that is not participating (404). */
  async read(range: { from: string; to: string }): Promise<z.infer<typeof BedCountList> | undefined> {
    const answer = await this.client.json(
      { method: 'GET', path: '/api/v1/clinic/capacity', query: new URLSearchParams(range), ...this.credentials },
      { 200: BedCountList, 401: ApiErrorBody, 404: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 404) return undefined;
    if (answer.status === 200) return answer.body;
    throw this.refused(answer.status);
  }

  async publish(count: { department: string; date: string; freeBeds: number }): Promise<{ ok: true } | { ok: false; message: string }> {
    const answer = await this.client.json(
      { method: 'PUT', path: '/api/v1/clinic/capacity', json: count, ...this.credentials },
      { 200: BedCountView, 400: ApiErrorBody, 401: ApiErrorBody, 404: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 400 || answer.status === 404) return { ok: false, message: answer.body.message };
    if (answer.status === 200) return { ok: true };
    throw this.refused(answer.status);
  }

  /** Whether routing answers for the clinic from its bed counts; undefined for a clinic that is not participating (404). */
  async automaticAnswers(): Promise<boolean | undefined> {
    const answer = await this.client.json(
      { method: 'GET', path: AUTO_ANSWER_PATH, ...this.credentials },
      { 200: AutoAnswerSetting, 401: ApiErrorBody, 404: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 404) return undefined;
    if (answer.status === 200) return answer.body.enabled;
    throw this.refused(answer.status);
  }

  async switchAutomaticAnswers(enabled: boolean): Promise<{ ok: true; enabled: boolean } | { ok: false; message: string }> {
    const answer = await this.client.json(
      { method: 'PUT', path: AUTO_ANSWER_PATH, json: { enabled }, ...this.credentials },
      { 200: AutoAnswerSetting, 400: ApiErrorBody, 401: ApiErrorBody, 404: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 400 || answer.status === 404) return { ok: false, message: answer.body.message };
    if (answer.status === 200) return { ok: true, enabled: answer.body.enabled };
    throw this.refused(answer.status);
  }

  /** Whether referrers read the clinic's free beds (GET /api/v1/kliniken/free-beds); undefined for a clinic that is not participating (404). */
  async freeBedsVisibility(): Promise<boolean | undefined> {
    const answer = await this.client.json(
      { method: 'GET', path: VISIBILITY_PATH, ...this.credentials },
      { 200: FreeBedsVisibility, 401: ApiErrorBody, 404: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 404) return undefined;
    if (answer.status === 200) return answer.body.shownToReferrers;
    throw this.refused(answer.status);
  }

  async showFreeBeds(shownToReferrers: boolean): Promise<{ ok: true; shownToReferrers: boolean } | { ok: false; message: string }> {
    const answer = await this.client.json(
      { method: 'PUT', path: VISIBILITY_PATH, json: { shownToReferrers }, ...this.credentials },
      { 200: FreeBedsVisibility, 400: ApiErrorBody, 401: ApiErrorBody, 404: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 400 || answer.status === 404) return { ok: false, message: answer.body.message };
    if (answer.status === 200) return { ok: true, shownToReferrers: answer.body.shownToReferrers };
    throw this.refused(answer.status);
  }
}
