import { businessStatusOf, type BusinessStatus, type FhirTask, type ReferrerContact, type TaskHistoryEntry } from '@bedrequest/contracts';
import type { Formats } from '../format';
import { html, safeHttpUrl, type Html, type Interpolation } from '../html';
import type { FieldChange, RequestField, RequestView } from '../request-view';
import type { Texts } from '../texts.de';
import { answerForm, type AnswerForm } from './answer-form';
import { layout, notice, type PageContext } from './layout';
import { answersOf, authorOf, reopenedByDocuments } from './task-answers';
import { attachmentsOf } from './task-documents';
import { changeItem, historyOf } from './task-history';
import { statusText } from './task-list.page';
import { requestNumberLine, summaryOf } from './task-summary';
import { withdrawForm, type WithdrawForm } from './withdraw-form';

export { ANSWER_CODES, MAX_NOTE_LENGTH, NOTE_REQUIRED, type AnswerForm } from './answer-form';

import type { AttachmentEntry, VersionEntry } from './task-entries';

export type { AttachmentEntry, VersionEntry };

/** Which page of a paged section is shown (from 1), and how many there are. */
export interface PagePosition {
  page: number;
  pages: number;
}

/** When the referrer needs the answer, while the Task waits for it (docs/inbox.md, "Antwortfristen"); marked once it passed. */
function deadlineLine(task: FhirTask, texts: Texts, formats: Formats): Html {
  const deadline = task.restriction?.period.end;
  if (task.status !== 'requested' || !deadline) return html``;
  const when = formats.instant(deadline) ?? deadline;
  const overdue = task.extension?.some((each) => each.url.endsWith('/fhir/StructureDefinition/answer-overdue'));
  return overdue ? html` · <strong class="overdue">${texts.task.overdue(when)}</strong>` : html` · <span class="deadline">${texts.task.deadline(when)}</span>`;
}

/**
 * What changed since the person read the request, when their answer was refused for it (docs/inbox.md,
 * "Antworten"): the referrer's newer version with what differs from the one they saw, and the
 * clinic's answer now, with the note that names who gave it when there is one.
 */
export interface Meanwhile {
  /** What was refused: the answer (by default), or the selected clinic's withdrawal of its acceptance. */
  action?: 'answer' | 'withdraw';
  version?: { from: number; to: number; changes: FieldChange[] };
  answer?: { businessStatus: BusinessStatus; at: string; note?: TaskNote };
}

type TaskNote = NonNullable<FhirTask['note']>[number];

export interface TaskViewModel {
  task: FhirTask;
  /** The Task's ETag as read: the answer form sends it back, and the answer goes with it as If-Match. */
  etag?: string;
  /** Set when the person's answer was refused because the Task changed since they read it. */
  meanwhile?: Meanwhile;
  /** What the clinic was sent last, with what changed against the version before; undefined once erased. */
  latest?: VersionEntry;
  /** A page of the versions, oldest first. */
  versions: VersionEntry[];
  history: PagePosition;
  /**
   * The newest entries of the clinic's history of the Task (answers with their notes and authors,
   * deliveries of documents: docs/api.md, "Clinic API"), newest first; undefined when not read.
   */
  timeline?: { items: TaskHistoryEntry[]; total: number };
  /** The deliveries of documents in the span of the versions shown, for the "Verlauf". */
  deliveries?: Extract<TaskHistoryEntry, { kind: 'documents' }>[];
  /** The attachments of a page of documents. */
  attachments: AttachmentEntry[];
  documents: PagePosition;
  form: AnswerForm;
  /** The withdrawal's form, for a selected Task (docs/inbox.md, "Nach der Auswahl"); empty when not given. */
  withdraw?: WithdrawForm;
  flash?: { kind: 'success' | 'error' | 'info'; message: string };
  formats: Formats;
  /** The clinic's workspace of the request (who works on it, internal notes: task-workspace.ts), beside the answer. */
  workspace?: Html;
  /** The request's patient data was erased: only the Task is left, nothing to read or answer. */
  erased?: boolean;
  /** The referrer party's name and contact (docs/api.md, "Clinic API"); undefined when it could not be read. */
  referrer?: ReferrerContact;
}

