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
  return (
    [...byRequest.values()]
      .map((group) => {
        const first = group.reduce((earliest, each) =>
          each.authoredOn < earliest.authoredOn || (each.authoredOn === earliest.authoredOn && each.id < earliest.id) ? each : earliest,
        );
        const changedAt = group.map((task) => task.lastModified).reduce((latest, each) => (each > latest ? each : latest));
        return { id: first.id, tasks: [...group].sort(byOverdueThenIk), sentAt: first.authoredOn, changedAt };
      })
      // Requests with an overdue clinic first: they need the hospital now.
      .sort((a, b) => Number(isOverdue(b)) - Number(isOverdue(a)) || b.changedAt.localeCompare(a.changedAt) || a.id.localeCompare(b.id))
  );
}

/** A Task as the deadline's elements read (docs/api.md, "Answer deadlines"), whatever the contract's version names. */
interface WithDeadline {
  restriction?: { period?: { end?: string } };
  extension?: readonly { url?: string; valueDateTime?: string; valueCode?: string }[];
}

/** When the clinic's answer is due: the Task's `restriction.period.end`. */
export function deadlineOf(task: FhirTask): string | undefined {
  return (task as WithDeadline).restriction?.period?.end;
}

/** Whether the party's rule asked the clinic, from its list or the registry: the Task's asked-by-rule extension (docs/api.md, "Asking by rule"). */
export function askedByRuleOf(task: FhirTask): 'list' | 'registry' | undefined {
  const code = (task as WithDeadline).extension?.find((each) => each.url?.endsWith('/fhir/StructureDefinition/asked-by-rule'))?.valueCode;
  return code === 'list' || code === 'registry' ? code : undefined;
}

/** Since when the clinic's answer is overdue: the Task's answer-overdue extension, while it has one. */
export function overdueSinceOf(task: FhirTask): string | undefined {
  return (task as WithDeadline).extension?.find((each) => each.url?.endsWith('/fhir/StructureDefinition/answer-overdue'))?.valueDateTime;
}

/** Overdue clinics first (docs/workspace.md, "Antwortfristen"), then by IK. */
function byOverdueThenIk(a: FhirTask, b: FhirTask): number {
  return Number(overdueSinceOf(b) !== undefined) - Number(overdueSinceOf(a) !== undefined) || ikOf(a).localeCompare(ikOf(b));
}

/**
 * What the pages' script compares to see whether anything changed: the latest change of any Task,
 * and how many are overdue (a mark the service sets when a deadline passes).
 */
export function versionOf(placements: readonly Pick<Placement, 'tasks' | 'changedAt'>[]): string {
  const latest = placements.map((placement) => placement.changedAt).reduce((max, each) => (each > max ? each : max), '');
  const overdue = placements.flatMap((placement) => placement.tasks).filter((task) => overdueSinceOf(task) !== undefined).length;
  return latest ? `${latest}|${overdue}` : '';
}

/** Whether a clinic of the request is overdue. */
export function isOverdue(placement: Pick<Placement, 'tasks'>): boolean {
  return placement.tasks.some((task) => overdueSinceOf(task) !== undefined);
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

/** Whether further clinics can be asked: the request is open for some clinic and none is selected. */
export function canAskMoreClinics(placement: Pick<Placement, 'tasks'>): boolean {
  return applies('revoke', placement) && !applies('withdraw', placement);
}

/** Whether the request's page offers the change. */
export function applies(change: Change, placement: Pick<Placement, 'tasks'>): boolean {
  if (change === 'withdraw') return placement.tasks.some((task) => task.status === 'in-progress');
  return placement.tasks.some((task) => task.status !== 'cancelled');
}
