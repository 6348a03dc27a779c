/** A note as the Task's sealed notes hold it (tasks/task-resource.ts TaskNote), as far as the list reads it. */
export interface StoredNote {
  time: string;
  author?: { source: string };
}

/**
 * Whether the Task's latest answer was the service's automatic one (docs/api.md, "Clinic API",
 * `answeredAutomatically`). An automatic answer always carries its text as a note written by the
 * service (routing's answer from the bed counts, intake's decline for a department not offered), at
 * the instant the answer changed the Task. So it was the latest answer if the latest note is the
 * service's and nothing changed the Task after it (no later answer, version or selection): the
 * note's time is the Task's `lastModified`. A person's answer without a note moves `lastModified`.
 */
export function answeredAutomatically(notes: readonly StoredNote[] | null | undefined, lastModified: Date): boolean {
  const latest = notes?.at(-1);
  return latest?.author?.source === 'automatic' && Date.parse(latest.time) === lastModified.getTime();
}