export function taskViewPage(context: PageContext, model: TaskViewModel): Html {
  const { texts } = context;
  const t = texts.task;
  const { task, versions, formats, latest } = model;
  const changed = new Set((latest?.changes ?? []).map((change) => change.key));
  const selected = task.status === 'in-progress';
  const cancelled = task.status === 'cancelled';
  // A selected clinic's answer would keep the selection (docs/decisions.md, "Clinics answer"): its one
  // action is the withdrawal of its acceptance, in the answer's place.
  const canAnswer = !cancelled && !model.erased && latest !== undefined;
  const seen = { version: latest?.version ?? 0, ...(model.etag ? { etag: model.etag } : {}) };
  const action =
    !canAnswer || !context.signedIn
      ? ''
      : selected
        ? withdrawForm(task.id, model.withdraw ?? {}, texts, context.signedIn.csrfToken, seen)
        : answerForm(task.id, model.form, texts, context.signedIn.csrfToken, seen);
  const title = `${t.title}: ${texts.patientShort(latest?.view.patient.gender, latest?.view.patient.age)}`;
  const pages = { history: model.history.page, documents: model.documents.page };
  // Documents reopened the request after "Weitere Daten erforderlich": say so until the clinic answers.
  const reopened = reopenedByDocuments(task, model.timeline);
  const status = reopened
    ? texts.timeline.reopenedStatus
    : statusText({ status: task.status, ...(businessStatusOf(task) ? { businessStatus: businessStatusOf(task) } : {}) }, texts);

  return layout(context, {
    title,
    section: 'tasks',
    body: html`<p class="page-actions"><a href="/inbox/tasks">← ${t.back}</a>${latest ? html` <a href="/inbox/tasks/${task.id}/print" class="print-link">${t.print}</a>` : ''}</p>
<h1 data-task-id="${task.id}" data-version="${latest?.version ?? 0}" id="task-title">${title}</h1>
${requestNumberLine(task.id, texts)}
<p class="meta">${t.receivedAt(formats.instant(task.authoredOn) ?? '')} · <span class="status status-${task.status}${reopened ? ' status-reopened' : ''}">${status}</span>${deadlineLine(task, texts, formats)}</p>
${model.flash ? notice(model.flash.kind, model.flash.message) : ''}
${model.meanwhile ? meanwhileNotice(model.meanwhile, texts, formats) : ''}
${model.erased ? notice('info', t.erased) : cancelled ? notice('warning', t.cancelled) : ''}
${selected && latest ? selectedPatient(latest.view, texts) : ''}
${task.status === 'requested' && task.businessStatus && changed.size ? notice('info', t.supplemented) : ''}
${reopened ? notice('info', html`<p>${texts.timeline.reopenedNotice(formats.instant(reopened) ?? reopened)} <a href="#documents-heading">${texts.timeline.reopenedLink}</a></p>`, 'documents-supplied') : ''}
${
  // The summary and the answer side by side on a wide screen, one above the other on a narrow one (inbox-style.ts).
  latest
    ? html`<div class="task-top${action || model.workspace ? ' with-answer' : ''}">
${summaryOf(latest, texts, formats, model.referrer)}
${action || model.workspace ? html`<div class="task-side">${action}${model.workspace ?? ''}</div>` : ''}
</div>`
    : ''
}
${changed.size ? html`<p class="legend"><mark class="changed">${t.changed}</mark> ${t.changedLegend}</p>` : ''}
${latest ? latest.view.sections.map((section) => sectionOf(t.sections[section.name], section.fields, changed, texts, section.name === 'diagnoses' ? t.noDiagnoses : section.name === 'notes' ? t.noNotes : t.none)) : ''}
<section aria-labelledby="answers-heading">
<h2 id="answers-heading">${t.sections.answers}</h2>
${answersOf(task, texts, formats, model.timeline)}
</section>
<section aria-labelledby="documents-heading">
<h2 id="documents-heading">${t.sections.documents}</h2>
${attachmentsOf(task.id, model.attachments, texts, formats)}
${pagerOf(model.documents, (page) => pageHref(task.id, { ...pages, documents: page }, 'documents-heading'), { label: t.documentsPager, previous: t.documentsPrevious, next: t.documentsNext }, texts)}
</section>
<section aria-labelledby="history-heading">
<h2 id="history-heading">${t.sections.history}</h2>
${historyOf(versions, texts, formats, model.deliveries)}
${pagerOf(model.history, (page) => pageHref(task.id, { ...pages, history: page }, 'history-heading'), { label: t.historyPager, previous: t.historyNewer, next: t.historyOlder }, texts)}
</section>`,
  });
}

