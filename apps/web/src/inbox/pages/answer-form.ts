import type { BusinessStatus } from '@bedrequest/contracts';
import { html, type Html } from '../html';
import type { Texts } from '../texts.de';
import { seenFields, type SeenTask } from './answer-confirm.page';
import { csrfField } from './layout';

export const ANSWER_CODES: readonly BusinessStatus[] = ['accepted', 'declined', 'query', 'more-data-required'];
/** docs/decisions.md, "Clinics answer": a note of at most 4000 characters; the inbox asks for one with these answers. */
export const NOTE_REQUIRED: readonly BusinessStatus[] = ['declined', 'query', 'more-data-required'];
export const MAX_NOTE_LENGTH = 4000;

export interface AnswerForm {
  businessStatus?: string;
  note?: string;
  errors?: { field: 'businessStatus' | 'note' | 'form'; message: string }[];
}

export function answerForm(taskId: string, form: AnswerForm, texts: Texts, csrfToken: string, seen: SeenTask): Html {
  const t = texts.answer;
  const errors = form.errors ?? [];
  const errorOf = (field: 'businessStatus' | 'note') => errors.find((error) => error.field === field);
  const statusError = errorOf('businessStatus');
  const noteError = errorOf('note');
  return html`<section aria-labelledby="answer-heading" class="answer">
<h2 id="answer-heading">${texts.task.sections.answer}</h2>
${
  errors.length
    ? html`<div class="notice notice-error error-summary" role="alert" tabindex="-1" id="answer-errors"><p>${t.errorSummary}</p><ul>${errors.map(
        (error) =>
          html`<li>${error.field === 'form' ? error.message : html`<a href="#${error.field === 'note' ? 'note' : 'answer-accepted'}">${error.message}</a>`}</li>`,
      )}</ul></div>`
    : ''
}
<form method="post" action="/inbox/tasks/${taskId}/answer" class="form" id="answer-form" novalidate>
${csrfField(csrfToken)}
${seenFields(seen)}
<fieldset${statusError ? html` aria-describedby="status-error"` : ''}>
<legend>${t.legend}</legend>
${statusError ? html`<p class="field-error" id="status-error">${statusError.message}</p>` : ''}
${ANSWER_CODES.map(
  (code) =>
    html`<div class="choice"><input type="radio" id="answer-${code}" name="businessStatus" value="${code}" data-note-required="${NOTE_REQUIRED.includes(code) ? 'true' : 'false'}"${form.businessStatus === code ? html` checked` : ''}><label for="answer-${code}">${texts.businessStatus[code]}</label></div>`,
)}
</fieldset>
<div class="field">
<label for="note">${t.note}</label>
<p class="hint" id="note-hint">${t.noteHint}</p>
${noteError ? html`<p class="field-error" id="note-error">${noteError.message}</p>` : ''}
<textarea id="note" name="note" rows="5" maxlength="${MAX_NOTE_LENGTH}" aria-describedby="note-hint${noteError ? ' note-error' : ''}"${noteError ? html` aria-invalid="true"` : ''}>${form.note ?? ''}</textarea>
</div>
<button type="submit" class="button">${t.submit}</button>
</form>
</section>`;
}
