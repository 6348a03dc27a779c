import { html, type Html } from '../../inbox/html';
import { csrfField } from '../../inbox/pages/layout';
import { ownDataTexts } from '../own-data.texts.de';

const t = ownDataTexts.caseNumber;

/**
 * The request's internal case number on its page (docs/workspace.md, "Interne Fallnummer"): shown,
 * and changed or removed by a post; `error` when the typed one was refused.
 */
export function caseNumberSection(view: { placementId: string; caseNumber?: string; typed?: string; error?: string; csrfToken: string }): Html {
  const value = view.typed ?? view.caseNumber ?? '';
  return html`<section aria-labelledby="case-number-heading" class="case-number-section">
<h2 id="case-number-heading">${t.label}</h2>
<p class="hint" id="case-number-hint">${t.hint}</p>
<form method="post" action="/workspace/requests/${view.placementId}/case-number" class="form inline-form">${csrfField(view.csrfToken)}
<div class="field"><label for="case-number">${t.label}</label>${view.error ? html`<p class="field-error" id="case-number-error">${view.error}</p>` : ''}<input id="case-number" name="caseNumber" type="text" autocomplete="off" maxlength="64" spellcheck="false" value="${value}" aria-describedby="case-number-hint${view.error ? ' case-number-error' : ''}"${view.error ? html` aria-invalid="true"` : ''}></div>
<button type="submit" class="button button-secondary">${t.save}</button>
</form>
</section>`;
}
