import { businessStatusOf, type BusinessStatus, type FhirTask } from '@bedrequest/contracts';
import type { Formats } from '../format';
import { html, safeHttpUrl, type Html, type Interpolation } from '../html';
import { record, text } from '../json-reading';
import type { FieldChange, RequestField, RequestView } from '../request-view';
import type { Texts } from '../texts.de';
import { seenFields, type SeenTask } from './answer-confirm.page';
import { csrfField, layout, notice, type PageContext } from './layout';
import { statusText } from './task-list.page';

export const ANSWER_CODES: readonly BusinessStatus[] = ['accepted', 'declined', 'query', 'more-data-required'];
/** docs/decisions.md, "Clinics answer": a note of at most 4000 characters; the inbox asks for one with these answers. */
export const NOTE_REQUIRED: readonly BusinessStatus[] = ['declined', 'query', 'more-data-required'];
export const MAX_NOTE_LENGTH = 4000;

export interface VersionEntry {
  version: number;
  receivedAt: string;
  view: RequestView;
  /** What changed against the version shown before; undefined for the first shown. */
  changes?: FieldChange[];
}

export interface AttachmentEntry {
  /** Its document's position among the request's documents, from 0. */
  document: number;
  /** Its position among that document's attachments, from 0. */
  index: number;
  title?: string;
  contentType: string;
  size: number;
  receivedAt?: string;
}

export interface AnswerForm {
  businessStatus?: string;
  note?: string;
  errors?: { field: 'businessStatus' | 'note' | 'form'; message: string }[];
}

/** Which page of a paged section is shown (from 1), and how many there are. */
export interface PagePosition {
  page: number;
  pages: number;
}

/**
 * What changed since the person read the request, when their answer was refused for it (docs/inbox.md,
 * "Antworten"): the referrer's newer version with what differs from the one they saw, and the
 * clinic's answer now, with the note that names who gave it when there is one.
 */
export interface Meanwhile {
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
  /** The attachments of a page of documents. */
  attachments: AttachmentEntry[];
  documents: PagePosition;
  form: AnswerForm;
  flash?: { kind: 'success' | 'error' | 'info'; message: string };
  formats: Formats;
  /** The request's patient data was erased: only the Task is left, nothing to read or answer. */
  erased?: boolean;
}

export function taskViewPage(context: PageContext, model: TaskViewModel): Html {
  const { texts } = context;
  const t = texts.task;
  const { task, versions, formats, latest } = model;
  const changed = new Set((latest?.changes ?? []).map((change) => change.key));
  const selected = task.status === 'in-progress';
  const cancelled = task.status === 'cancelled';
  const canAnswer = !cancelled && !model.erased && latest !== undefined;
  const title = `${t.title}: ${texts.patientShort(latest?.view.patient.gender, latest?.view.patient.age)}`;
  const pages = { history: model.history.page, documents: model.documents.page };

  return layout(context, {
    title,
    section: 'tasks',
    body: html`<p><a href="/inbox/tasks">← ${t.back}</a></p>
<h1 data-task-id="${task.id}" data-version="${latest?.version ?? 0}" id="task-title">${title}</h1>
<p class="meta">${t.receivedAt(formats.instant(task.authoredOn) ?? '')} · <span class="status status-${task.status}">${statusText({ status: task.status, ...(businessStatusOf(task) ? { businessStatus: businessStatusOf(task) } : {}) }, texts)}</span></p>
${model.flash ? notice(model.flash.kind, model.flash.message) : ''}
${model.meanwhile ? meanwhileNotice(model.meanwhile, texts, formats) : ''}
${model.erased ? notice('info', t.erased) : cancelled ? notice('warning', t.cancelled) : ''}
${selected && latest ? selectedPatient(latest.view, texts) : ''}
${task.status === 'requested' && task.businessStatus && changed.size ? notice('info', t.supplemented) : ''}
${changed.size ? html`<p class="legend"><mark class="changed">${t.changed}</mark> ${t.changedLegend}</p>` : ''}
${latest ? latest.view.sections.map((section) => sectionOf(t.sections[section.name], section.fields, changed, texts, section.name === 'diagnoses' ? t.noDiagnoses : section.name === 'notes' ? t.noNotes : t.none)) : ''}
<section aria-labelledby="answers-heading">
<h2 id="answers-heading">${t.sections.answers}</h2>
${answersOf(task, texts, formats)}
</section>
<section aria-labelledby="documents-heading">
<h2 id="documents-heading">${t.sections.documents}</h2>
${attachmentsOf(task.id, model.attachments, texts, formats)}
${pagerOf(model.documents, (page) => pageHref(task.id, { ...pages, documents: page }, 'documents-heading'), { label: t.documentsPager, previous: t.documentsPrevious, next: t.documentsNext }, texts)}
</section>
<section aria-labelledby="history-heading">
<h2 id="history-heading">${t.sections.history}</h2>
${historyOf(versions, texts, formats)}
${pagerOf(model.history, (page) => pageHref(task.id, { ...pages, history: page }, 'history-heading'), { label: t.historyPager, previous: t.historyNewer, next: t.historyOlder }, texts)}
</section>
${canAnswer && context.signedIn ? answerForm(task.id, model.form, texts, context.signedIn.csrfToken, { version: latest?.version ?? 0, ...(model.etag ? { etag: model.etag } : {}) }) : ''}`,
  });
}

