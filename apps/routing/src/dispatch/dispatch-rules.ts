import { automaticAnswerNotes as notes, departmentLabel, type DeclineReason } from '@bedrequest/clinic-directory';
import type { BusinessStatus, RequestDispatchedV1 } from '@bedrequest/contracts';
import { sameBed, type BedKey, type HeldBed } from '../beds/bed-count';

/**
 * What routing does for one clinic when a request changes (request.dispatched.v1): the spec's
 * internal step "clinics are notified", the record of intake's automatic decline (docs/decisions.md,
 * "Clinics answer": intake applies the rule and says so in the dispatch) and, for clinics that
 * chose it, automatic answers from their bed counts. Pure: it decides, the service applies
 * (docs/parties.md, "Clinics and routing").
 */

export type DispatchedRequest = Pick<RequestDispatchedV1, 'requestIdentifier' | 'version' | 'change' | 'departmentCode' | 'specialty' | 'occurrenceDate'>;
export type DispatchedTask = RequestDispatchedV1['tasks'][number];

/** The registry's view of the clinic; undefined when its IK is no longer registered. */
export interface RegisteredClinic {
  readonly ik: string;
  /** Its name, for the notes of its automatic answers. */
  readonly name?: string;
  readonly departments: readonly string[];
  readonly automaticAnswers: boolean;
}

/** What routing did for one clinic, as the notification log records it. */
export type NotificationOutcome =
  /** The clinic was notified and answers itself (automatic answers off). */
  | 'forwarded'
  /** Automatic answers on, but the request names no admission date: the clinic answers itself. */
  | 'forwarded-no-date'
  /** Automatic answers on, but the clinic published no bed count for that department and date. */
  | 'forwarded-no-bed-count'
  | 'declined-not-participating'
  | 'declined-department-not-offered'
  | 'declined-no-free-bed'
  | 'accepted-bed-held'
  /** Supplemented data for a request the clinic already holds the bed for: accepted again, same bed. */
  | 'accepted-bed-kept'
  /** Selected: the bed it held, or one of the date's count (it accepted by hand), is reserved. */
  | 'selected-bed-reserved'
  /** Selected after accepting by hand when the date's count had none left: reserved all the same, over-booked. */
  | 'selected-bed-overbooked'
  /** Selected, but the clinic published no count for that department and date: nothing to reserve from. */
  | 'selected-no-bed-count'
  /** Selected, but the request names no admission date: no bed to reserve. */
  | 'selected-no-date'
  /** Selected without a held bed by routing 1.0, which reserved nothing then: only in log lines it wrote. */
  | 'selected'
  | 'cancelled-bed-released'
  | 'cancelled'
  /** A dispatch of an older request version than one already applied to this Task. */
  | 'ignored-outdated';

/** The answers routing gives on a clinic's behalf: a bed or none. */
export type AutomaticAnswer = Extract<BusinessStatus, 'accepted' | 'declined'>;

export type TaskPlan =
  /** Only record the notification. */
  | { kind: 'notify'; outcome: NotificationOutcome; releaseBed: boolean }
  /** Intake already declined for the clinic (the dispatch says so): record it, book nothing, answer nothing. */
  | { kind: 'declined-by-intake'; outcome: NotificationOutcome; releaseBed: boolean }
  /** Answer on the clinic's behalf without booking a bed (the bed it holds for a supplement that still asks for it). */
  | { kind: 'answer'; outcome: NotificationOutcome; answer: AutomaticAnswer; note: string; releaseBed: boolean }
  /** Try to hold this bed, then answer by the result (`afterHoldAttempt`). */
  | { kind: 'hold'; bed: BedKey; releaseBed: boolean }
  /** The Task's held bed becomes reserved. */
  | { kind: 'reserve'; outcome: 'selected-bed-reserved' }
  /** The Task holds no bed (its clinic accepted by hand): reserve one of this bed's count, then log by the result (`afterReserveAttempt`). */
  | { kind: 'reserve-new'; bed: BedKey };

