import type { Request, Response } from 'express';
import type { Logger } from 'pino';
import type { CsrfTokens } from '../session/csrf';
import type { Formats } from '../inbox/format';
import type { ApiCall, InboxApi } from '../inbox/inbox-api';
import { apiCallOf, sessionOf } from '../inbox/inbox-context';
import type { PageContext } from '../inbox/pages/layout';
import { inspectorTexts } from '../sandbox/inspector.texts.de';
import { INSPECTOR_PATH } from '../sandbox/pages/inspector.page';
import type { HospitalApi } from './hospital-api';
import { newRequestTexts } from './new-request.texts.de';
import { ownDataTexts } from './own-data.texts.de';
import { settingsTexts } from './settings.texts.de';
import type { WorkspaceTexts } from './workspace.texts.de';

/** Where the hospital's workspace is mounted. */
export const MOUNT = '/workspace';

/** What the workspace's routes share. */
export interface WorkspaceContext {
  api: InboxApi;
  csrf: CsrfTokens;
  texts: WorkspaceTexts;
  formats: Formats;
  assets: { script: string; style: string };
  logger: Logger;
  parties: PartyNames;
  /** `PROFILE_BASE`: the profiles and code systems of the bundles the pages build. */
  profileBase: string;
  /** `SANDBOX`: every page shows the sandbox's banner, and the navigation leads to the webhook inspector. */
  sandbox?: boolean;
}

export function hospitalApiOf(context: WorkspaceContext, req: Request, res: Response): HospitalApi {
  return context.api.hospitalFor(apiCallOf(req, res));
}

/** The frame of a signed-in page: the hospital's name in the header, the workspace's navigation. */
export async function workspacePageOf(context: WorkspaceContext, req: Request, res: Response): Promise<PageContext> {
  const session = sessionOf(res);
  const name = await context.parties.nameOf(session.principal.partyId, apiCallOf(req, res));
  return {
    texts: context.texts,
    assets: context.assets,
    mount: MOUNT,
    home: `${MOUNT}/requests`,
    nav: [
      { section: 'requests', href: `${MOUNT}/requests`, label: context.texts.nav.tasks },
      { section: 'new-request', href: `${MOUNT}/requests/new`, label: newRequestTexts.nav },
      { section: 'drafts', href: `${MOUNT}/drafts`, label: ownDataTexts.drafts.nav },
      { section: 'people', href: `${MOUNT}/people`, label: context.texts.hospital.navPeople },
      { section: 'settings', href: `${MOUNT}/settings`, label: settingsTexts.nav },
      ...(context.sandbox ? [{ section: 'webhooks' as const, href: INSPECTOR_PATH, label: inspectorTexts.nav }] : []),
    ],
    signedIn: { clinic: name, csrfToken: context.csrf.tokenOf(session.id) },
    sandbox: context.sandbox === true,
  };
}

/** The party's name for the header (`GET /api/v1/party`), kept for a minute per party. */
export class PartyNames {
  private readonly byParty = new Map<string, { at: number; name: string }>();

  constructor(
    private readonly api: InboxApi,
    private readonly maxAgeMs = 60_000,
  ) {}

  async nameOf(partyId: string, call: ApiCall): Promise<string> {
    const known = this.byParty.get(partyId);
    if (known && Date.now() - known.at <= this.maxAgeMs) return known.name;
    const { name } = await this.api.hospitalFor(call).party();
    this.byParty.set(partyId, { at: Date.now(), name });
    return name;
  }
}
