import { MAX_INTERNAL_NOTE_CHARACTERS, type TaskAssignee, type TaskWorkspace, type TaskWorkspaceMarks } from '@bedrequest/contracts';
import type { Formats } from '../format';
import { html, type Html } from '../html';
import type { Texts } from '../texts.de';
import { csrfField } from './layout';

/** What the last step of the panel did (workspace-routes.ts), said once at its top: `?workspace=` of the request's address. */
export const WORKSPACE_OUTCOMES = [
  'taken',
  'taken-over',
  'released',
  'held',
  'note-added',
  'note-empty',
  'note-too-long',
  'too-many-notes',
  'erased',
  'failed',
] as const;
export type WorkspaceOutcome = (typeof WORKSPACE_OUTCOMES)[number];

export interface WorkspacePanelModel {
  taskId: string;
  /** Undefined: the clinic's workspace could not be read (the request page is shown without it). */
  workspace: TaskWorkspace | undefined;
  /** The signed-in person's user id (`act.sub`): whether the assignee is they. */
  me: string;
  csrfToken: string;
  outcome?: WorkspaceOutcome;
}

/**
 * The request's workspace in the clinic (docs/inbox.md, "Gemeinsam bearbeiten"; docs/api.md,
 * "Working on a request together"): who works on it ("In Bearbeitung: Tom Becker seit 10:42") with
 * the one button that fits (take, release, or take over from the colleague, named), and the internal
 * notes, oldest first, with a form for a new one. Nothing of it reaches the referrer. Plain forms
 * (post/redirect/get), each with the session's CSRF token.
 */
export function workspacePanel(model: WorkspacePanelModel, texts: Texts, formats: Formats): Html {
  const t = texts.workspace;
  const { taskId, workspace } = model;
  if (!workspace) return html``;
  const assignee = workspace.assignee;
  const mine = assignee?.user === model.me;
  const since = (who: TaskAssignee) => formats.instant(who.since) ?? who.since;
  const name = (who: { name?: string }) => who.name ?? t.someone;
  const action = (value: 'take' | 'take-over' | 'release', label: string) =>
    html`<form method="post" action="/inbox/tasks/${taskId}/assignee" class="workspace-action">${csrfField(model.csrfToken)}<input type="hidden" name="action" value="${value}"><button type="submit" class="button${value === 'take' ? '' : ' button-secondary'}">${label}</button></form>`;
  return html`<section aria-labelledby="workspace-heading" class="workspace" id="workspace">
<h2 id="workspace-heading">${t.heading}</h2>
${model.outcome ? outcomeNotice(model.outcome, t) : ''}
<p class="hint">${t.intro}</p>
<p class="workspace-assignee" id="workspace-assignee">${!assignee ? t.nobody : mine ? t.takenByYou(since(assignee)) : t.takenBy(name(assignee), since(assignee))}</p>
${!assignee ? action('take', t.take) : mine ? action('release', t.release) : html`<p class="hint">${t.takeOverHint(name(assignee))}</p>${action('take-over', t.takeOver(name(assignee)))}`}
<h3 id="internal-notes-heading">${t.notesHeading}</h3>
${
  workspace.internalNotes.length
    ? html`<ol class="internal-notes" aria-labelledby="internal-notes-heading">${workspace.internalNotes.map(
        (note) =>
          html`<li><p class="meta"><time datetime="${note.time}">${t.noteBy(formats.instant(note.time) ?? note.time, name(note.author))}</time></p><p class="note-text">${note.text}</p></li>`,
      )}</ol>`
    : html`<p>${t.noNotes}</p>`
}
<form method="post" action="/inbox/tasks/${taskId}/internal-notes" class="form" id="internal-note-form">
${csrfField(model.csrfToken)}
<div class="field">
<label for="internal-note">${t.noteLabel}</label>
<p class="hint" id="internal-note-hint">${t.noteHint(MAX_INTERNAL_NOTE_CHARACTERS)}</p>
<textarea id="internal-note" name="text" rows="3" required maxlength="${MAX_INTERNAL_NOTE_CHARACTERS}" aria-describedby="internal-note-hint"></textarea>
</div>
<button type="submit" class="button button-secondary">${t.addNote}</button>
</form>
</section>`;
}

/**
 * A list row's marks: "Neu" while no one of the clinic opened its current version (a cancelled
 * request is never new), and who works on it. The badge is always there, hidden when not new, as
 * the live list's script expects it.
 */
export function taskMarks(marks: TaskWorkspaceMarks, texts: Texts, formats: Formats, cancelled = false): Html {
  const assignee = marks.assignee;
  return html`<span class="new-badge"${marks.seen || cancelled ? html` hidden` : ''}>${texts.list.newBadge}</span>${
    assignee
      ? html` <span class="assignee-mark">${texts.workspace.takenBy(assignee.name ?? texts.workspace.someone, formats.instant(assignee.since) ?? assignee.since)}</span>`
      : ''
  }`;
}

/** How many of the clinic's requests none of its people opened yet in their current version. */
export function unseenLine(unseen: number | undefined, texts: Texts): Html {
  return unseen ? html`<p class="meta unseen-count">${texts.workspace.unseen(unseen)}</p>` : html``;
}

function outcomeNotice(outcome: WorkspaceOutcome, t: Texts['workspace']): Html {
  const error = ['held', 'note-empty', 'note-too-long', 'too-many-notes', 'erased', 'failed'].includes(outcome);
  const message = {
    taken: t.taken,
    'taken-over': t.takenOver,
    released: t.released,
    held: t.heldMeanwhile,
    'note-added': t.noteAdded,
    'note-empty': t.noteEmpty,
    'note-too-long': t.noteTooLong(MAX_INTERNAL_NOTE_CHARACTERS),
    'too-many-notes': t.tooManyNotes,
    erased: t.erased,
    failed: t.failed,
  }[outcome];
  return html`<p class="notice ${error ? 'notice-error' : 'notice-success'}" role="${error ? 'alert' : 'status'}">${message}</p>`;
}
