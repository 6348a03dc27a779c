import { createHash } from 'node:crypto';
import type { BusinessStatus, TaskStatus } from '@bedrequest/contracts';

/** What a Task's entity tag is made of: the request version its clinic was sent, and its answer state. */
export interface TaggedTask {
  sentVersion: number;
  /** Raised by every batch that changes the Task (an answer, a supplement, a cancellation, an erasure). */
  revision: number;
  status: TaskStatus;
  businessStatus: BusinessStatus | null;
  notes: readonly unknown[];
}

/**
 * The Task's opaque entity tag (docs/api.md, "Clinic API"), `<version>-<revision>-<answer>`: a new
 * request version and any answer change it. The revision goes up once per batch, so the answer's
 * digest (status, code, number of notes) tells apart two answers that one batch applied.
 */
export function taskTagOf(task: TaggedTask): string {
  const answer = createHash('sha256')
    .update(JSON.stringify([task.status, task.businessStatus, task.notes.length]))
    .digest('base64url')
    .slice(0, 6);
  return `${task.sentVersion}-${task.revision}-${answer}`;
}

/** The tag as the `ETag` header writes it: weak (docs/api.md, "Clinic API"), since the Task's JSON differs by who reads it. */
export function etagOf(tag: string): string {
  return `W/"${tag}"`;
}
