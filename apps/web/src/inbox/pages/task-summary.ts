import type { ReferrerContact } from '@bedrequest/contracts';
import type { Formats } from '../format';
import { html, type Html } from '../html';
import { requestNumberOf } from '../request-number';
import type { RequestField } from '../request-view';
import type { Texts } from '../texts.de';
import type { VersionEntry } from './task-entries';

/** The request's number to quote on the phone, shown large under the page's title. */
export function requestNumberLine(taskId: string, texts: Texts): Html {
  return html`<p class="request-number">${texts.task.requestNumber} <strong id="request-number">${requestNumberOf(taskId)}</strong></p>`;
}

/**
 * What a clerk decides by, at the top of the request (docs/inbox.md, "A request"): the patient's
 * gender and age, main diagnosis, desired date, department, insurer, mobility (from the referrer's
 * notes), the referrer, whom to call there (its party's contact, when read) and its case number, and
 * what the newest version changed. Each but the contact read from the request's fields
 * (request-view.ts), so the summary says nothing the sections below do not.
 */
export function summaryOf(latest: VersionEntry, texts: Texts, formats: Formats, referrer?: ReferrerContact): Html {
  const t = texts.task;
  const { view } = latest;
  const fields = new Map<string, RequestField>(view.sections.flatMap((section) => section.fields).map((entry) => [entry.key, entry]));
  const line = (key: string) => {
    const value = fields.get(key)?.value;
    return Array.isArray(value) ? value.join('; ') : value;
  };
  const insurer = [line('coverage.payor'), line('coverage.type')].filter(Boolean).join(', ');
  const changed = latest.changes ?? [];
  const rows: [string, string, Html | string | undefined][] = [
    ['patient', t.summaryPatient, texts.patientShort(view.patient.gender, view.patient.age)],
    ['diagnosis', t.fields.mainDiagnosis, line('diagnoses.0') ?? t.noDiagnoses],
    ['admission', t.fields.admission, line('request.admission') ?? t.none],
    ['department', t.fields.department, line('request.department') ?? t.none],
    ['insurer', t.summaryInsurer, insurer || t.none],
    [
      'mobility',
      t.summaryMobility,
      view.mobility.length ? html`<ul class="plain">${view.mobility.map((note) => html`<li>${note}</li>`)}</ul>` : t.summaryMobilityNone,
    ],
    ['requester', t.fields.requester, line('request.requester')],
    ['contact', t.summaryContact, referrer && contactOf(referrer, texts)],
    ['caseNumber', t.fields.caseNumber, line('request.caseNumber')],
    [
      'changed',
      t.summaryChanged,
      changed.length
        ? html`${t.summaryChangedIn(t.versionOf(latest.version, formats.instant(latest.receivedAt) ?? latest.receivedAt))} ${changed.map((change) => change.label).join(', ')}`
        : undefined,
    ],
  ];
  return html`<section class="summary" aria-labelledby="summary-heading">
<h2 id="summary-heading">${t.summary}</h2>
<dl class="fields">${rows
    .filter((row): row is [string, string, Html | string] => row[2] !== undefined)
    .map(([key, label, value]) => html`<div class="field-row" data-summary="${key}"><dt>${label}</dt><dd>${value}</dd></div>`)}</dl>
</section>`;
}

/**
 * The referrer party's name and whom to call there, the telephone number a link to dial (the
 * number as written, its digits and a leading + in the link), the e-mail one to write.
 */
function contactOf(referrer: ReferrerContact, texts: Texts): Html {
  const { contactName, contactPhone, contactEmail } = referrer;
  const dial = contactPhone && `tel:${contactPhone.replace(/[^0-9+]/g, '')}`;
  const parts = [
    html`<span class="contact-party">${referrer.name}</span>`,
    contactName && html`<span class="contact-name">${contactName}</span>`,
    dial && html`<span class="contact-phone">${texts.task.phone} <a href="${dial}">${contactPhone}</a></span>`,
    contactEmail && html`<a class="contact-email" href="mailto:${contactEmail}">${contactEmail}</a>`,
  ].filter((part): part is Html => Boolean(part));
  if (parts.length === 1) parts.push(html`<span class="contact-none">${texts.task.summaryContactNone}</span>`);
  return html`${parts.map((part, index) => (index === 0 ? part : html` · ${part}`))}`;
}
