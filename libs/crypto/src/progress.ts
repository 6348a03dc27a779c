/** One line of progress for the operator (ids and counts only). */
export type Progress = (line: string) => void;

/** `part` of `whole` as a whole percentage for a progress line (`100 %` when there is nothing to do). */
export function percent(part: number, whole: number): string {
  return `${whole === 0 ? 100 : Math.min(100, Math.round((part / whole) * 100))} %`;
}
