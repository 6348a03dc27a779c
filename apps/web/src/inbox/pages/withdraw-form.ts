import { html, type Html } from '../html';
import type { Texts } from '../texts.de';
import { seenFields, type SeenTask } from './answer-confirm.page';
import { MAX_NOTE_LENGTH } from './answer-form';
import { csrfField, layout, type PageContext } from './layout';

/**
 * What a selected clinic may still do (docs/decisions.md, "Clinics answer"; docs/inbox.md, "Nach der
 * Auswahl"): its answers would keep the selection, so the page offers none, only the withdrawal of
 * its acceptance with a reason, which lifts the selection and tells the referrer. Two steps like an
 * answer: the form keeps the reason as a draft in the session, its confirmation sends it.
 */
export interface WithdrawForm {
  reason?: string;
  errors?: { field: 'reason' | 'form'; message: string }[];
}

/** The reason's checks: required, at most as long as an answer's note (the API's limit). */
export function withdrawErrors(form: WithdrawForm, texts: Texts): NonNullable<WithdrawForm['errors']> {
  const reason = form.reason ?? '';
  if (reason.length > MAX_NOTE_LENGTH) return [{ field: 'reason', message: texts.withdraw.reasonTooLong }];
  if (!reason.trim()) return [{ field: 'reason', message: texts.withdraw.reasonRequired }];
  return [];
}

export function withdrawForm(taskId: string, form: WithdrawForm, texts: Texts, csrfToken: string, seen: SeenTask): Html {
  const t = texts.withdraw;
  const errors = form.errors ?? [];
  const reasonError = errors.find((error) => error.field === 'reason');
  return html`<section aria-labelledby="withdraw-heading" class="answer withdraw">
<h2 id="withdraw-heading">${t.heading}</h2>
<p>${t.intro}</p>
${
  errors.length
    ? html`<div class="notice notice-error error-summary" role="alert" tabindex="-1" id="withdraw-errors"><p>${texts.answer.errorSummary}</p><ul>${errors.map(
        (error) => html`<li>${error.field === 'form' ? error.message : html`<a href="#withdraw-reason">${error.message}</a>`}</li>`,
      )}</ul></div>`
    : ''
}
<div class="notice notice-warning" id="withdraw-warning"><p>${t.warning}</p></div>
<form method="post" action="/inbox/tasks/${taskId}/withdraw" class="form" id="withdraw-form" novalidate>
${csrfField(csrfToken)}
${seenFields(seen)}
<div class="field">
<label for="withdraw-reason">${t.reason}</label>
<p class="hint" id="withdraw-reason-hint">${t.reasonHint}</p>
${reasonError ? html`<p class="field-error" id="withdraw-reason-error">${reasonError.message}</p>` : ''}
<textarea id="withdraw-reason" name="reason" rows="5" maxlength="${MAX_NOTE_LENGTH}" required aria-describedby="withdraw-reason-hint withdraw-warning${reasonError ? ' withdraw-reason-error' : ''}"${reasonError ? html` aria-invalid="true"` : ''}>${form.reason ?? ''}</textarea>
</div>
<button type="submit" class="button button-danger">${t.submit}</button>
</form>
</section>`;
}

/**
 * The withdrawal's confirmation, a page of its own (`GET /inbox/tasks/{id}/withdraw/confirm`, from
 * the session's draft): the request's number, the reason and what the withdrawal does, sent only with
 * `confirm`.
 */
export function confirmWithdrawPage(
  context: PageContext,
  view: { taskId: string; reason: string; patient: string; requestNumber: string; admission?: string; etag?: string; version: number },
): Html {
  const { texts } = context;
  const t = texts.withdraw;
  return layout(context, {
    title: t.confirmTitle,
    section: 'tasks',
    body: html`<h1>${t.confirmTitle}</h1>
<p>${t.confirmIntro}</p>
<div class="notice notice-warning"><p>${t.warning}</p></div>
<dl class="fields">
<div class="field-row"><dt>${texts.task.title}</dt><dd>${view.patient}</dd></div>
<div class="field-row" data-field="request-number"><dt>${texts.task.requestNumber}</dt><dd>${view.requestNumber}</dd></div>
${view.admission !== undefined ? html`<div class="field-row" data-field="request.admission"><dt>${texts.task.fields.admission}</dt><dd>${view.admission}</dd></div>` : ''}
<div class="field-row"><dt>${t.reason}</dt><dd class="pre">${view.reason}</dd></div>
</dl>
<form method="post" action="/inbox/tasks/${view.taskId}/withdraw" class="form inline-buttons">
${context.signedIn ? csrfField(context.signedIn.csrfToken) : ''}
<input type="hidden" name="reason" value="${view.reason}">
${seenFields({ version: view.version, ...(view.etag ? { etag: view.etag } : {}) })}
<button type="submit" name="step" value="confirm" class="button button-danger">${t.confirm}</button>
<button type="submit" name="step" value="edit" class="button button-secondary">${t.edit}</button>
</form>
<p><a href="/inbox/tasks/${view.taskId}">${t.cancel}</a></p>`,
  });
}
