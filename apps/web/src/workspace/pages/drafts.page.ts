import type { Formats } from '../../inbox/format';
import { html, type Html } from '../../inbox/html';
import { csrfField, layout, notice, type PageContext } from '../../inbox/pages/layout';
import { ownDataTexts } from '../own-data.texts.de';
import type { DraftSummary } from '../referrer-data-api';

const t = ownDataTexts.drafts;

export interface DraftsView {
  drafts: readonly DraftSummary[];
  formats: Formats;
  csrfToken: string;
}

/** The hospital's drafts (docs/workspace.md, "Entwürfe"): each opens in the new-request form, or is deleted. */
export function draftsPage(context: PageContext, view: DraftsView, flash?: string): Html {
  const row = (draft: DraftSummary) => {
    const label = draft.label ?? t.untitled;
    const saved = view.formats.instant(draft.savedAt) ?? draft.savedAt;
    return html`<tr data-draft="${draft.id}"><th scope="row"><a href="/workspace/requests/new?draft=${draft.id}">${label}</a></th><td><time datetime="${draft.savedAt}">${t.savedBy(saved, draft.savedByName)}</time></td><td><form method="post" action="/workspace/drafts/${draft.id}/delete">${csrfField(view.csrfToken)}<button type="submit" class="button button-secondary">${t.delete(label)}</button></form></td></tr>`;
  };
  return layout(context, {
    title: t.title,
    section: 'drafts',
    body: html`<h1>${t.title}</h1>
<p>${t.intro}</p>
${flash ? notice('success', flash) : ''}
${
  view.drafts.length
    ? html`<table class="drafts"><caption class="visually-hidden">${t.caption}</caption>
<thead><tr><th scope="col">${t.columns.draft}</th><th scope="col">${t.columns.saved}</th><th scope="col">${t.columns.action}</th></tr></thead>
<tbody>${view.drafts.map(row)}</tbody></table>`
    : html`<p class="empty">${t.empty}</p>`
}`,
  });
}
