import { html, type Html } from '../../inbox/html';
import { csrfField, layout, type PageContext } from '../../inbox/pages/layout';
import type { WorkspaceTexts } from '../workspace.texts.de';

/** The confirmation of an erasure (docs/workspace.md, "Patientendaten löschen"): what goes, what stays, one button. */
export function erasePage(context: PageContext, texts: WorkspaceTexts, placementId: string, csrfToken: string): Html {
  const t = texts.hospital.erase;
  return layout(context, {
    title: t.title,
    section: 'requests',
    body: html`<div class="narrow">
<p class="page-actions"><a href="/workspace/requests/${placementId}">← ${texts.hospital.request.back}</a></p>
<h1>${t.title}</h1>
<p>${t.intro}</p>
<ul>${t.goes.map((item) => html`<li>${item}</li>`)}</ul>
<p>${t.stays}</p>
<form method="post" action="/workspace/requests/${placementId}/erase" class="form">
  ${csrfField(csrfToken)}
  <button type="submit" class="button button-danger">${t.confirm}</button>
  <a href="/workspace/requests/${placementId}" class="button button-secondary">${t.cancel}</a>
</form>
</div>`,
  });
}