export function sectionOf(heading: string, fields: RequestField[], changed: ReadonlySet<string>, texts: Texts, empty: string): Html {
  const id = `section-${heading.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`;
  return html`<section aria-labelledby="${id}">
<h2 id="${id}">${heading}</h2>
${fields.length ? html`<dl class="fields">${fields.map((entry) => fieldOf(entry, changed.has(entry.key), texts))}</dl>` : html`<p>${empty}</p>`}
</section>`;
}

function fieldOf(entry: RequestField, isChanged: boolean, texts: Texts): Html {
  const href = safeHttpUrl(entry.href);
  const value: Interpolation = href
    ? html`<a href="${href}" rel="noopener noreferrer" target="_blank">${texts.task.deepLinkText}</a> <span class="url">${entry.value}</span>`
    : Array.isArray(entry.value)
      ? html`<ul class="plain">${entry.value.map((line) => html`<li>${line}</li>`)}</ul>`
      : entry.value;
  return html`<div class="field-row${isChanged ? ' is-changed' : ''}" data-field="${entry.key}"><dt>${entry.label}${isChanged ? html` <mark class="changed">${texts.task.changed}</mark>` : ''}</dt><dd>${value}</dd></div>`;
}

function selectedPatient(view: RequestView, texts: Texts): Html {
  const patient = view.sections.find((section) => section.name === 'patient');
  return html`<section class="selected" aria-labelledby="selected-heading">
<h2 id="selected-heading">${texts.task.selected}</h2>
<p class="patient-name">${view.patient.name ?? texts.task.fields.masked}</p>
${patient ? html`<dl class="fields">${patient.fields.filter((entry) => entry.key !== 'patient.name').map((entry) => fieldOf(entry, false, texts))}</dl>` : ''}
</section>`;
}

/** Why the answer was not stored, and what changed since the person read the request; read out at once. */
function meanwhileNotice(meanwhile: Meanwhile, texts: Texts, formats: Formats): Html {
  const t = texts.answer;
  const { version, answer } = meanwhile;
  const withdrawal = meanwhile.action === 'withdraw';
  return notice(
    'error',
    html`<p><strong>${withdrawal ? texts.withdraw.staleTitle : t.staleTitle}</strong></p>
<ul class="meanwhile">${version ? html`<li data-meanwhile="version">${t.staleVersion(version.from, version.to)}${version.changes.length ? html`<ul class="changes">${version.changes.map((change) => changeItem(change, texts))}</ul>` : ''}</li>` : ''}${answer ? html`<li data-meanwhile="answer">${t.staleAnswer(texts.businessStatus[answer.businessStatus])}${answer.note ? authorOf(answer.note, texts) : ''} (<time datetime="${answer.at}">${formats.instant(answer.at)}</time>)</li>` : ''}</ul>
<p>${withdrawal ? texts.withdraw.staleRetry : t.staleRetry}</p>`,
    'answer-stale',
  );
}

/** The request's page with `pages` of its versions and documents (the first left out), at `anchor`. */
function pageHref(taskId: string, pages: { history: number; documents: number }, anchor: string): string {
  const query = new URLSearchParams();
  if (pages.history > 1) query.set('history', String(pages.history));
  if (pages.documents > 1) query.set('documents', String(pages.documents));
  const search = query.size ? `?${query}` : '';
  return `/inbox/tasks/${taskId}${search}#${anchor}`;
}

/** Links to the page before and after `position` of a paged section, and which page it is; nothing when there is one page. */
function pagerOf(position: PagePosition, hrefOf: (page: number) => string, words: { label: string; previous: string; next: string }, texts: Texts): Html | '' {
  if (position.pages <= 1 && position.page <= 1) return '';
  const previous =
    position.page > 1
      ? html`<a class="button button-secondary" rel="prev" href="${hrefOf(Math.min(position.page - 1, position.pages))}">${words.previous}</a>`
      : '';
  const next = position.page < position.pages ? html`<a class="button button-secondary" rel="next" href="${hrefOf(position.page + 1)}">${words.next}</a>` : '';
  return html`<nav class="pager" aria-label="${words.label}"><p class="meta">${texts.task.pageOf(position.page, position.pages)}</p><p>${previous} ${next}</p></nav>`;
}
