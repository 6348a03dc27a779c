import { Router, type Request, type Response } from 'express';
import { apiCallOf, pageContextOf, sendPage, sessionOf, type InboxContext } from './inbox-context';
import { emailChoiceOf, notificationsSection, savedFlashOf, type NotificationsView } from './notifications-section';
import { notificationTexts as t } from './notifications.texts.de';
import { html } from './html';
import { layout } from './pages/layout';

/**
 * The clinic inbox's Benachrichtigungen (docs/inbox.md): the signed-in person turns e-mail about new
 * and supplemented requests and deadline reminders on or off for themself.
 */
export function notificationsRoutes(context: InboxContext): Router {
  const router = Router();
  const api = (req: Request, res: Response) => context.api.notificationsFor(apiCallOf(req, res));

  const render = async (req: Request, res: Response, flash: NotificationsView['flash'], status = 200) => {
    const [settings, page] = await Promise.all([api(req, res).read(), pageContextOf(context, req, res)]);
    const section = notificationsSection({
      settings,
      action: '/inbox/notifications',
      csrfToken: context.csrf.tokenOf(sessionOf(res).id),
      intro: t.clinicIntro,
      ...(flash ? { flash } : {}),
    });
    sendPage(res, layout(page, { title: t.title, section: 'notifications', body: html`<h1>${t.title}</h1>${section}` }), status);
  };

  router.get('/notifications', (req, res) => render(req, res, savedFlashOf(req.query)));
  router.post('/notifications', async (req, res) => {
    const saved = await api(req, res).set(emailChoiceOf(req.body));
    if (!saved.ok) return render(req, res, { kind: 'error', message: `${t.refused} ${saved.message}` }, 409);
    res.redirect(303, `/inbox/notifications?notifications=${saved.settings.email ? 'on' : 'off'}`);
  });
  return router;
}
