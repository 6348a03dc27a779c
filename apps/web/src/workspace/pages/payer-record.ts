import { html, type Html } from '../../inbox/html';
import { csrfField } from '../../inbox/pages/layout';
import { payerRecordTexts } from '../payer-record.texts.de';

const t = payerRecordTexts;

/**
 * The record for the payer on a request's page (docs/workspace.md, "Nachweis für Kostenträger"):
 * the two downloads, and when the patient was ready for transfer, shown and set or removed by a post.
 * `readyAt` is the field's Berlin wall clock (`datetime-local`), `readyAtText` the instant in words;
 * `error` when the typed one was refused.
 */
export function payerRecordSection(view: {
  placementId: string;
  readyAt?: string;
  readyAtText?: string;
  typed?: string;
  error?: string;
  csrfToken: string;
}): Html {
  const base = `/workspace/requests/${view.placementId}`;
  const value = view.typed ?? view.readyAt ?? '';
  return html`<section aria-labelledby="payer-record-heading" class="payer-record-section">
<h2 id="payer-record-heading">${t.record.title}</h2>
<p class="hint">${t.record.hint}</p>
<ul class="record-downloads">
<li><a href="${base}/record.pdf" download>${t.record.pdf}</a></li>
<li><a href="${base}/record.csv" download>${t.record.csv}</a></li>
</ul>
<p id="ready-for-transfer-current">${view.readyAtText ? t.ready.current(view.readyAtText) : html`${t.ready.label}: ${t.ready.none}`}</p>
<form method="post" action="${base}/ready-for-transfer" class="form inline-form">${csrfField(view.csrfToken)}
<div class="field"><label for="ready-at">${t.ready.label}</label><p class="hint" id="ready-at-hint">${t.ready.hint}</p>${view.error ? html`<p class="field-error" id="ready-at-error">${view.error}</p>` : ''}<input id="ready-at" name="readyAt" type="datetime-local" value="${value}" aria-describedby="ready-at-hint${view.error ? ' ready-at-error' : ''}"${view.error ? html` aria-invalid="true"` : ''}></div>
<button type="submit" class="button button-secondary">${t.ready.save}</button>
</form>
</section>`;
}
