import type { BusinessStatus, DispatchAction, TaskHistoryEntry, TaskStatus } from '@bedrequest/contracts';
import type { NoteAuthor, TaskNote } from './task-resource';

/**
 * What a Task keeps of its history (docs/api.md, "Clinic API", the history), oldest first, sealed
 * beside its notes: every answer with its time, code and who gave it (its note stays among the
 * Task's notes, named by position, so the notes' limit keeps counting notes alone), every delivery
 * of documents, and every change of the request that reached the Task.
 */
export type StoredHistoryEntry =
  | { kind: 'answer'; at: string; businessStatus: BusinessStatus; author: NoteAuthor; note?: number }
  | { kind: 'documents'; at: string; count: number; kinds?: string[]; reopened: boolean }
  | { kind: 'request'; at: string; action: DispatchAction; status: TaskStatus; version?: number }
  /** The service marked the Task overdue, its `deadline` passed unanswered (docs/api.md, "Answer deadlines"). */
  | { kind: 'overdue'; at: string; deadline: string };

/** The newest entries kept: about 60 kB sealed, read and written with the Task by every batch that touches its request. */
export const HISTORY_LIMIT = 300;

/** The history with `entry` appended, its oldest entries dropped beyond HISTORY_LIMIT. */
export function appendedHistory(history: readonly StoredHistoryEntry[], entry: StoredHistoryEntry): StoredHistoryEntry[] {
  return [...history, entry].slice(-HISTORY_LIMIT);
}

/**
 * The history as the clinic reads it, newest first. A note no kept answer names (written before
 * answers were kept, by an intake of an earlier release, or its answer dropped past the limit) is
 * an entry of its own, `note`, without a code: it is older than every kept entry.
 */
export function historyOf(notes: readonly TaskNote[], history: readonly StoredHistoryEntry[], clinicIk: string): TaskHistoryEntry[] {
  const named = new Set(history.flatMap((entry) => (entry.kind === 'answer' && entry.note !== undefined ? [entry.note] : [])));
  const alone: TaskHistoryEntry[] = notes.flatMap((note, index) =>
    named.has(index) ? [] : [{ kind: 'note' as const, at: note.time, note: note.text, ...(note.author ? { author: authorOf(note.author, clinicIk) } : {}) }],
  );
  const kept = history.map((entry): TaskHistoryEntry => {
    if (entry.kind !== 'answer') return entry;
    const note = entry.note === undefined ? undefined : notes[entry.note]?.text;
    return {
      kind: 'answer',
      at: entry.at,
      businessStatus: entry.businessStatus,
      ...(note === undefined ? {} : { note }),
      author: authorOf(entry.author, clinicIk),
    };
  });
  return [...alone, ...kept].reverse();
}

/** Who gave an answer or wrote a note, as the Task's authorReference names them (docs/api.md, "Tasks"): a person by user id, or the clinic itself for an automatic answer. */
function authorOf(author: NoteAuthor, clinicIk: string): NonNullable<Extract<TaskHistoryEntry, { kind: 'answer' }>['author']> {
  if (author.source === 'automatic') return { type: 'Organization', ik: clinicIk };
  return { type: 'Practitioner', user: author.user, ...(author.name ? { display: author.name } : {}) };
}
