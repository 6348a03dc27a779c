import { z } from 'zod';
import { BusinessStatus } from '@bedrequest/contracts';
import type { SessionStore } from '../session/session-store';

/**
 * An answer between its form and its confirmation (docs/inbox.md, "Antworten"): the confirmation is
 * a page of its own (`GET /inbox/tasks/{id}/confirm`), so that the browser's Back never lands on the
 * result of a form. Its note may hold patient data, so it stays in the session (Redis, sealed), never
 * in an address.
 */
export const AnswerDraft = z.object({
  businessStatus: BusinessStatus,
  note: z.string(),
  /** The Task's ETag and the request version the person saw (SeenTask). */
  tag: z.string(),
  version: z.number().int().min(0),
});
export type AnswerDraft = z.infer<typeof AnswerDraft>;

/** The selected clinic's withdrawal of its acceptance between its form and its confirmation (docs/inbox.md, "Nach der Auswahl"). */
export const WithdrawalDraft = z.object({ reason: z.string(), tag: z.string(), version: z.number().int().min(0) });
export type WithdrawalDraft = z.infer<typeof WithdrawalDraft>;

/** What the request's page says once after a withdrawal: done, or taken and stored in a moment. */
export const Withdrawn = z.enum(['done', 'queued']);
export type Withdrawn = z.infer<typeof Withdrawn>;

/**
 * What the list says once after an answer was sent: which request, and what happened to the answer
 * (`queued`: taken, stored in a moment); `none-open` when "Nächste offene Anfrage" found none.
 */
export const AnswerSent = z.object({ taskId: z.string().optional(), outcome: z.union([BusinessStatus, z.literal('queued'), z.literal('none-open')]) });
export type AnswerSent = z.infer<typeof AnswerSent>;

/** A draft lasts this long: a confirmation is a matter of minutes; the page without it goes back to the request. */
const DRAFT_SECONDS = 3600;
/** The list's notice is shown on the page the answer redirects to, at once. */
const SENT_SECONDS = 300;

/** Where the inbox keeps a session's drafts and the notice of its last answer sent. */
export interface AnswerDrafts {
  save(sessionId: string, taskId: string, draft: AnswerDraft): Promise<void>;
  load(sessionId: string, taskId: string): Promise<AnswerDraft | undefined>;
  remove(sessionId: string, taskId: string): Promise<void>;
  /** Notes an answer as sent, for the next page of the list. */
  sent(sessionId: string, sent: AnswerSent): Promise<void>;
  /** The answer sent last, until `forgetSent`. */
  peekSent(sessionId: string): Promise<AnswerSent | undefined>;
  forgetSent(sessionId: string): Promise<void>;
  saveWithdrawal(sessionId: string, taskId: string, draft: WithdrawalDraft): Promise<void>;
  loadWithdrawal(sessionId: string, taskId: string): Promise<WithdrawalDraft | undefined>;
  /** Forgets the draft and notes the withdrawal as sent, for the request's next page. */
  withdrawn(sessionId: string, taskId: string, outcome: Withdrawn): Promise<void>;
  /** The withdrawal sent, once. */
  takeWithdrawn(sessionId: string, taskId: string): Promise<Withdrawn | undefined>;
}

/** The drafts beside the session in its store. */
export function sessionAnswerDrafts(store: SessionStore): AnswerDrafts {
  const slot = (taskId: string) => `answer-draft:${taskId}`;
  const SENT = 'answer-sent';
  const withdrawal = (taskId: string) => `withdrawal-draft:${taskId}`;
  const withdrawn = (taskId: string) => `withdrawn:${taskId}`;
  return {
    save: (sessionId, taskId, draft) => store.keep(sessionId, slot(taskId), draft, DRAFT_SECONDS),
    load: async (sessionId, taskId) => {
      const draft = AnswerDraft.safeParse(await store.kept(sessionId, slot(taskId)));
      return draft.success ? draft.data : undefined;
    },
    remove: (sessionId, taskId) => store.forget(sessionId, slot(taskId)),
    sent: (sessionId, sent) => store.keep(sessionId, SENT, sent, SENT_SECONDS),
    peekSent: async (sessionId) => {
      const sent = AnswerSent.safeParse(await store.kept(sessionId, SENT));
      return sent.success ? sent.data : undefined;
    },
    forgetSent: (sessionId) => store.forget(sessionId, SENT),
    saveWithdrawal: (sessionId, taskId, draft) => store.keep(sessionId, withdrawal(taskId), draft, DRAFT_SECONDS),
    loadWithdrawal: async (sessionId, taskId) => {
      const draft = WithdrawalDraft.safeParse(await store.kept(sessionId, withdrawal(taskId)));
      return draft.success ? draft.data : undefined;
    },
    withdrawn: async (sessionId, taskId, outcome) => {
      await store.forget(sessionId, withdrawal(taskId));
      await store.keep(sessionId, withdrawn(taskId), outcome, SENT_SECONDS);
    },
    takeWithdrawn: async (sessionId, taskId) => {
      const kept = Withdrawn.safeParse(await store.kept(sessionId, withdrawn(taskId)));
      if (!kept.success) return undefined;
      await store.forget(sessionId, withdrawn(taskId));
      return kept.data;
    },
  };
}

/** The same in memory, for the routes' unit tests. */
export function memoryAnswerDrafts(): AnswerDrafts {
  const kept = new Map<string, unknown>();
  return {
    save: async (sessionId, taskId, draft) => void kept.set(`${sessionId} ${taskId}`, draft),
    load: async (sessionId, taskId) => kept.get(`${sessionId} ${taskId}`) as AnswerDraft | undefined,
    remove: async (sessionId, taskId) => void kept.delete(`${sessionId} ${taskId}`),
    sent: async (sessionId, sent) => void kept.set(`${sessionId} sent`, sent),
    peekSent: async (sessionId) => kept.get(`${sessionId} sent`) as AnswerSent | undefined,
    forgetSent: async (sessionId) => void kept.delete(`${sessionId} sent`),
    saveWithdrawal: async (sessionId, taskId, draft) => void kept.set(`${sessionId} withdrawal ${taskId}`, draft),
    loadWithdrawal: async (sessionId, taskId) => kept.get(`${sessionId} withdrawal ${taskId}`) as WithdrawalDraft | undefined,
    withdrawn: async (sessionId, taskId, outcome) => {
      kept.delete(`${sessionId} withdrawal ${taskId}`);
      kept.set(`${sessionId} withdrawn ${taskId}`, outcome);
    },
    takeWithdrawn: async (sessionId, taskId) => {
      const outcome = kept.get(`${sessionId} withdrawn ${taskId}`) as Withdrawn | undefined;
      kept.delete(`${sessionId} withdrawn ${taskId}`);
      return outcome;
    },
  };
}
