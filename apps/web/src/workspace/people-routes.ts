import { Router, type Request, type Response } from 'express';
import { decodeJwt } from 'jose';
import { z } from 'zod';
import { NewPartyMember } from '@bedrequest/contracts';
import { HttpError } from '@bedrequest/http';
import { apiCallOf, sendPage, sessionOf } from '../inbox/inbox-context';
import { emailChoiceOf, savedFlashOf } from '../inbox/notifications-section';
import { notificationTexts } from '../inbox/notifications.texts.de';
import { peoplePage, type PeopleView, type PersonForm } from './pages/people.page';
import { hospitalApiOf, workspacePageOf, type WorkspaceContext } from './workspace-context';

const UserId = z.guid();
type Field = PersonForm['errors'][number]['field'];
const FIELDS: readonly Field[] = ['username', 'password', 'displayName', 'email'];

/**
 * The party's people (docs/workspace.md, "Personen"), for its administrators, through the public
 * party API (docs/api.md, "Party and people"): the list, adding a person, disabling one. Auth decides
 * who is an administrator at every call; another person reads that only administrators manage them.
 * Post/redirect/get: a done change shows once on the list (`?added=`, `?disabled=`: the person's
 * display name never goes into the URL, only that something was done).
 */
export function peopleRoutes(context: WorkspaceContext): Router {
  const router = Router();
  const { texts } = context;
  const t = texts.hospital.people;

  const render = async (req: Request, res: Response, view: Partial<PeopleView>, status = 200) => {
    const [people, page, notifications] = await Promise.all([
      hospitalApiOf(context, req, res).people(),
      workspacePageOf(context, req, res),
      context.api.notificationsFor(apiCallOf(req, res)).read(),
    ]);
    const session = sessionOf(res);
    const full: PeopleView = {
      form: { values: {}, errors: [] },
      ...view,
      ...(people ? { people } : {}),
      notifications,
      self: userIdOf(session.accessToken),
      csrfToken: context.csrf.tokenOf(session.id),
    };
    sendPage(res, peoplePage(page, texts, full), status);
  };

  router.get('/people', async (req, res) => {
    const done = typeof req.query.added === 'string' ? 'added' : typeof req.query.disabled === 'string' ? 'disabled' : undefined;
    const people = done && (await hospitalApiOf(context, req, res).people());
    const name = people?.find((person) => person.id === req.query[done ?? ''])?.displayName;
    const flash = done && name ? { kind: 'success' as const, message: done === 'added' ? t.added(name) : t.disabledNotice(name) } : undefined;
    const notificationsFlash = savedFlashOf(req.query);
    await render(req, res, { ...(flash ? { flash } : {}), ...(notificationsFlash ? { notificationsFlash } : {}) });
  });

  // Each person's own e-mail about answers and overdue clinics (docs/workspace.md, "Personen"), administrator or not.
  router.post('/people/notifications', async (req, res) => {
    const saved = await context.api.notificationsFor(apiCallOf(req, res)).set(emailChoiceOf(req.body));
    if (!saved.ok) return render(req, res, { notificationsFlash: { kind: 'error', message: `${notificationTexts.refused} ${saved.message}` } }, 409);
    res.redirect(303, `/workspace/people?notifications=${saved.settings.email ? 'on' : 'off'}`);
  });

  router.post('/people', async (req, res) => {
    const body = (req.body ?? {}) as Record<string, unknown>;
    const text = (name: string) => (typeof body[name] === 'string' ? (body[name] as string) : '');
    const values = {
      username: text('username').trim(),
      displayName: text('displayName').trim(),
      email: text('email').trim(),
      administrator: body.administrator === '1',
    };
    const input = {
      username: values.username,
      password: text('password'),
      displayName: values.displayName,
      ...(values.email ? { email: values.email } : {}),
      administrator: values.administrator,
    };
    const parsed = NewPartyMember.safeParse(input);
    if (!parsed.success) {
      const errors = parsed.error.issues.map((issue) => ({ field: fieldOf(issue.path[0]), message: `${labelOf(fieldOf(issue.path[0]))}: ${issue.message}` }));
      return render(req, res, { form: { values, errors } }, 400);
    }
    const added = await hospitalApiOf(context, req, res).addPerson(parsed.data);
    if (!added.ok) {
      // The API names the field first ("username: is taken ..."): the error stands at that field.
      const field = fieldOf(added.message.split(':')[0]);
      return render(req, res, { form: { values, errors: [{ field, message: added.message }] } }, added.status);
    }
    res.redirect(303, `/workspace/people?added=${added.person.id}`);
  });

  router.post('/people/:userId/disable', async (req, res) => {
    const userId = String(req.params.userId);
    if (!UserId.safeParse(userId).success) throw new HttpError('not_found', texts.errors.notFound);
    const refused = await hospitalApiOf(context, req, res).disablePerson(userId);
    if (refused) return render(req, res, { flash: { kind: 'error', message: `${t.refused} ${refused}` } }, 409);
    res.redirect(303, `/workspace/people?disabled=${userId}`);
  });

  function labelOf(field: Field): string {
    return field === 'form' ? t.addHeading : { username: t.username, password: t.password, displayName: t.displayName, email: t.email }[field];
  }

  return router;
}

function fieldOf(name: unknown): Field {
  return FIELDS.find((field) => field === name) ?? 'form';
}

/** The person's user id (`act.sub` of their access token), read without verifying: the API verifies it at every call. */
function userIdOf(accessToken: string): string {
  const act = decodeJwt(accessToken).act as { sub?: unknown } | undefined;
  return typeof act?.sub === 'string' ? act.sub : '';
}
