import { html, type Html } from '../../inbox/html';
import { csrfField, layout, type PageContext } from '../../inbox/pages/layout';
import { documentsTexts as t } from '../documents.texts.de';
import { UPLOAD_ROWS } from '../documents-upload';

export interface DocumentsView {
  placementId: string;
  csrfToken: string;
  limits: { fileBytes: number; totalBytes: number; kindLength: number };
  /** The kinds typed, by row from 1: kept when the form comes back. */
  kinds: ReadonlyMap<number, string>;
  /** By field name (`file-1`, `kind-1`): what is wrong with it. */
  errors: ReadonlyMap<string, string>;
  /** The service's refusal, in its words. */
  refusal?: readonly string[];
}

/**
 * Sending documents for a request (docs/workspace.md, "Unterlagen senden"): the limits stated before
 * anything is chosen, a file and its kind per row, each refusal beside its field and in a summary
 * that links to it.
 */
export function documentsPage(context: PageContext, view: DocumentsView): Html {
  const back = `/workspace/requests/${view.placementId}`;
  const action = `${back}/documents`;
  const problems = [...view.errors.entries()];
  return layout(context, {
    title: t.title,
    section: 'requests',
    body: html`<div class="narrow">
<p class="page-actions"><a href="${back}">← ${t.back}</a></p>
<h1>${t.title}</h1>
${
  problems.length || view.refusal
    ? html`<div class="notice notice-error error-summary" role="alert" tabindex="-1"><p>${view.refusal ? t.refused : t.errorSummary}</p><ul>${
        view.refusal
          ? view.refusal.map((line) => html`<li>${line}</li>`)
          : problems.map(([field, message]) => html`<li><a href="#d-${field}">${message}</a></li>`)
      }</ul></div>`
    : ''
}
<p>${t.intro}</p>
<p id="documents-limits"><strong>${t.limits(view.limits.fileBytes, view.limits.totalBytes, UPLOAD_ROWS)}</strong> ${t.limitsWhy}</p>
<form method="post" action="${action}" enctype="multipart/form-data" class="form">
${csrfField(view.csrfToken)}
${Array.from({ length: UPLOAD_ROWS }, (_, index) => row(index + 1, view))}
<datalist id="document-kinds">${t.kinds.map((kind) => html`<option value="${kind}"></option>`)}</datalist>
<button type="submit" class="button">${t.send}</button>
<a href="${back}" class="button button-secondary">${t.cancel}</a>
</form>
</div>`,
  });
}

/** One document: the file, and what it is (chosen from the list or typed). */
function row(n: number, view: DocumentsView): Html {
  const field = (name: string, label: string, input: (described: string, invalid: boolean) => Html, hint?: string) => {
    const error = view.errors.get(name);
    const described = [hint ? `d-${name}-hint` : '', error ? `d-${name}-error` : '', name.startsWith('file-') ? 'documents-limits' : '']
      .filter(Boolean)
      .join(' ');
    return html`<div class="field"><label for="d-${name}">${label}</label>${hint ? html`<p class="hint" id="d-${name}-hint">${hint}</p>` : ''}${
      error ? html`<p class="field-error" id="d-${name}-error">${error}</p>` : ''
    }${input(described, Boolean(error))}</div>`;
  };
  const invalid = (yes: boolean) => (yes ? html` aria-invalid="true"` : '');
  return html`<fieldset class="form-section"><legend>${t.document(n)}</legend>
${field(
  `file-${n}`,
  t.file,
  (described, bad) =>
    html`<input id="d-file-${n}" name="file-${n}" type="file" accept=".pdf,.png,.jpg,.jpeg,application/pdf,image/png,image/jpeg" aria-describedby="${described}"${invalid(bad)}>`,
)}
${field(
  `kind-${n}`,
  t.kind,
  (described, bad) =>
    html`<input id="d-kind-${n}" name="kind-${n}" type="text" list="document-kinds" maxlength="${view.limits.kindLength}" autocomplete="off" value="${view.kinds.get(n) ?? ''}" aria-describedby="${described}"${invalid(bad)}>`,
  n === 1 ? t.kindHint : undefined,
)}
</fieldset>`;
}
