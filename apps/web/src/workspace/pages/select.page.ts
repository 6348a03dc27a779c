import { html, type Html } from '../../inbox/html';
import { csrfField, layout, notice, type PageContext } from '../../inbox/pages/layout';
import { selectTexts as t } from '../select.texts.de';

export interface SelectView {
  placementId: string;
  clinicTaskId: string;
  clinic: string;
  fields: Readonly<Record<string, string>>;
  errors: ReadonlyMap<string, string>;
  summary: readonly string[];
  csrfToken: string;
}

const FIELDS = [
  ['familyName', t.familyName, 'family-name'],
  ['givenNames', t.givenNames, 'given-name'],
  ['birthDate', t.birthDate, 'bday'],
  ['streetLine', t.streetLine, 'street-address'],
  ['phone', t.phone, 'tel'],
] as const;

const TYPES: Record<string, string> = { phone: 'tel', birthDate: 'date' };

/**
 * Selecting a clinic that accepted (docs/workspace.md, "Klinik auswählen"): the page asks for the
 * complete master data at this step, which the selected clinic alone receives, and says what
 * selecting does.
 */
export function selectPage(context: PageContext, view: SelectView): Html {
  const back = `/workspace/requests/${view.placementId}`;
  return layout(context, {
    title: t.title,
    section: 'requests',
    body: html`<div class="narrow">
<p class="page-actions"><a href="${back}">← ${t.cancel}</a></p>
<h1>${t.title}</h1>
<p>${t.intro(view.clinic)}</p>
${view.summary.length ? html`<div class="notice notice-error error-summary" role="alert" tabindex="-1"><p>${t.errorSummary}</p><ul>${view.summary.map((line) => html`<li>${line}</li>`)}</ul></div>` : ''}
${view.errors.get('form') ? notice('error', view.errors.get('form') ?? '') : ''}
<form method="post" action="${back}/select/${view.clinicTaskId}" class="form">
${csrfField(view.csrfToken)}
<fieldset class="form-section"><legend>${t.masterData}</legend>
${FIELDS.map(([name, label, autocomplete]) => {
  const error = view.errors.get(name);
  return html`<div class="field"><label for="s-${name}">${label}</label>${error ? html`<p class="field-error" id="s-${name}-error">${error}</p>` : ''}<input id="s-${name}" name="${name}" type="${TYPES[name] ?? 'text'}" autocomplete="${autocomplete}" maxlength="200" value="${view.fields[name] ?? ''}"${error ? html` aria-invalid="true" aria-describedby="s-${name}-error"` : ''}></div>`;
})}
</fieldset>
<button type="submit" class="button">${t.confirm}</button>
<a href="${back}" class="button button-secondary">${t.cancel}</a>
</form>
</div>`,
  });
}
