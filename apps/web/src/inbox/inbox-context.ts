import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { ClinicRecord } from '@bedrequest/contracts';
import { clientAddressOf } from '@bedrequest/observability';
import type { CsrfTokens } from '../session/csrf';
import type { AutomaticAnswersSetting } from './automatic-answers-setting';
import type { Formats } from './format';
import type { Html } from './html';
import type { ApiCall, InboxApi } from './inbox-api';
import type { PageContext } from './pages/layout';
import type { InboxSession } from './session';
import type { Texts } from './texts.de';

/** What the inbox's routes share. */
export interface InboxContext {
  api: InboxApi;
  csrf: CsrfTokens;
  texts: Texts;
  formats: Formats;
  assets: { script: string; style: string };
  profileBase: string;
  logger: Logger;
  clinics: ClinicRecords;
  /** For the banner while the clinic's automatic answers are on; without it no page shows one. */
  automaticAnswers?: AutomaticAnswersSetting;
  /** `SANDBOX`: every page shows the sandbox's banner. */
  sandbox?: boolean;
}

/** The session the guard let through. */
export function sessionOf(res: Response): InboxSession {
  const session = res.locals.inboxSession as InboxSession | undefined;
  if (!session) throw new Error('route is not behind the inbox session guard');
  return session;
}

export function apiCallOf(req: Request, res: Response): ApiCall {
  return { token: sessionOf(res).accessToken, correlationId: String(req.headers['x-correlation-id']), clientAddress: clientAddressOf(req) };
}

/** The clinic's IK: a clinic token names exactly one (libs/tokens, PartyClaims). */
export function clinicIkOf(res: Response): string {
  return sessionOf(res).principal.ikNumbers[0] ?? '';
}

export async function pageContextOf(context: InboxContext, req: Request, res: Response): Promise<PageContext> {
  const session = sessionOf(res);
  const ik = clinicIkOf(res);
  const call = apiCallOf(req, res);
  const [clinic, automaticAnswers] = await Promise.all([context.clinics.find(ik, call), context.automaticAnswers?.enabled(ik, call)]);
  // A message of the step before (task-routes.ts, answerSentNotice), for this page alone.
  const notice = res.locals.inboxNotice as Html | undefined;
  return {
    texts: context.texts,
    assets: context.assets,
    signedIn: { clinic: context.texts.clinicOf(clinic?.name, ik), csrfToken: context.csrf.tokenOf(session.id) },
    ...(notice ? { notice } : {}),
    ...(automaticAnswers ? { automaticAnswers } : {}),
    sandbox: context.sandbox === true,
  };
}

export function sendPage(res: Response, page: Html, status = 200): void {
  res.status(status).type('html').send(page.markup);
}

/**
 * The clinics of `GET /api/v1/kliniken` (name and departments for the header and the beds page),
 * kept for a minute: every page shows the clinic's name, and the registry changes rarely.
 */
export class ClinicRecords {
  private cached?: { at: number; byIk: Map<string, ClinicRecord> };

  constructor(
    private readonly api: InboxApi,
    private readonly maxAgeMs = 60_000,
  ) {}

  async find(ik: string, call: ApiCall): Promise<ClinicRecord | undefined> {
    if (!this.cached || Date.now() - this.cached.at > this.maxAgeMs) {
      const { items } = await this.api.clinics(call);
      this.cached = { at: Date.now(), byIk: new Map(items.map((clinic) => [clinic.ik, clinic])) };
    }
    return this.cached.byIk.get(ik);
  }
}