function sectionOf(heading: string, fields: RequestField[], changed: ReadonlySet<string>, texts: Texts, empty: string): Html {
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
  return notice(
    'error',
    html`<p><strong>${t.staleTitle}</strong></p>
<ul class="meanwhile">${version ? html`<li data-meanwhile="version">${t.staleVersion(version.from, version.to)}${version.changes.length ? html`<ul class="changes">${version.changes.map((change) => changeItem(change, texts))}</ul>` : ''}</li>` : ''}${answer ? html`<li data-meanwhile="answer">${t.staleAnswer(texts.businessStatus[answer.businessStatus])}${answer.note ? authorOf(answer.note, texts) : ''} (<time datetime="${answer.at}">${formats.instant(answer.at)}</time>)</li>` : ''}</ul>
<p>${t.staleRetry}</p>`,
    'answer-stale',
  );
}

function answersOf(task: FhirTask, texts: Texts, formats: Formats): Html {
  const code = task.businessStatus?.coding[0]?.code;
  const notes = task.note ?? [];
  if (!code && notes.length === 0) return html`<p>${texts.task.noAnswers}</p>`;
  return html`${code ? html`<p>${texts.answer.chosen}: <strong>${texts.businessStatus[code]}</strong></p>` : ''}
${notes.length ? html`<ol class="notes">${notes.map((note) => html`<li><time datetime="${note.time}">${formats.instant(note.time)}</time>${authorOf(note, texts)}: ${note.text}</li>`)}</ol>` : ''}`;
}

/**
 * Who of the clinic wrote a note, as the clinic's own Task names them (docs/api.md, "Tasks"): a
 * person (a Practitioner) by display name, an automatic answer (the clinic's Organization) as such;
 * nothing for a note stored before intake kept its author, or a person without a display name.
 */
function authorOf(note: TaskNote, texts: Texts): Html | '' {
  const author = record(note['authorReference']);
  if (author?.['type'] === 'Organization') return html` <span class="note-author">${texts.task.answeredAutomatically}</span>`;
  const name = author?.['type'] === 'Practitioner' ? text(author['display']) : undefined;
  return name ? html` <span class="note-author">${texts.task.answeredBy(name)}</span>` : '';
}

function attachmentsOf(taskId: string, attachments: AttachmentEntry[], texts: Texts, formats: Formats): Html {
  const t = texts.task;
  if (!attachments.length) return html`<p>${t.noDocuments}</p>`;
  return html`<ul class="documents">${attachments.map((attachment) => {
    const fallback = t.documentName(attachment.document + 1, attachment.index + 1);
    const name = attachment.title ? t.documentOf(attachment.title) : fallback;
    const href = `/inbox/tasks/${taskId}/documents/${attachment.document}/attachments/${attachment.index}`;
    return html`<li><span class="document-name">${attachment.title ?? fallback}</span> <span class="meta">(${attachment.contentType}, ${sizeOf(attachment.size)}${attachment.receivedAt ? html`, ${t.documentFrom(formats.instant(attachment.receivedAt) ?? '')}` : ''})</span>
<a href="${href}" target="_blank" rel="noopener" aria-label="${name}: ${t.documentOpen}">${t.documentOpen}</a>
<a href="${href}?download=1" aria-label="${name}: ${t.documentDownload}">${t.documentDownload}</a></li>`;
  })}</ul>`;
}

function historyOf(versions: VersionEntry[], texts: Texts, formats: Formats): Html {
  const t = texts.task;
  return html`<ol class="history" reversed>${[...versions].reverse().map((entry) => {
    const when = formats.instant(entry.receivedAt) ?? entry.receivedAt;
    const body = !entry.changes
      ? html`<p>${t.historyFirst}</p>`
      : entry.changes.length === 0
        ? html`<p>${t.historyUnchanged}</p>`
        : html`<p>${t.historyChanged}</p><ul class="changes">${entry.changes.map((change) => changeItem(change, texts))}</ul>`;
    return html`<li data-version="${entry.version}"><h3>${t.versionOf(entry.version, when)}</h3>${body}</li>`;
  })}</ol>`;
}

/** One changed field: its label, the old value struck through, the new one after it. */
function changeItem(change: FieldChange, texts: Texts): Html {
  const t = texts.task;
  return html`<li><strong>${change.label}</strong>: ${change.before !== undefined ? html`<span class="before"><span class="visually-hidden">${t.historyFrom}: </span><del>${joined(change.before)}</del></span> → ` : ''}${change.after !== undefined ? html`<ins>${html`<span class="visually-hidden">${t.historyTo}: </span>`}${joined(change.after)}</ins>` : ''}</li>`;
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

function answerForm(taskId: string, form: AnswerForm, texts: Texts, csrfToken: string, seen: SeenTask): Html {
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

function joined(value: string | string[]): string {
  return Array.isArray(value) ? value.join('; ') : value;
}

function sizeOf(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${(bytes / 1024).toFixed(0)} kB`;
  return `${(bytes / 1024 / 1024).toFixed(1)} MB`;
}
