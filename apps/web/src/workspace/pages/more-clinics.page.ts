import type { ClinicRecord, FreeBedsItem } from '@bedrequest/contracts';
import { html, type Html } from '../../inbox/html';
import { csrfField, layout, type PageContext } from '../../inbox/pages/layout';
import { moreClinicsTexts as t } from '../more-clinics.texts.de';
import type { WorkspaceTexts } from '../workspace.texts.de';
import { clinicCheckboxes, type AnswerFiguresOfChoice } from './new-request.page';

export interface MoreClinicsView {
  placementId: string;
  /** The clinics the request went to, by name. */
  asked: readonly string[];
  /** The registry's clinics offering the request's specialty that it did not go to yet. */
  clinics: readonly ClinicRecord[];
  freeBeds: readonly FreeBedsItem[];
  /** Their answer figures (docs/workspace.md, "Antwortzeiten der Kliniken"). */
  answerFigures?: AnswerFiguresOfChoice;
  ticked: readonly string[];
  error?: string;
  refusal?: readonly string[];
  csrfToken: string;
}

/** Asking further clinics for a request (docs/workspace.md, "Weitere Kliniken anfragen"). */
export function moreClinicsPage(context: PageContext, texts: WorkspaceTexts, view: MoreClinicsView): Html {
  const back = `/workspace/requests/${view.placementId}`;
  const problems = view.refusal ?? (view.error ? [view.error] : []);
  return layout(context, {
    title: t.title,
    section: 'requests',
    body: html`<div class="narrow">
<p class="page-actions"><a href="${back}">← ${t.cancel}</a></p>
<h1>${t.title}</h1>
<p>${t.intro}</p>
${
  problems.length
    ? html`<div class="notice notice-error error-summary" role="alert" tabindex="-1"><p>${view.refusal ? t.refused : t.errorSummary}</p><ul>${problems.map((line) => html`<li>${line}</li>`)}</ul></div>`
    : ''
}
<h2>${t.asked}</h2>
<ul>${view.asked.map((clinic) => html`<li>${clinic}</li>`)}</ul>
<form method="post" action="${back}/more-clinics" class="form">
${csrfField(view.csrfToken)}
<fieldset class="form-section"><legend>${t.choose}</legend>
<p class="hint">${t.hint}</p>
${view.error ? html`<p class="field-error" id="f-performers-error">${view.error}</p>` : ''}
${clinicCheckboxes(
  {
    clinics: view.clinics,
    freeBeds: view.freeBeds,
    ticked: view.ticked,
    ...(view.error ? { error: view.error } : {}),
    ...(view.answerFigures ? { answerFigures: view.answerFigures } : {}),
  },
  texts,
  t.none,
)}
</fieldset>
${view.clinics.length ? html`<button type="submit" class="button">${t.send}</button>` : ''}
<a href="${back}" class="button button-secondary">${t.cancel}</a>
</form>
</div>`,
  });
}
