import type { BusinessStatus } from '@bedrequest/contracts';
import { html, type Html } from '../html';
import { csrfField, layout, type PageContext } from './layout';

/** The Task as the person saw it, sent back with each step of the answer: its ETag and the request version shown. */
export interface SeenTask {
  etag?: string;
  version: number;
}

export function seenFields(seen: SeenTask): Html {
  return html`<input type="hidden" name="tag" value="${seen.etag ?? ''}"><input type="hidden" name="version" value="${seen.version}">`;
}

/**
 * The confirmation step, a page of its own (`GET /inbox/tasks/{id}/confirm`, from the session's
 * draft): the answer once more, with the request's number, desired admission date and the version it
 * answers, sent only with `confirm`.
 */
export function confirmAnswerPage(
  context: PageContext,
  view: {
    taskId: string;
    businessStatus: BusinessStatus;
    note: string;
    patient: string;
    /** The short number to quote (request-number.ts). */
    requestNumber?: string;
    etag?: string;
    version?: number;
    versionLabel?: string;
    admission?: string;
  },
): Html {
  const { texts } = context;
  const t = texts.answer;
  return layout(context, {
    title: t.confirmTitle,
    section: 'tasks',
    body: html`<h1>${t.confirmTitle}</h1>
<p>${t.confirmIntro}</p>
<p class="hint">${t.confirmStale}</p>
<dl class="fields">
<div class="field-row"><dt>${texts.task.title}</dt><dd>${view.patient}</dd></div>
${view.requestNumber ? html`<div class="field-row" data-field="request-number"><dt>${texts.task.requestNumber}</dt><dd>${view.requestNumber}</dd></div>` : ''}
${view.admission !== undefined ? html`<div class="field-row" data-field="request.admission"><dt>${texts.task.fields.admission}</dt><dd>${view.admission}</dd></div>` : ''}
${view.versionLabel ? html`<div class="field-row" data-field="answered-version"><dt>${t.answeredVersion}</dt><dd>${view.versionLabel}</dd></div>` : ''}
<div class="field-row"><dt>${t.chosen}</dt><dd><strong>${texts.businessStatus[view.businessStatus]}</strong></dd></div>
<div class="field-row"><dt>${t.note}</dt><dd class="pre">${view.note || t.noNote}</dd></div>
</dl>
<form method="post" action="/inbox/tasks/${view.taskId}/answer" class="form inline-buttons">
${context.signedIn ? csrfField(context.signedIn.csrfToken) : ''}
<input type="hidden" name="businessStatus" value="${view.businessStatus}">
<input type="hidden" name="note" value="${view.note}">
${seenFields({ version: view.version ?? 0, ...(view.etag ? { etag: view.etag } : {}) })}
<button type="submit" name="step" value="confirm" class="button">${t.confirm}</button>
<button type="submit" name="step" value="edit" class="button button-secondary">${t.edit}</button>
</form>`,
  });
}
