import { z } from 'zod';
import { ApiErrorBody, ReferrerSettings } from '@bedrequest/contracts';
import type { InternalClient } from '@bedrequest/http';
import type { Credentials } from '../inbox/workspace-api';

const CaseNumberView = z.looseObject({ identifier: z.string(), caseNumber: z.string().nullable(), updatedAt: z.string() });
const CaseNumberList = z.looseObject({ items: z.array(CaseNumberView) });
const DraftSummary = z.looseObject({ id: z.string(), label: z.string().optional(), savedAt: z.string(), savedByName: z.string().optional() });
const DraftView = DraftSummary.extend({ content: z.record(z.string(), z.unknown()) });
const DraftList = z.looseObject({ items: z.array(DraftSummary) });
const ReadyForTransferView = z.looseObject({ readyAt: z.string().nullable().optional() });

/** The record's formats and the media types the gateway answers them with (docs/api.md, "The record for the payer"). */
export const RECORD_TYPES = { pdf: 'application/pdf', csv: 'text/csv' } as const;
export type RecordFormat = keyof typeof RECORD_TYPES;

/** A record for the payer as the gateway sent it: its bytes and the headers a download passes on. */
export interface RecordFile {
  content: Buffer;
  contentType: string;
  contentDisposition: string;
}

export type DraftSummary = z.infer<typeof DraftSummary>;
export type DraftView = z.infer<typeof DraftView>;

/** How many identifiers one case-number search takes (docs/api.md, "The hospital's own data"). */
const IDENTIFIERS_PER_SEARCH = 500;

/**
 * What the hospital keeps beside its requests and never sends to a clinic (docs/api.md, "The
 * hospital's own data: case numbers and drafts"): its own case number per request, and drafts of new
 * requests. Asked with the person's token like every other call of the workspace; a case number
 * travels in bodies only, never in a URL.
 */
export class ReferrerDataApi {
  constructor(
    private readonly client: InternalClient,
    private readonly credentials: Credentials,
    private readonly refused: (status: 401 | 429) => Error,
  ) {}

