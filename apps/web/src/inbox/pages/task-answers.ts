import type { FhirTask, TaskHistoryEntry } from '@bedrequest/contracts';
import type { Formats } from '../format';
import { html, type Html } from '../html';
import { record, text } from '../json-reading';
import type { Texts } from '../texts.de';

type TaskNote = NonNullable<FhirTask['note']>[number];
type AnswerEntry = Extract<TaskHistoryEntry, { kind: 'answer' | 'note' }>;
type OverdueEntry = Extract<TaskHistoryEntry, { kind: 'overdue' }>;

/**
 * The clinic's answers so far (docs/inbox.md, "A request"). From the clinic's history of the Task
 * (`timeline`, newest first) when it holds them: one entry per answer with its time, the person who
 * gave it or "automatisch", the answer and the note given with it beneath it, so that a note stands
 * under its own answer, and the service's overdue marks where they came. Without that (a history that holds no answers, or none read) the Task's
 * notes as before, which name no answer.
 */
export function answersOf(task: FhirTask, texts: Texts, formats: Formats, timeline?: { items: TaskHistoryEntry[]; total: number }): Html {
  const code = task.businessStatus?.coding[0]?.code;
  const entries = (timeline?.items ?? []).filter(
    (entry): entry is AnswerEntry | OverdueEntry => entry.kind === 'answer' || entry.kind === 'note' || entry.kind === 'overdue',
  );
  const current = code ? html`<p>${texts.answer.chosen}: <strong>${texts.businessStatus[code]}</strong></p>` : '';
  if (timeline && entries.length) {
    const more = timeline.total > timeline.items.length ? html`<p class="meta">${texts.timeline.older(timeline.items.length, timeline.total)}</p>` : '';
    const none = entries.every((entry) => entry.kind === 'overdue') && !code ? html`<p>${texts.task.noAnswers}</p>` : '';
    return html`${current}${none}
<ol class="answer-history" reversed>${entries.map((entry) => (entry.kind === 'overdue' ? overdueEntry(entry, texts, formats) : answerEntry(entry, texts, formats)))}</ol>${more}`;
  }
  const notes = task.note ?? [];
  if (!code && notes.length === 0) return html`<p>${texts.task.noAnswers}</p>`;
  return html`${current}
${notes.length ? html`<ol class="notes">${notes.map((note) => html`<li><time datetime="${note.time}">${formats.instant(note.time)}</time>${authorOf(note, texts)}: ${note.text}</li>`)}</ol>` : ''}`;
}

function answerEntry(entry: AnswerEntry, texts: Texts, formats: Formats): Html {
  const what = entry.kind === 'answer' ? texts.businessStatus[entry.businessStatus] : texts.timeline.noteOnly;
  const by = entry.author ? byline(entry.author, texts) : '';
  return html`<li data-kind="${entry.kind}"${entry.kind === 'answer' ? html` data-answer="${entry.businessStatus}"` : ''}><p class="answer-head"><time datetime="${entry.at}">${formats.instant(entry.at) ?? entry.at}</time>: <strong>${what}</strong>${by}</p>${
    entry.note ? html`<p class="answer-note">${entry.note}</p>` : html`<p class="answer-note meta">${texts.timeline.noNote}</p>`
  }</li>`;
}

/** The service's overdue mark among the answers, where it came (docs/inbox.md, "A request"). */
function overdueEntry(entry: OverdueEntry, texts: Texts, formats: Formats): Html {
  return html`<li data-kind="overdue"><p class="answer-head"><time datetime="${entry.at}">${formats.instant(entry.at) ?? entry.at}</time>: <strong>${texts.timeline.overdue}</strong></p><p class="answer-note meta">${texts.timeline.overdueDeadline(formats.instant(entry.deadline) ?? entry.deadline)}</p></li>`;
}

function byline(author: NonNullable<AnswerEntry['author']>, texts: Texts): Html | '' {
  if (author.type === 'Organization') return html` <span class="note-author">${texts.task.answeredAutomatically}</span>`;
  return author.display ? html` <span class="note-author">${texts.task.answeredBy(author.display)}</span>` : '';
}

/**
 * Who of the clinic wrote a note, as the clinic's own Task names them (docs/api.md, "Tasks"): a
 * person (a Practitioner) by display name, an automatic answer (the clinic's Organization) as such;
 * nothing for a note stored before intake kept its author, or a person without a display name.
 */
export function authorOf(note: TaskNote, texts: Texts): Html | '' {
  const author = record(note['authorReference']);
  if (author?.['type'] === 'Organization') return html` <span class="note-author">${texts.task.answeredAutomatically}</span>`;
  const name = author?.['type'] === 'Practitioner' ? text(author['display']) : undefined;
  return name ? html` <span class="note-author">${texts.task.answeredBy(name)}</span>` : '';
}

/**
 * When the referrer's documents reopened the Task after the clinic's "Weitere Daten erforderlich"
 * and the clinic has not answered since (docs/decisions.md, "Requests"): the delivery's time.
 */
export function reopenedByDocuments(task: FhirTask, timeline?: { items: TaskHistoryEntry[] }): string | undefined {
  if (task.status !== 'requested' || !timeline) return undefined;
  const latest = timeline.items.find((entry) => entry.kind === 'answer' || entry.kind === 'note' || entry.kind === 'documents');
  return latest?.kind === 'documents' && latest.reopened ? latest.at : undefined;
}
