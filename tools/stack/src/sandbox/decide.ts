import type { BusinessStatus, ClinicTaskSummary } from '@bedrequest/contracts';
import type { ClinicRule } from './rules';

/** What a demo clinic will answer to a waiting Task, and when. */
export interface PlannedAnswer {
  /** The rule's position in the clinic's list, from 0 as in the file. */
  readonly rule: number;
  readonly businessStatus: BusinessStatus;
  readonly note?: string;
  /** Epoch milliseconds: not before. */
  readonly dueAt: number;
}

/**
 * A Task's waiting period: the same Task waits again, under another key, once a supplement (a new
 * version) or documents (documentsSuppliedAt) reopen it, so a clinic answers each period once.
 */
export function waitKeyOf(task: ClinicTaskSummary): string {
  return `${task.id}:${task.version}:${task.documentsSuppliedAt ?? ''}`;
}

/** The first rule whose `when` holds for the waiting Task, as a planned answer; undefined: none holds (a person answers). */
export function planAnswer(rules: readonly ClinicRule[], task: ClinicTaskSummary, now: Date): PlannedAnswer | undefined {
  const today = berlinDate(now);
  const index = rules.findIndex((rule) => holds(rule.when, task, today) && (!rule.answer.afterDeadline || task.deadline !== undefined));
  const rule = rules[index];
  if (!rule) return undefined;
  const { businessStatus, note, afterSeconds, afterDeadline } = rule.answer;
  const from = Date.parse(afterDeadline ? task.deadline! : task.lastModified);
  return { rule: index, businessStatus, ...(note === undefined ? {} : { note }), dueAt: from + afterSeconds * 1000 };
}

function holds(when: ClinicRule['when'], task: ClinicTaskSummary, today: string): boolean {
  if (when.department !== undefined && task.request.departmentCode !== when.department) return false;
  if (when.asked !== undefined && when.asked !== (task.businessStatus === undefined ? 'first' : 'again')) return false;
  if (when.minDaysAhead !== undefined) {
    const date = task.request.occurrenceDate;
    if (date === undefined || daysBetween(today, date) < when.minDaysAhead) return false;
  }
  return true;
}

/** Whole days from one calendar date (YYYY-MM-DD) to another. */
function daysBetween(from: string, to: string): number {
  return Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / 86_400_000);
}

/** Today's date where the clinics are (YYYY-MM-DD). */
function berlinDate(now: Date): string {
  return new Intl.DateTimeFormat('en-CA', { timeZone: 'Europe/Berlin', year: 'numeric', month: '2-digit', day: '2-digit' }).format(now);
}
