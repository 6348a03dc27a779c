import type { ClinicAnswerStatistics, ClinicRecord, FreeBedsItem } from '@bedrequest/contracts';
import { answerStatisticsTexts } from '../../inbox/answer-statistics.texts.de';
import { COVERAGE_KINDS, SERVICE_TYPE_CODES, SPECIALTIES, STAY_STATUSES } from '@bedrequest/fhir-model';
import { html, type Html } from '../../inbox/html';
import { csrfField, layout, notice, type PageContext } from '../../inbox/pages/layout';
import { newRequestTexts as t } from '../new-request.texts.de';
import { ownDataTexts } from '../own-data.texts.de';
import type { WorkspaceTexts } from '../workspace.texts.de';

/** How many diagnosis rows the form offers (the first is the main diagnosis). */
export const DIAGNOSIS_ROWS = 3;

/** What the person typed, by the form's field names (`patient.birthDate`, `diagnoses.0.code`), and the clinics ticked. */
export interface NewRequestInput {
  fields: Readonly<Record<string, string>>;
  clinics: readonly string[];
}

export interface NewRequestView {
  input: NewRequestInput;
  /** A refusal by the form's field name it stands at; `form` for one that names none. */
  errors: ReadonlyMap<string, string>;
  /** The refusals in the service's own words, listed above the form. */
  summary: readonly string[];
  /** The registry's clinics offering the chosen specialty (all without one), with their free beds on the desired date where shown. */
  clinics: readonly ClinicRecord[];
  freeBeds: readonly FreeBedsItem[];
  /** The clinics' answer figures in the departments shown (docs/workspace.md, "Antwortzeiten der Kliniken"). */
  answerFigures?: AnswerFiguresOfChoice;
  csrfToken: string;
  /** The party's default answer deadline, which an empty field leaves to the service. */
  deadlineDefault: { workingDays: number; holidays: string };
  /** A supplement of a request sent before (docs/workspace.md, "Anfrage ergänzen"): its own address and words, its clinics fixed. */
  supplement?: { action: string; clinics: readonly string[] };
  /** The draft the form was opened from or saved as (docs/workspace.md, "Entwürfe"): sending it deletes it. */
  draft?: { id: string; notice?: string };
}

/**
 * The hospital's new request as a form (docs/workspace.md, "Neue Anfrage"): the patient masked, the
 * request, diagnoses, measurements, insurer, the stay and notes, and the clinics to ask, each with
 * its free beds for the desired date where it shows them. Works without the script: "Kliniken …
 * anzeigen" posts the form and shows it again with the clinics of the specialty.
 */
