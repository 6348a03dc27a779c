import type { RequestHandler } from 'express';
import { businessStatusOf } from '@bedrequest/contracts';
import type { AnswerDrafts, AnswerSent } from './answer-drafts';
import { html, type Html } from './html';
import { sessionOf, type InboxContext } from './inbox-context';
import { notice } from './pages/layout';
import { ANSWER_CODES, MAX_NOTE_LENGTH, NOTE_REQUIRED, type AnswerForm, type Meanwhile, type TaskViewModel } from './pages/task-view.page';
import { changesBetween, type RequestView } from './request-view';

/*
 * The steps of an answer beside its routes (task-routes.ts): whether the Task changed since the
 * person read it and what changed, the form's checks, and the list's notice once it was sent.
 */

/** Whether the Task is not the one the person saw: another tag, or none sent (a form of a page without one). */
export function changedSince(model: TaskViewModel, seen: { tag: string }): boolean {
  return model.etag !== undefined && seen.tag !== model.etag;
}

/**
 * What changed since the person read the request at `seenVersion`: the referrer's new version with
 * what differs from the one seen (when it is among the versions read), and the Task's answer now,
 * with who gave it when that answer left a note naming them (docs/api.md, "Tasks").
 */
export function meanwhileOf(model: TaskViewModel, seenVersion: number): Meanwhile {
  const { task, latest } = model;
  const seen = model.versions.find((entry) => entry.version === seenVersion);
  const code = businessStatusOf(task);
  const newest = task.note?.at(-1);
  // A note written by the Task's last change is its latest answer's: intake stamps both with one instant.
  const byLatest = newest && Date.parse(newest.time) === Date.parse(task.lastModified) ? newest : undefined;
  return {
    ...(latest && seenVersion > 0 && latest.version !== seenVersion
      ? { version: { from: seenVersion, to: latest.version, changes: seen ? changesBetween(seen.view, latest.view) : [] } }
      : {}),
    ...(code ? { answer: { businessStatus: code, at: task.lastModified, ...(byLatest ? { note: byLatest } : {}) } } : {}),
  };
}

/** The desired admission date as the request view shows it. */
export function admissionOf(view: RequestView): string | undefined {
  const field = view.sections.flatMap((section) => section.fields).find((entry) => entry.key === 'request.admission');
  return typeof field?.value === 'string' ? field.value : undefined;
}

export function answerErrors(form: AnswerForm, texts: InboxContext['texts']): NonNullable<AnswerForm['errors']> {
  const errors: NonNullable<AnswerForm['errors']> = [];
  const code = ANSWER_CODES.find((candidate) => candidate === form.businessStatus);
  if (!code) errors.push({ field: 'businessStatus', message: texts.answer.chooseOne });
  const note = form.note ?? '';
  if (note.length > MAX_NOTE_LENGTH) errors.push({ field: 'note', message: texts.answer.noteTooLong });
  else if (code && NOTE_REQUIRED.includes(code) && !note.trim()) errors.push({ field: 'note', message: texts.answer.noteRequired });
  return errors;
}

/**
 * The list's notice, once, after an answer was sent (docs/inbox.md, "Antworten"): what was sent, and
 * the way on to the next open request. Before the list's routes, for its page alone; forgotten once a
 * page showed it, not when the list answered with a redirect (to the list as the person left it).
 */
export function answerSentNotice(context: InboxContext, drafts: AnswerDrafts): RequestHandler {
  return async (req, res, next) => {
    if (req.method !== 'GET' || req.path !== '/tasks') return next();
    const session = sessionOf(res).id;
    const sent = await drafts.peekSent(session);
    if (sent) {
      res.locals.inboxNotice = sentNoticeOf(sent, context.texts);
      res.once('finish', () => {
        if (res.statusCode === 200) drafts.forgetSent(session).catch(() => undefined);
      });
    }
    next();
  };
}

function sentNoticeOf(sent: AnswerSent, texts: InboxContext['texts']): Html {
  if (sent.outcome === 'none-open') return notice('info', texts.answer.noneOpen, 'answer-sent');
  const message = sent.outcome === 'queued' ? texts.task.answeredQueued : texts.task.answeredOk(texts.businessStatus[sent.outcome]);
  const next = sent.taskId ? `/inbox/tasks/next?after=${encodeURIComponent(sent.taskId)}` : '/inbox/tasks/next';
  return notice(
    sent.outcome === 'queued' ? 'info' : 'success',
    html`<p>${message}</p><p><a class="button" href="${next}" id="next-open">${texts.answer.nextOpen}</a></p>`,
    'answer-sent',
  );
}
