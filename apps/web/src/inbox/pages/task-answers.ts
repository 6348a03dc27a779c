import type { FhirTask } from '@bedrequest/contracts';
import type { Formats } from '../format';
import { html, type Html } from '../html';
import { record, text } from '../json-reading';
import type { Texts } from '../texts.de';

type TaskNote = NonNullable<FhirTask['note']>[number];

export function answersOf(task: FhirTask, texts: Texts, formats: Formats): Html {
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
export function authorOf(note: TaskNote, texts: Texts): Html | '' {
  const author = record(note['authorReference']);
  if (author?.['type'] === 'Organization') return html` <span class="note-author">${texts.task.answeredAutomatically}</span>`;
  const name = author?.['type'] === 'Practitioner' ? text(author['display']) : undefined;
  return name ? html` <span class="note-author">${texts.task.answeredBy(name)}</span>` : '';
}