export function newRequestPage(context: PageContext, texts: WorkspaceTexts, view: NewRequestView): Html {
  const { fields } = view.input;
  const value = (name: string) => fields[name] ?? '';
  const idOf = (name: string) => `f-${name.replace(/\./g, '-')}`;
  const errorOf = (name: string) => view.errors.get(name);
  const aria = (name: string, hint?: string) => {
    const error = errorOf(name);
    const ids = [hint, error ? `${idOf(name)}-error` : ''].filter(Boolean).join(' ');
    return html`${ids ? html` aria-describedby="${ids}"` : ''}${error ? html` aria-invalid="true"` : ''}`;
  };
  const errorLine = (name: string) => (errorOf(name) ? html`<p class="field-error" id="${idOf(name)}-error">${errorOf(name)}</p>` : '');
  const input = (name: string, label: string, type = 'text', extra: Html = html``, hint?: string) =>
    html`<div class="field"><label for="${idOf(name)}">${label}</label>${errorLine(name)}<input id="${idOf(name)}" name="${name}" type="${type}" value="${value(name)}"${extra}${aria(name, hint)}></div>`;
  const select = (name: string, label: string, options: readonly string[], names: Record<string, string>) =>
    html`<div class="field"><label for="${idOf(name)}">${label}</label>${errorLine(name)}<select id="${idOf(name)}" name="${name}"${aria(name)}><option value="">${t.choose}</option>${options.map(
      (option) => html`<option value="${option}"${value(name) === option ? html` selected` : ''}>${names[option] ?? option}</option>`,
    )}</select></div>`;
  const checkbox = (name: string, label: string, hint: string) =>
    html`<div class="field choice"><input type="checkbox" id="${idOf(name)}" name="${name}" value="yes"${value(name) === 'yes' ? html` checked` : ''} aria-describedby="${idOf(name)}-hint"><label for="${idOf(name)}">${label}</label><p class="hint" id="${idOf(name)}-hint">${hint}</p></div>`;
  const section = (name: keyof typeof t.sections, body: Html) => html`<fieldset class="form-section"><legend>${t.sections[name]}</legend>${body}</fieldset>`;
  const specialtyNames = Object.fromEntries(SPECIALTIES.map((row) => [row.code, texts.specialty[row.code] ?? row.display]));

  const supplement = view.supplement;
  const own = ownDataTexts.caseNumber;
  return layout(context, {
    title: supplement ? t.supplement.title : t.title,
    section: supplement ? 'requests' : 'new-request',
    body: html`<h1>${supplement ? t.supplement.title : t.title}</h1>
<p>${supplement ? t.supplement.intro : t.intro}</p>
<p class="hint">${t.required}</p>
${
  view.summary.length
    ? html`<div class="notice notice-error error-summary" role="alert" tabindex="-1" id="request-errors"><p>${t.errorSummary}</p><ul>${view.summary.map((line) => html`<li>${line}</li>`)}</ul></div>`
    : ''
}
${errorOf('form') ? notice('error', errorOf('form') ?? '') : ''}
${view.draft?.notice ? notice('info', view.draft.notice) : ''}
<form method="post" action="${supplement?.action ?? '/workspace/requests/new'}" class="form new-request">
${csrfField(view.csrfToken)}${view.draft ? html`<input type="hidden" name="draftId" value="${view.draft.id}">` : ''}
${section(
  'patient',
  html`${select('patient.gender', t.fields.gender, ['female', 'male', 'other', 'unknown'], t.genders)}${input('patient.birthDate', t.fields.birthDate, 'date')}${checkbox('patient.birthYearOnly', t.fields.birthYearOnly, t.hints.birthYearOnly)}${input('patient.postalCode', t.fields.postalCode, 'text', html` autocomplete="off" maxlength="10"`)}${input('patient.city', t.fields.city, 'text', html` autocomplete="off" maxlength="100"`)}`,
)}
${section(
  'request',
  html`${input('desiredAdmissionDate', t.fields.desiredAdmissionDate, 'date')}<p class="hint" id="deadline-hint">${t.hints.answerDeadline(view.deadlineDefault.workingDays, view.deadlineDefault.holidays)}</p>${input('answerDeadline', t.fields.answerDeadline, 'datetime-local', html``, 'deadline-hint')}${select('serviceType', t.fields.serviceType, SERVICE_TYPE_CODES, texts.serviceType)}${select(
    'specialty',
    t.fields.specialty,
    SPECIALTIES.map((row) => row.code),
    specialtyNames,
  )}`,
)}
${section(
  'diagnoses',
  html`<p class="hint" id="diagnosis-hint">${t.hints.diagnosisCode}</p>${Array.from(
    { length: DIAGNOSIS_ROWS },
    (_, n) =>
      html`<div class="field-pair">${input(`diagnoses.${n}.code`, t.fields.diagnosisCode(n), 'text', html` autocomplete="off" maxlength="10" spellcheck="false"`, 'diagnosis-hint')}${input(
        `diagnoses.${n}.text`,
        t.fields.diagnosisText(n),
        'text',
        html` maxlength="500"`,
      )}</div>`,
  )}`,
)}
${section('measurements', html`${input('weightKg', t.fields.weightKg, 'number', html` min="0.3" max="500" step="0.1"`)}${input('heightCm', t.fields.heightCm, 'number', html` min="20" max="260" step="1"`)}`)}
${section(
  'coverage',
  html`<p class="hint" id="coverage-hint">${t.hints.coverage}</p>${errorLine('coverage')}${input('coverage.payorIk', t.fields.payorIk, 'text', html` inputmode="numeric" maxlength="9"`, 'coverage-hint')}${input(
    'coverage.payorName',
    t.fields.payorName,
  )}${select('coverage.kind', t.fields.kind, COVERAGE_KINDS, t.kinds)}`,
)}
${section(
  'stay',
  html`${errorLine('stay')}${input('stay.admissionDate', t.fields.admissionDate, 'date')}${select('stay.status', t.fields.stayStatus, STAY_STATUSES, t.stayStatuses)}${input(
    'stay.dischargeDate',
    t.fields.dischargeDate,
    'date',
  )}${input('stay.caseNumber', t.fields.caseNumber, 'text', html` autocomplete="off" maxlength="64"`)}`,
)}
${section(
  'notes',
  html`<div class="field"><label for="f-notes">${t.fields.notes}</label>${errorLine('notes')}<textarea id="f-notes" name="notes" rows="4" maxlength="4000"${aria('notes')}>${value('notes')}</textarea></div>`,
)}
${supplement ? section('clinics', html`<ul>${supplement.clinics.map((clinic) => html`<li>${clinic}</li>`)}</ul>`) : section('clinics', clinicChoices(view, texts))}
${
  supplement
    ? ''
    : html`<fieldset class="form-section"><legend>${own.section}</legend><p class="hint" id="own-case-number-hint">${own.hint}</p>${input(
        'ownCaseNumber',
        own.label,
        'text',
        html` autocomplete="off" maxlength="64" spellcheck="false"`,
        'own-case-number-hint',
      )}</fieldset>`
}
<button type="submit" class="button">${supplement ? t.supplement.send : t.send}</button>${
      supplement
        ? ''
        : html` <button type="submit" name="step" value="draft" class="button button-secondary" formnovalidate>${ownDataTexts.drafts.save}</button>`
    }
</form>`,
  });
}