export function planTask(request: DispatchedRequest, task: DispatchedTask, clinic: RegisteredClinic | undefined, heldBed: HeldBed | undefined): TaskPlan {
  switch (task.action) {
    case 'cancelled':
      // Revocation, selection of another clinic, withdrawal of this one, or no longer named.
      return heldBed ? { kind: 'notify', outcome: 'cancelled-bed-released', releaseBed: true } : { kind: 'notify', outcome: 'cancelled', releaseBed: false };
    case 'selected':
      // The selection is the referrer's and intake recorded it: routing books it, it never refuses it.
      if (heldBed?.state === 'held') return { kind: 'reserve', outcome: 'selected-bed-reserved' };
      if (heldBed) return { kind: 'notify', outcome: 'selected-bed-reserved', releaseBed: false };
      if (!request.occurrenceDate) return { kind: 'notify', outcome: 'selected-no-date', releaseBed: false };
      return { kind: 'reserve-new', bed: { clinicIk: task.clinicIk, departmentCode: request.departmentCode, admissionDate: request.occurrenceDate } };
    case 'answer-requested':
      return planAnswer(request, task, clinic, heldBed);
  }
}

/**
 * A new or supplemented request. The bed a Task already holds is kept only while the request still
 * asks for exactly that bed (same department and admission date); otherwise it is given back first.
 */
function planAnswer(request: DispatchedRequest, task: DispatchedTask, clinic: RegisteredClinic | undefined, heldBed: HeldBed | undefined): TaskPlan {
  const wanted: BedKey | undefined = request.occurrenceDate
    ? { clinicIk: task.clinicIk, departmentCode: request.departmentCode, admissionDate: request.occurrenceDate }
    : undefined;
  const keepsBed = heldBed !== undefined && wanted !== undefined && sameBed(heldBed, wanted);
  const releaseBed = heldBed !== undefined && !keepsBed;

  // Intake applies the decline rule when the request reaches the clinic and says so in the dispatch.
  if (task.declined) return { kind: 'declined-by-intake', outcome: DECLINED[task.declined], releaseBed: heldBed !== undefined };
  if (!clinic?.automaticAnswers) return { kind: 'notify', outcome: 'forwarded', releaseBed };
  if (!wanted) return { kind: 'notify', outcome: 'forwarded-no-date', releaseBed };
  if (keepsBed) {
    return {
      kind: 'answer',
      outcome: 'accepted-bed-kept',
      answer: 'accepted',
      note: notes.bedHeld(clinic, departmentLabel(request), wanted.admissionDate),
      releaseBed,
    };
  }
  return { kind: 'hold', bed: wanted, releaseBed };
}

/** A plan with nothing left to try. */
export type SettledPlan = Exclude<TaskPlan, { kind: 'hold' } | { kind: 'reserve-new' }>;

/**
 * What the log says once the attempt to reserve a bed for a clinic that accepted by hand is known
 * (docs/parties.md, "Automatic answers from bed counts"): the admission was agreed, so a count with
 * none left is over-booked rather than the selection ignored; without a count there is nothing to book.
 */
export function afterReserveAttempt(result: 'reserved' | 'overbooked' | 'no-bed-count'): SettledPlan {
  const outcome: Record<typeof result, NotificationOutcome> = {
    reserved: 'selected-bed-reserved',
    overbooked: 'selected-bed-overbooked',
    'no-bed-count': 'selected-no-bed-count',
  };
  return { kind: 'notify', outcome: outcome[result], releaseBed: false };
}

/** The answer once the attempt to hold `bed` is known; its note names `clinic` (docs/parties.md, "Automatic answers from bed counts"). */
export function afterHoldAttempt(
  request: DispatchedRequest,
  bed: BedKey,
  result: 'held' | 'no-free-bed' | 'no-bed-count',
  clinic: { readonly ik: string; readonly name?: string | undefined } = { ik: bed.clinicIk },
): SettledPlan {
  const label = departmentLabel(request);
  switch (result) {
    case 'held':
      return {
        kind: 'answer',
        outcome: 'accepted-bed-held',
        answer: 'accepted',
        note: notes.bedHeld(clinic, label, bed.admissionDate),
        releaseBed: false,
      };
    case 'no-free-bed':
      return {
        kind: 'answer',
        outcome: 'declined-no-free-bed',
        answer: 'declined',
        note: notes.noFreeBed(clinic, label, bed.admissionDate),
        releaseBed: false,
      };
    case 'no-bed-count':
      return { kind: 'notify', outcome: 'forwarded-no-bed-count', releaseBed: false };
  }
}

const DECLINED: Record<DeclineReason, NotificationOutcome> = {
  'not-participating': 'declined-not-participating',
  'department-not-offered': 'declined-department-not-offered',
};
