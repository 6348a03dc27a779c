import { html, type Html } from '../../inbox/html';
import { csrfField, layout, type PageContext } from '../../inbox/pages/layout';
import type { WorkspaceTexts } from '../workspace.texts.de';

/** What a step that changes a request for every clinic says before it is taken. */
export interface Confirmation {
  title: string;
  intro: string;
  /** What the step does, one line each. */
  effects: readonly string[];
  /** What stays, and that it cannot be undone. */
  closing: string;
  confirm: string;
  /** Where the form posts. */
  action: string;
}

/**
 * The confirmation of a step on a request (erasing its patient data, revoking it, withdrawing the
 * selection: docs/workspace.md): what it does and what stays, one button to take it, one to leave.
 */
export function confirmPage(context: PageContext, texts: WorkspaceTexts, placementId: string, confirmation: Confirmation, csrfToken: string): Html {
  const back = `/workspace/requests/${placementId}`;
  return layout(context, {
    title: confirmation.title,
    section: 'requests',
    body: html`<div class="narrow">
<p class="page-actions"><a href="${back}">← ${texts.hospital.request.back}</a></p>
<h1>${confirmation.title}</h1>
<p>${confirmation.intro}</p>
<ul>${confirmation.effects.map((item) => html`<li>${item}</li>`)}</ul>
<p>${confirmation.closing}</p>
<form method="post" action="${confirmation.action}" class="form">
  ${csrfField(csrfToken)}
  <button type="submit" class="button button-danger">${confirmation.confirm}</button>
  <a href="${back}" class="button button-secondary">${texts.hospital.erase.cancel}</a>
</form>
</div>`,
  });
}