  /** Keeps the hospital's case number of a request (null removes it); the refusal's message when refused (400, or 410 once erased). */
  async setCaseNumber(identifier: string, caseNumber: string | null): Promise<string | undefined> {
    const answer = await this.client.json(
      { method: 'PUT', path: '/api/v1/referrer/case-numbers', json: { identifier, caseNumber }, ...this.credentials },
      { 200: CaseNumberView, 400: ApiErrorBody, 401: ApiErrorBody, 410: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200) return undefined;
    // 410: the request's patient data was erased, and its case number with it.
    if (answer.status === 400 || answer.status === 410) return answer.body.message;
    throw this.refused(answer.status);
  }

  /** The case numbers of the requests named, by identifier. */
  async caseNumbersOf(identifiers: readonly string[]): Promise<Map<string, string>> {
    const found = new Map<string, string>();
    for (let start = 0; start < identifiers.length; start += IDENTIFIERS_PER_SEARCH) {
      const items = await this.search({ identifiers: identifiers.slice(start, start + IDENTIFIERS_PER_SEARCH) });
      for (const item of items) if (item.caseNumber) found.set(item.identifier, item.caseNumber);
    }
    return found;
  }

  /** The identifiers of the party's requests with this case number (letter case ignored). */
  async requestsWithCaseNumber(caseNumber: string): Promise<string[]> {
    return (await this.search({ caseNumber })).map((item) => item.identifier);
  }

  private async search(body: { identifiers: readonly string[] } | { caseNumber: string }) {
    const answer = await this.client.json(
      { method: 'POST', path: '/api/v1/referrer/case-numbers/_search', json: body, ...this.credentials },
      { 200: CaseNumberList, 400: ApiErrorBody, 401: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200) return answer.body.items;
    if (answer.status === 400) return [];
    throw this.refused(answer.status);
  }

  /**
   * The signed record for the payer of the request of a Task (docs/api.md, "The record for the
   * payer"): the file, or 404/410 (not the party's request, its patient data erased).
   */
  async record(taskId: string, format: RecordFormat): Promise<RecordFile | 404 | 410> {
    const answer = await this.client.file(
      { method: 'GET', path: `/api/v1/referrer/records/${encodeURIComponent(taskId)}`, query: new URLSearchParams({ format }), ...this.credentials },
      [RECORD_TYPES[format]],
      ['content-type', 'content-disposition'],
    );
    if (answer.status === 401 || answer.status === 429) throw this.refused(answer.status);
    if (answer.status === 404 || answer.status === 410) return answer.status;
    const contentType = answer.headers['content-type'] ?? '';
    const contentDisposition = answer.headers['content-disposition'] ?? '';
    if (answer.status !== 200 || !contentType.startsWith(RECORD_TYPES[format]) || !contentDisposition.startsWith('attachment')) {
      throw new Error(`the record was answered with HTTP ${answer.status} (${contentType || 'no content type'})`);
    }
    return { content: answer.body, contentType, contentDisposition };
  }

  /** When the request's patient was ready for transfer, as the hospital recorded it; undefined for not recorded, or erased. */
  async readyForTransfer(identifier: string): Promise<string | undefined> {
    const answer = await this.client.json(
      { method: 'POST', path: '/api/v1/referrer/ready-for-transfer/_read', json: { identifier }, ...this.credentials },
      { 200: ReadyForTransferView, 401: ApiErrorBody, 404: ApiErrorBody, 410: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200) return answer.body.readyAt ?? undefined;
    if (answer.status === 401 || answer.status === 429) throw this.refused(answer.status);
    return undefined;
  }

  /** Records when the patient was ready for transfer (null removes it); the refusal's status when refused (400, 404, 410). */
  async setReadyForTransfer(identifier: string, readyAt: string | null): Promise<400 | 404 | 410 | undefined> {
    const answer = await this.client.json(
      { method: 'PUT', path: '/api/v1/referrer/ready-for-transfer', json: { identifier, readyAt }, ...this.credentials },
      { 200: ReadyForTransferView, 204: z.undefined(), 400: ApiErrorBody, 401: ApiErrorBody, 404: ApiErrorBody, 410: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200 || answer.status === 204) return undefined;
    if (answer.status === 401 || answer.status === 429) throw this.refused(answer.status);
    return answer.status;
  }

  /** The party's settings: its default answer deadline (docs/api.md, "Answer deadlines"). */
  async settings(): Promise<ReferrerSettings> {
    const answer = await this.client.json(
      { method: 'GET', path: '/api/v1/referrer/settings', ...this.credentials },
      { 200: ReferrerSettings, 401: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200) return answer.body;
    throw this.refused(answer.status);
  }

  /** Sets the party's settings for everyone of it; the refusal's message when refused. */
  async saveSettings(settings: ReferrerSettings): Promise<string | undefined> {
    const answer = await this.client.json(
      { method: 'PUT', path: '/api/v1/referrer/settings', json: settings, ...this.credentials },
      { 200: ReferrerSettings, 400: ApiErrorBody, 401: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200) return undefined;
    if (answer.status === 400) return answer.body.message;
    throw this.refused(answer.status);
  }

  /** The party's drafts, the most recently saved first. */
  async drafts(): Promise<DraftSummary[]> {
    const answer = await this.client.json(
      { method: 'GET', path: '/api/v1/referrer/drafts', ...this.credentials },
      { 200: DraftList, 401: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200) return answer.body.items;
    throw this.refused(answer.status);
  }

  /** One draft of the party's; undefined for none (another party's, or deleted). */
  async draft(id: string): Promise<DraftView | undefined> {
    const answer = await this.client.json(
      { method: 'GET', path: draftPath(id), ...this.credentials },
      { 200: DraftView, 400: ApiErrorBody, 401: ApiErrorBody, 404: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200) return answer.body;
    if (answer.status === 400 || answer.status === 404) return undefined;
    throw this.refused(answer.status);
  }

  /**
   * Saves a draft, a new one or over the one named: its id, or the refusal's message (over the
   * party's number of drafts, too large; a draft deleted meanwhile is saved anew).
   */
  async saveDraft(draft: { label: string; content: object }, id?: string): Promise<{ ok: true; id: string } | { ok: false; message: string }> {
    const answer = await this.client.json(
      { method: id ? 'PUT' : 'POST', path: id ? draftPath(id) : '/api/v1/referrer/drafts', json: draft, ...this.credentials },
      { 200: DraftView, 201: DraftView, 400: ApiErrorBody, 401: ApiErrorBody, 404: ApiErrorBody, 409: ApiErrorBody, 413: ApiErrorBody, 429: ApiErrorBody },
    );
    if (answer.status === 200 || answer.status === 201) return { ok: true, id: answer.body.id };
    if (answer.status === 404 && id) return this.saveDraft(draft);
    if (answer.status === 401 || answer.status === 429) throw this.refused(answer.status);
    return { ok: false, message: answer.body.message };
  }

  /** Deletes a draft of the party's (done also when it was gone already). */
  async deleteDraft(id: string): Promise<void> {
    const answer = await this.client.raw({ method: 'DELETE', path: draftPath(id), ...this.credentials });
    if (answer.status === 401 || answer.status === 429) throw this.refused(answer.status);
  }
}

function draftPath(id: string): string {
  return `/api/v1/referrer/drafts/${encodeURIComponent(id)}`;
}
