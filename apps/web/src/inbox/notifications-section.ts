import type { NotificationSettings } from '@bedrequest/contracts';
import { html, type Html } from './html';
import { notificationTexts as t } from './notifications.texts.de';
import { csrfField, notice } from './pages/layout';

export interface NotificationsView {
  settings: NotificationSettings;
  /** Where the form posts: `/inbox/notifications`, `/workspace/people/notifications`. */
  action: string;
  csrfToken: string;
  flash?: { kind: 'success' | 'error'; message: string };
  intro: string;
}

/**
 * The person's own switch for e-mail: a checkbox and a button, a plain form (post/redirect/get, the
 * session's CSRF token), usable without script. Without an address the box is not offered: the
 * person's administrator sets one.
 */
export function notificationsSection(view: NotificationsView): Html {
  const { settings } = view;
  const form = settings.address
    ? html`<form method="post" action="${view.action}" class="form">${csrfField(view.csrfToken)}
<div class="choice"><input type="checkbox" id="notifications-email" name="email" value="1" aria-describedby="notifications-address"${settings.email ? html` checked` : ''}><label for="notifications-email">${t.label}</label></div>
<p class="hint" id="notifications-address">${t.address(settings.address)}</p>
<button type="submit" class="button">${t.save}</button>
</form>`
    : notice('info', t.noAddress);
  return html`<section aria-labelledby="notifications-heading" class="notifications"><h2 id="notifications-heading">${t.heading}</h2>
${view.flash ? notice(view.flash.kind, view.flash.message) : ''}
<p>${view.intro}</p>
<p>${t.privacy}</p>
<p class="notifications-state">${settings.email ? t.on : t.off}</p>
${form}</section>`;
}

/** The box as posted: ticked is on, anything else off (an unticked checkbox sends nothing). */
export function emailChoiceOf(body: unknown): boolean {
  return (body as Record<string, unknown> | undefined)?.email === '1';
}

/** What a post did, for the page after its redirect (`?notifications=on|off`). */
export function savedFlashOf(query: unknown): NotificationsView['flash'] {
  const value = (query as Record<string, unknown>).notifications;
  return value === 'on' ? { kind: 'success', message: t.on } : value === 'off' ? { kind: 'success', message: t.off } : undefined;
}
