import type { ClinicRecord } from '@bedrequest/contracts';
import type { RequestForm } from '@bedrequest/fhir-model';
import type { Formats } from '../../inbox/format';
import { html, type Html } from '../../inbox/html';
import { newRequestTexts as t } from '../new-request.texts.de';
import type { WorkspaceTexts } from '../workspace.texts.de';

/** The form's label without its required mark. */
const label = (text: string) => text.replace(/ \*$/, '');

export const sentTexts = {
  heading: 'Gesendete Angaben',
  intro: 'Die Anfrage, wie Ihr Krankenhaus sie zuletzt gesendet hat (ohne die interne Fallnummer, die keine Klinik erhält).',
  name: 'Name',
  street: 'Straße und Hausnummer',
  phone: 'Telefon',
  clinics: 'Angefragte Kliniken',
  discharged: (day: string) => `entlassen am ${day}`,
};

/**
 * What the hospital last sent for a request (docs/workspace.md, "Eine Anfrage"), read back through
 * the public API (docs/api.md, "Reading a request back"): the patient as the clinics see it (the
 * name only after a selection), the request, diagnoses, measurements, insurer, stay and notes.
 */
export function sentRequestSection(form: RequestForm, clinics: ReadonlyMap<string, ClinicRecord>, texts: WorkspaceTexts, formats: Formats): Html {
  const day = (date: string | undefined) => formats.day(date) ?? date ?? '';
  const { patient, stay, coverage } = form;
  const name = [patient.givenNames?.join(' '), patient.familyName].filter(Boolean).join(' ');
  const rows: [string, string | Html][] = [
    [label(t.fields.gender), t.genders[patient.gender] ?? patient.gender],
    [label(t.fields.birthDate), day(patient.birthDate)],
    [label(t.fields.postalCode), patient.postalCode],
    [label(t.fields.city), patient.city],
    ...(name ? [[sentTexts.name, name] as [string, string]] : []),
    ...(patient.streetLine ? [[sentTexts.street, patient.streetLine] as [string, string]] : []),
    ...(patient.phone ? [[sentTexts.phone, patient.phone] as [string, string]] : []),
    [label(t.fields.desiredAdmissionDate), day(form.desiredAdmissionDate)],
    [label(t.fields.serviceType), texts.serviceType[form.serviceType] ?? form.serviceType],
    ...(form.specialty ? [[label(t.fields.specialty), texts.specialty[form.specialty] ?? form.specialty] as [string, string]] : []),
    [
      t.sections.diagnoses,
      html`<ul class="plain">${form.diagnoses.map((diagnosis) => html`<li><strong>${diagnosis.code}</strong> ${diagnosis.text}</li>`)}</ul>`,
    ],
    ...(form.weightKg === undefined ? [] : [[t.fields.weightKg, String(form.weightKg).replace('.', ',')] as [string, string]]),
    ...(form.heightCm === undefined ? [] : [[t.fields.heightCm, String(form.heightCm)] as [string, string]]),
    ...(coverage
      ? [[t.sections.coverage, `${coverage.payorName} (IK ${coverage.payorIk}), ${t.kinds[coverage.kind] ?? coverage.kind}`] as [string, string]]
      : []),
    ...(stay
      ? [
          [
            t.sections.stay,
            [
              `${label(t.fields.admissionDate)}: ${day(stay.admissionDate)}`,
              stay.status === 'discharged' && stay.dischargeDate ? sentTexts.discharged(day(stay.dischargeDate)) : (t.stayStatuses[stay.status] ?? stay.status),
              stay.caseNumber ? `${t.fields.caseNumber}: ${stay.caseNumber}` : '',
            ]
              .filter(Boolean)
              .join(' · '),
          ] as [string, string],
        ]
      : []),
    ...(form.notes?.length ? [[t.sections.notes, html`${form.notes.map((note) => html`<p class="note-text">${note}</p>`)}`] as [string, Html]] : []),
    [sentTexts.clinics, form.performers.map((performer) => texts.clinicOf(clinics.get(performer.ik)?.name ?? performer.name, performer.ik)).join(', ')],
  ];
  return html`<section aria-labelledby="sent-heading" id="sent-request">
<h2 id="sent-heading">${sentTexts.heading}</h2>
<p class="hint">${sentTexts.intro}</p>
<dl class="fields">${rows.map(([term, value]) => html`<div class="field-row"><dt>${term}</dt><dd>${value}</dd></div>`)}</dl>
</section>`;
}