function clinicChoices(view: NewRequestView, texts: WorkspaceTexts): Html {
  const error = view.errors.get('performers');
  return html`<p class="hint" id="clinics-hint">${t.hints.clinics}</p>${error ? html`<p class="field-error" id="f-performers-error">${error}</p>` : ''}
<button type="submit" name="step" value="clinics" class="button button-secondary" formnovalidate>${t.showClinics}</button>
${clinicCheckboxes(
  {
    clinics: view.clinics,
    freeBeds: view.freeBeds,
    ticked: view.input.clinics,
    ...(error ? { error } : {}),
    ...(view.answerFigures ? { answerFigures: view.answerFigures } : {}),
  },
  texts,
)}`;
}

/** The answer figures beside the clinics to choose: the window, and each clinic's per department shown. */
export interface AnswerFiguresOfChoice {
  windowDays: number;
  items: readonly ClinicAnswerStatistics[];
}

/**
 * The clinics to tick, each with its free beds where it shows them and its answer figures where
 * given (of its department with the most answers, when the specialty has several); `error` names
 * the field's refusal.
 */
export function clinicCheckboxes(
  view: {
    clinics: readonly ClinicRecord[];
    freeBeds: readonly FreeBedsItem[];
    ticked: readonly string[];
    error?: string;
    answerFigures?: AnswerFiguresOfChoice;
  },
  texts: WorkspaceTexts,
  empty: string = t.noClinics,
): Html {
  const free = (clinic: ClinicRecord) => {
    const items = view.freeBeds.filter((item) => item.ik === clinic.ik);
    return items.length ? t.freeBeds(items.reduce((sum, item) => sum + item.free, 0)) : t.noFreeBeds;
  };
  const figures = (clinic: ClinicRecord) => {
    if (!view.answerFigures) return '';
    const mostAnswers = view.answerFigures.items.filter((item) => item.clinicIk === clinic.ik).sort((a, b) => b.answers - a.answers)[0];
    return html`<span class="meta answer-figures">${answerStatisticsTexts.choice(mostAnswers, view.answerFigures.windowDays)}</span>`;
  };
  if (!view.clinics.length) return html`<p class="empty">${empty}</p>`;
  return html`<ul class="plain clinic-choices">${view.clinics.map(
    (clinic) =>
      html`<li class="choice"><input type="checkbox" id="clinic-${clinic.ik}" name="clinic" value="${clinic.ik}"${view.ticked.includes(clinic.ik) ? html` checked` : ''}${view.error ? html` aria-describedby="f-performers-error"` : ''}><label for="clinic-${clinic.ik}">${texts.clinicOf(clinic.name, clinic.ik)} <span class="meta">(${free(clinic)})</span> ${figures(clinic)}</label></li>`,
  )}</ul>`;
}
