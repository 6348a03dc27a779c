import { Router, type Request, type Response } from 'express';
import { HolidayRegion, type ReferrerSettings } from '@bedrequest/contracts';
import { sendPage, sessionOf } from '../inbox/inbox-context';
import { settingsPage } from './pages/settings.page';
import { settingsTexts as t } from './settings.texts.de';
import { hospitalApiOf, workspacePageOf, type WorkspaceContext } from './workspace-context';

/**
 * The hospital's settings (docs/workspace.md, "Einstellungen"): its default answer deadline, read
 * and set through the public API (docs/api.md, "Answer deadlines") by any person of the hospital.
 * Post/redirect/get; a refusal shows the page again with the service's words.
 */
export function settingsRoutes(context: WorkspaceContext): Router {
  const router = Router();
  const render = async (req: Request, res: Response, settings: ReferrerSettings, flash?: { kind: 'success' | 'error'; message: string }, status = 200) => {
    const page = await workspacePageOf(context, req, res);
    sendPage(res, settingsPage(page, { settings, ...(flash ? { flash } : {}), csrfToken: context.csrf.tokenOf(sessionOf(res).id) }), status);
  };

  router.get('/settings', async (req, res) => {
    const settings = await hospitalApiOf(context, req, res).referrerData().settings();
    await render(req, res, settings, req.query.saved === '1' ? { kind: 'success', message: t.saved } : undefined);
  });

  router.post('/settings', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const holidays = HolidayRegion.safeParse(body.holidays);
    const settings = { answerDeadline: { workingDays: Number(body.workingDays), holidays: holidays.success ? holidays.data : 'DE' } } as ReferrerSettings;
    const data = hospitalApiOf(context, req, res).referrerData();
    const refused = holidays.success ? await data.saveSettings(settings) : t.refused;
    if (refused) return render(req, res, await data.settings(), { kind: 'error', message: `${t.refused} ${refused}` }, 400);
    res.redirect(303, '/workspace/settings?saved=1');
  });

  return router;
}
