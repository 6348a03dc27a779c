import type { ReceiverCheckResult } from '@bedrequest/webhook-check';
import { html, type Html } from '../../inbox/html';
import { csrfField, notice } from '../../inbox/pages/layout';
import { inspectorTexts } from '../inspector.texts.de';

const t = inspectorTexts.check;

/** The receiver check's form as sent, what was refused in it, and its result once run. */
export interface ReceiverCheckView {
  url: string;
  error?: { field: 'url' | 'secret'; message: string };
  result?: ReceiverCheckResult;
}

/**
 * "Empfänger prüfen": the integrator's own receiver checked with libs/webhook-check (docs/webhooks.md,
 * "Checking your receiver"), each line with its verdict and why. The secret is never shown again.
 */
export function receiverCheckSection(action: string, csrfToken: string, view: ReceiverCheckView = { url: '' }): Html {
  const error = (field: 'url' | 'secret') => (view.error?.field === field ? view.error.message : undefined);
  const described = (field: 'url' | 'secret', hint?: string) => {
    const ids = [hint ?? '', error(field) ? `check-${field}-error` : ''].filter(Boolean).join(' ');
    return html`${ids ? html` aria-describedby="${ids}"` : ''}${error(field) ? html` aria-invalid="true"` : ''}`;
  };
  const fieldError = (field: 'url' | 'secret') => {
    const message = error(field);
    return message ? html`<p class="field-error" id="check-${field}-error">${t.refused} ${message}</p>` : '';
  };
  return html`<section aria-labelledby="check-heading"><h2 id="check-heading">${t.heading}</h2>
<p>${t.intro}</p>
<form method="post" action="${action}" class="form" id="check-form">
${csrfField(csrfToken)}
<div class="field"><label for="check-url">${t.url}</label>${fieldError('url')}<input type="text" id="check-url" name="url" inputmode="url" autocomplete="off" spellcheck="false" required maxlength="2048" value="${view.url}"${described('url')}></div>
<div class="field"><label for="check-secret">${t.secret}</label><p class="hint" id="check-secret-hint">${t.secretHint}</p>${fieldError('secret')}<input type="text" id="check-secret" name="secret" autocomplete="off" spellcheck="false" maxlength="200"${described('secret', 'check-secret-hint')}></div>
<button type="submit" class="button">${t.submit}</button>
</form>
${view.result ? resultOf(view.result) : ''}
</section>`;
}

function resultOf(result: ReceiverCheckResult): Html {
  const failed = result.lines.filter((line) => !line.ok).length;
  return html`<h3 id="check-result-heading">${t.resultHeading}</h3>
${notice(result.ok ? 'success' : 'warning', result.ok ? t.passed : t.failed(failed, result.lines.length), 'check-summary')}
<ul class="check-lines" aria-labelledby="check-result-heading">${result.lines.map(
    (line) =>
      html`<li data-check-line="${line.name}" data-ok="${String(line.ok)}"><span class="check ${line.ok ? 'check-valid' : 'check-invalid'}">${line.ok ? t.ok : t.fail}</span> <strong>${t.lines[line.name]}</strong> (<code>${line.name}</code>): ${line.detail}</li>`,
  )}</ul>`;
}
