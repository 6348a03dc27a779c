import type { BusinessStatus } from '@bedrequest/contracts';
import type { NoteAuthor, StoredHistoryEntry } from '../tasks';

/** One row of `answer_statistic` (migration 0015): a Task's first answer by its clinic. */
export interface AnswerStatisticRow {
  taskId: string;
  clinicIk: string;
  departmentCode: string;
  answeredAt: Date;
  /** Whole seconds from the Task's sending (authored_on) to the answer. */
  seconds: number;
  accepted: boolean;
}

/** What the row is made from: the Task as read before the answer. */
export interface AnsweredTask {
  id: string;
  clinicIk: string;
  authoredOn: Date;
  departmentCode?: string | null;
  history?: readonly StoredHistoryEntry[];
}

/**
 * The statistics row of an answer, or none (docs/architecture.md, "Answer statistics"): only the
 * clinic's own first answer of a Task counts, of any code. A Task the service answered first (an
 * automatic answer, which measures the service, not the clinic) and every later answer have none, as
 * has a Task whose department is unknown (stored before migration 0015).
 */
export function answerStatisticOf(task: AnsweredTask, businessStatus: BusinessStatus, author: NoteAuthor, now: Date): AnswerStatisticRow | undefined {
  if (author.source !== 'clinic' || !task.departmentCode) return undefined;
  if ((task.history ?? []).some((entry) => entry.kind === 'answer')) return undefined;
  return {
    taskId: task.id,
    clinicIk: task.clinicIk,
    departmentCode: task.departmentCode,
    answeredAt: now,
    seconds: Math.max(0, Math.round((now.getTime() - task.authoredOn.getTime()) / 1000)),
    accepted: businessStatus === 'accepted',
  };
}
