import type { NotificationSettings, PartyMemberView } from '@bedrequest/contracts';
import { html, type Html } from '../../inbox/html';
import { notificationsSection, type NotificationsView } from '../../inbox/notifications-section';
import { notificationTexts } from '../../inbox/notifications.texts.de';
import { csrfField, layout, notice, type PageContext } from '../../inbox/pages/layout';
import type { WorkspaceTexts } from '../workspace.texts.de';

/** What the person typed into "Person hinzufügen", and what was refused, by field. */
export interface PersonForm {
  values: { username?: string; displayName?: string; email?: string; administrator?: boolean };
  errors: { field: 'username' | 'password' | 'displayName' | 'email' | 'form'; message: string }[];
}

export interface PeopleView {
  /** Undefined for a person who is not an administrator. */
  people?: readonly PartyMemberView[];
  /** The signed-in person's user id: they cannot disable themself. */
  self: string;
  form: PersonForm;
  flash?: { kind: 'success' | 'error'; message: string };
  /** The signed-in person's own choice of e-mail, and what saving it did. */
  notifications: NotificationSettings;
  notificationsFlash?: NotificationsView['flash'];
  csrfToken: string;
}

/** The party's people (docs/workspace.md, "Personen"): the list, disabling, and adding a person. */
export function peoplePage(context: PageContext, texts: WorkspaceTexts, view: PeopleView): Html {
  const t = texts.hospital.people;
  return layout(context, {
    title: t.title,
    section: 'people',
    body: html`<h1>${t.title}</h1>
<p>${t.intro}</p>
${view.flash ? notice(view.flash.kind, view.flash.message) : ''}
${notificationsSection({
  settings: view.notifications,
  action: '/workspace/people/notifications',
  csrfToken: view.csrfToken,
  intro: notificationTexts.hospitalIntro,
  ...(view.notificationsFlash ? { flash: view.notificationsFlash } : {}),
})}
${view.people ? html`${peopleTable(texts, view.people, view.self, view.csrfToken)}${addForm(texts, view.form, view.csrfToken)}` : notice('info', t.notAdministrator)}`,
  });
}

function peopleTable(texts: WorkspaceTexts, people: readonly PartyMemberView[], self: string, csrfToken: string): Html {
  const t = texts.hospital.people;
  const row = (person: PartyMemberView) => {
    const canDisable = !person.disabled && person.id !== self;
    return html`<tr data-user="${person.username}"><th scope="row">${person.displayName}${person.id === self ? html` <span class="meta">${t.you}</span>` : ''}</th><td>${person.username}</td><td>${person.email ?? ''}</td><td>${person.administrator ? t.administrator : t.member}</td><td>${person.disabled ? t.disabled : t.active}</td><td>${person.emailNotifications ? notificationTexts.columnOn : notificationTexts.columnOff}</td><td>${
      canDisable
        ? html`<form method="post" action="/workspace/people/${person.id}/disable">${csrfField(csrfToken)}<button type="submit" class="button button-secondary">${t.disable(person.displayName)}</button></form>`
        : ''
    }</td></tr>`;
  };
  return html`<table class="people"><caption class="visually-hidden">${t.caption}</caption>
<thead><tr><th scope="col">${t.columns.name}</th><th scope="col">${t.columns.username}</th><th scope="col">${t.columns.email}</th><th scope="col">${t.columns.role}</th><th scope="col">${t.columns.state}</th><th scope="col">${notificationTexts.column}</th><th scope="col">${t.columns.action}</th></tr></thead>
<tbody>${people.map(row)}</tbody></table>`;
}

function addForm(texts: WorkspaceTexts, form: PersonForm, csrfToken: string): Html {
  const t = texts.hospital.people;
  const errorOf = (field: PersonForm['errors'][number]['field']) => form.errors.find((error) => error.field === field);
  /** One input with its label, hint and error, tied together for screen readers. */
  const field = (name: 'username' | 'password' | 'displayName' | 'email', label: string, input: Html, hint?: string) => {
    const error = errorOf(name);
    return html`<div class="field"><label for="person-${name}">${label}</label>${hint ? html`<p class="hint" id="${name}-hint">${hint}</p>` : ''}${error ? html`<p class="field-error" id="${name}-error">${error.message}</p>` : ''}${input}</div>`;
  };
  const described = (name: 'username' | 'password' | 'displayName' | 'email', hint: boolean) => {
    const error = errorOf(name);
    const ids = [hint ? `${name}-hint` : '', error ? `${name}-error` : ''].filter(Boolean).join(' ');
    return html`${ids ? html` aria-describedby="${ids}"` : ''}${error ? html` aria-invalid="true"` : ''}`;
  };
  const { values } = form;
  return html`<section aria-labelledby="add-heading"><h2 id="add-heading">${t.addHeading}</h2>
${form.errors.length ? html`<div class="notice notice-error error-summary" role="alert" tabindex="-1" id="person-errors"><p>${t.errorSummary}</p><ul>${form.errors.map((error) => html`<li>${error.message}</li>`)}</ul></div>` : ''}
<form method="post" action="/workspace/people" class="form">
${csrfField(csrfToken)}
${field('username', t.username, html`<input id="person-username" name="username" type="text" autocomplete="off" autocapitalize="none" spellcheck="false" required maxlength="128" value="${values.username ?? ''}"${described('username', true)}>`, t.usernameHint)}
${field('password', t.password, html`<input id="person-password" name="password" type="password" autocomplete="new-password" required minlength="12" maxlength="256"${described('password', true)}>`, t.passwordHint)}
${field('displayName', t.displayName, html`<input id="person-displayName" name="displayName" type="text" required maxlength="200" value="${values.displayName ?? ''}"${described('displayName', true)}>`, t.displayNameHint)}
${field('email', t.email, html`<input id="person-email" name="email" type="email" maxlength="254" value="${values.email ?? ''}"${described('email', false)}>`)}
<div class="choice"><input type="checkbox" id="person-administrator" name="administrator" value="1"${values.administrator ? html` checked` : ''}><label for="person-administrator">${t.makeAdministrator}</label></div>
<button type="submit" class="button">${t.add}</button>
</form></section>`;
}
