import type { FhirTask } from '@bedrequest/contracts';

/**
 * One request of the hospital as its pages show it: the Tasks of every clinic it went to, grouped
 * by the ServiceRequest identifier they are based on. The identifier never reaches a URL (a
 * referrer's own system may write a case number into it): a request is addressed by the id of its
 * first Task, which the Task read checks is the party's.
 */
export interface Placement {
  /** The first Task's id (the oldest, then by id): the request's address in the pages. */
  readonly id: string;
  readonly tasks: readonly FhirTask[];
  /** When the first clinic was asked. */
  readonly sentAt: string;
  /** The latest change of any of its Tasks. */
  readonly changedAt: string;
}

/** Where a request stands, for the list's filters (docs/workspace.md, "Anfragen"). */
export const PLACEMENT_STATES = ['open', 'answered', 'selected', 'closed'] as const;
export type PlacementState = (typeof PLACEMENT_STATES)[number];

/**
 * `selected`: a clinic is selected; `closed`: none is and none can still admit (every Task declined
 * or cancelled); `answered`: every clinic answered; `open`: a clinic's answer is still awaited.
 */
export function stateOf(placement: Pick<Placement, 'tasks'>): PlacementState {
  const { tasks } = placement;
  if (tasks.some((task) => task.status === 'in-progress')) return 'selected';
  if (tasks.every((task) => task.status === 'cancelled' || task.status === 'rejected')) return 'closed';
  return tasks.some((task) => task.status === 'requested') ? 'open' : 'answered';
}

/** The Tasks grouped into their requests, the most recently changed first; each request's Tasks by clinic IK. */
export function placementsOf(tasks: readonly FhirTask[]): Placement[] {
  const byRequest = new Map<string, FhirTask[]>();
  for (const task of tasks) {
    const key = requestOf(task);
    byRequest.set(key, [...(byRequest.get(key) ?? []), task]);
  }
  return [...byRequest.values()]
    .map((group) => {
      const first = group.reduce((earliest, each) =>
        each.authoredOn < earliest.authoredOn || (each.authoredOn === earliest.authoredOn && each.id < earliest.id) ? each : earliest,
      );
      const changedAt = group.map((task) => task.lastModified).reduce((latest, each) => (each > latest ? each : latest));
      return { id: first.id, tasks: [...group].sort((a, b) => ikOf(a).localeCompare(ikOf(b))), sentAt: first.authoredOn, changedAt };
    })
    .sort((a, b) => b.changedAt.localeCompare(a.changedAt) || a.id.localeCompare(b.id));
}

/** The ServiceRequest identifier a Task is based on. */
export function requestOf(task: FhirTask): string {
  return task.basedOn[0]?.identifier.value ?? task.id;
}

/** The IK of the clinic a Task is addressed to. */
export function ikOf(task: FhirTask): string {
  return task.owner.identifier.value;
}

/** A step the hospital takes on a whole request (docs/workspace.md). */
export type Change = 'revoke' | 'withdraw';

/** Whether the request's page offers the change. */
export function applies(change: Change, placement: Pick<Placement, 'tasks'>): boolean {
  if (change === 'withdraw') return placement.tasks.some((task) => task.status === 'in-progress');
  return placement.tasks.some((task) => task.status !== 'cancelled');
}
