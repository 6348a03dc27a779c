import { Router, type Request, type Response } from 'express';
import { HolidayRegion, type EscalationRule, type ReferrerSettings } from '@bedrequest/contracts';
import { sendPage, sessionOf } from '../inbox/inbox-context';
import { settingsPage, type EscalationForm } from './pages/settings.page';
import { settingsTexts as t } from './settings.texts.de';
import { hospitalApiOf, workspacePageOf, type WorkspaceContext } from './workspace-context';

type Flash = { kind: 'success' | 'error'; message: string };

/**
 * The hospital's settings (docs/workspace.md, "Einstellungen"): its default answer deadline and its
 * rule for asking further clinics, read and set through the public API (docs/api.md, "Answer
 * deadlines") by any person of the hospital. Post/redirect/get; a refusal shows the page again with
 * the service's words (and the rule as entered).
 */
export function settingsRoutes(context: WorkspaceContext): Router {
  const router = Router();
  const render = async (req: Request, res: Response, settings: ReferrerSettings, flash?: Flash, status = 200, escalationForm?: EscalationForm) => {
    const page = await workspacePageOf(context, req, res);
    const view = { settings, ...(flash ? { flash } : {}), ...(escalationForm ? { escalationForm } : {}), csrfToken: context.csrf.tokenOf(sessionOf(res).id) };
    sendPage(res, settingsPage(page, view), status);
  };
  const flashes: Record<string, Flash> = {
    '1': { kind: 'success', message: t.saved },
    rule: { kind: 'success', message: t.escalation.saved },
    'rule-removed': { kind: 'success', message: t.escalation.removed },
  };

  router.get('/settings', async (req, res) => {
    const settings = await hospitalApiOf(context, req, res).referrerData().settings();
    await render(req, res, settings, flashes[String(req.query.saved)]);
  });

  // The deadline alone: without `escalation` the stored rule stays.
  router.post('/settings', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const holidays = HolidayRegion.safeParse(body.holidays);
    const settings = { answerDeadline: { workingDays: Number(body.workingDays), holidays: holidays.success ? holidays.data : 'DE' } } as ReferrerSettings;
    const data = hospitalApiOf(context, req, res).referrerData();
    const refused = holidays.success ? await data.saveSettings(settings) : t.refused;
    if (refused) return render(req, res, await data.settings(), { kind: 'error', message: `${t.refused} ${refused}` }, 400);
    res.redirect(303, '/workspace/settings?saved=1');
  });

  // The rule, sent with the deadline as stored; the service checks it (docs/api.md, "Asking by rule").
  router.post('/settings/escalation', async (req, res) => {
    const form = escalationFormOf((req.body ?? {}) as Record<string, unknown>);
    const remove = (req.body as Record<string, unknown> | undefined)?.action === 'remove';
    const data = hospitalApiOf(context, req, res).referrerData();
    const current = await data.settings();
    const refused = await data.saveSettings({ answerDeadline: current.answerDeadline, escalation: remove ? null : ruleOf(form) });
    if (refused) return render(req, res, current, { kind: 'error', message: `${t.refused} ${refused}` }, 400, form);
    res.redirect(303, `/workspace/settings?saved=${remove ? 'rule-removed' : 'rule'}`);
  });

  return router;
}

function escalationFormOf(body: Record<string, unknown>): EscalationForm {
  const field = (name: keyof EscalationForm) => (typeof body[name] === 'string' ? (body[name] as string).trim() : '');
  return {
    whenOpenBelow: field('whenOpenBelow'),
    askNext: field('askNext'),
    clinics: field('clinics'),
    postalCode: field('postalCode'),
    latitude: field('latitude'),
    longitude: field('longitude'),
  };
}

/** The rule from the form as the API takes it: numbers with a decimal comma or point, IKs a line (or comma) each; the API refuses what is wrong. */
function ruleOf(form: EscalationForm): EscalationRule {
  const number = (text: string) => (text === '' ? Number.NaN : Number(text.replace(',', '.')));
  const clinics = form.clinics.split(/[\s,;]+/).filter((ik) => ik !== '');
  return {
    whenOpenBelow: number(form.whenOpenBelow),
    askNext: number(form.askNext),
    ...(clinics.length ? { clinics } : {}),
    origin: { postalCode: form.postalCode, latitude: number(form.latitude), longitude: number(form.longitude) },
  };
}
