import { ClinicAnswerSubmittedV1, type RequestDispatchedV1, type RequestErasedV1 } from '@bedrequest/contracts';
import { outboxRecord, type MessageMeta, type OutboxRecord } from '@bedrequest/messaging';
import { availableBeds, type BedCount, type BedKey, type HeldBed } from '../beds/bed-count';
import { afterHoldAttempt, afterReserveAttempt, planTask, type DispatchedTask, type RegisteredClinic, type SettledPlan } from './dispatch-rules';

/** One line of the notification log (table clinic_notification). */
export interface NotificationEntry {
  messageId: string;
  taskId: string;
  clinicIk: string;
  requestIdentifier: string;
  requestVersion: number;
  change: string;
  action: string;
  departmentCode?: string;
  admissionDate?: string;
  outcome: string;
  answer?: string;
  note?: string;
}

/** What routing keeps of an erasure (request_erasure): the identifier and the date, as intake's tombstone. */
export type RequestErasure = Pick<RequestErasedV1, 'requestIdentifier' | 'erasedAt'>;

/** A bed a Task holds, as bed_hold stores it. */
export type StoredHold = HeldBed & { requestIdentifier: string };

/** What a batch finds in the database before it decides. */
export interface DispatchState {
  /** Message ids not processed before. */
  fresh: ReadonlySet<string>;
  /** The latest request version applied to each Task (routed_task). */
  routedVersions: ReadonlyMap<string, number>;
  /** The beds Tasks hold or have reserved. */
  holds: readonly StoredHold[];
  /** Bed counts of every bed the batch may book or give back. */
  bedCounts: readonly BedCount[];
  clinics: ReadonlyMap<string, RegisteredClinic>;
  /** Requests of the batch that intake erased before (request_erasure). */
  erased: ReadonlySet<string>;
}

/**
 * What a batch writes (DispatchRepository.write, one statement), with what it read of every row it
 * changes: each is written only if it is still as read.
 */
export interface DispatchChanges {
  /** The messages this batch processed: their inbox rows. */
  processed: MessageMeta[];
  routedTasks: { taskId: string; clinicIk: string; requestIdentifier: string; version: number; isNew: boolean; readVersion: number }[];
  /** Every bed count the batch changed: as read, and with its final held/reserved. */
  bedCounts: { read: BedCount; after: BedCount }[];
  holds: { removed: StoredHold[]; added: StoredHold[]; changed: { read: StoredHold; after: StoredHold }[] };
  notifications: NotificationEntry[];
  /** Requests erased by this batch: recorded, and their notification log lines lose the patient's need. */
  erasures: RequestErasure[];
  /** Automatic answers (clinic.answer.submitted.v1), in the order they were made. */
  outbox: OutboxRecord[];
}

const bedId = (bed: BedKey) => `${bed.clinicIk} ${bed.departmentCode} ${bed.admissionDate}`;

/**
 * The unit of work of one batch of routing's messages. Messages apply in the order they arrived, in
 * memory, against the state loaded for the whole batch: bed counts are booked here, and written only
 * if no other batch booked against them meanwhile (DispatchRepository.write), so the last free bed
 * goes to exactly one request; two dispatches of one request in one batch apply one after the other.
 */
export class DispatchBatch {
  private readonly routed: Map<string, { version: number; isNew: boolean; changed: boolean; clinicIk: string; requestIdentifier: string; readVersion: number }>;
  private readonly holds: Map<string, StoredHold>;
  private readonly originalHolds: ReadonlyMap<string, StoredHold>;
  private readonly counts: Map<string, BedCount>;
  private readonly readCounts: ReadonlyMap<string, BedCount>;
  private readonly changedCounts = new Set<string>();
  private readonly processed: MessageMeta[] = [];
  private readonly notifications: NotificationEntry[] = [];
  /** The automatic answers of this batch, by request (an erasure later in the batch withdraws its request's). */
  private answers: { requestIdentifier: string; record: OutboxRecord }[] = [];
  private readonly erasures: RequestErasure[] = [];
  private readonly erased: Set<string>;

  constructor(private readonly state: DispatchState) {
    this.routed = new Map(
      [...state.routedVersions].map(([taskId, version]) => [
        taskId,
        { version, isNew: false, changed: false, clinicIk: '', requestIdentifier: '', readVersion: version },
      ]),
    );
    this.holds = new Map(state.holds.map((hold) => [hold.taskId, { ...hold }]));
    this.originalHolds = new Map(state.holds.map((hold) => [hold.taskId, hold]));
    this.counts = new Map(state.bedCounts.map((count) => [bedId(count), { ...count }]));
    this.readCounts = new Map(state.bedCounts.map((count) => [bedId(count), count]));
    this.erased = new Set(state.erased);
  }

  /** True for a message not processed before; it is then recorded as processed by this batch. */
  take(meta: MessageMeta): boolean {
    if (!this.state.fresh.has(meta.messageId) || this.processed.some((taken) => taken.messageId === meta.messageId)) return false;
    this.processed.push(meta);
    return true;
  }

  /**
   * Fans a changed request out to its clinics; returns the notification log lines. A dispatch of an
   * erased request (one sent before the erasure and delivered after it) books nothing and logs nothing.
   */
  dispatch(request: RequestDispatchedV1, meta: MessageMeta): NotificationEntry[] | 'erased' {
    if (this.erased.has(request.requestIdentifier)) return 'erased';
    const entries = request.tasks.map((task) => this.notifyClinic(request, task, meta));
    this.notifications.push(...entries);
    return entries;
  }

  /** A decline (by the clinic or for it) gives back the bed its Task holds; true when it held one. */
  releaseForDecline(taskId: string): boolean {
    return this.release(taskId);
  }

  /**
   * Routing's share of a request's erasure (docs/data-protection.md): the beds its Tasks still hold
   * go back as a decline gives them back; a reserved bed stays counted (the admission was agreed, and
   * the clinic's count is its own business from then on) while its hold goes, since it names the
   * department and date; the notification log keeps ids, states and outcomes only. Returns the
   * Tasks whose held bed went back.
   */
  erase(erasure: RequestErasure): string[] {
    const released: string[] = [];
    for (const hold of [...this.holds.values()]) {
      if (hold.requestIdentifier !== erasure.requestIdentifier) continue;
      if (hold.state === 'held') {
        this.release(hold.taskId);
        released.push(hold.taskId);
      } else {
        this.holds.delete(hold.taskId);
      }
    }
    for (const [index, entry] of this.notifications.entries()) {
      if (entry.requestIdentifier === erasure.requestIdentifier) this.notifications[index] = withoutPatientNeed(entry);
    }
    // Automatic answers this batch made for the request are not sent: intake would refuse them
    // (409), and their notes name the department and the date.
    this.answers = this.answers.filter((answer) => answer.requestIdentifier !== erasure.requestIdentifier);
    if (!this.erased.has(erasure.requestIdentifier)) this.erasures.push(erasure);
    this.erased.add(erasure.requestIdentifier);
    return released;
  }

  changes(): DispatchChanges {
    const removed: StoredHold[] = [];
    const added: StoredHold[] = [];
    const changed: DispatchChanges['holds']['changed'] = [];
    for (const [taskId, read] of this.originalHolds) if (!this.holds.has(taskId)) removed.push(read);
    for (const [taskId, after] of this.holds) {
      const read = this.originalHolds.get(taskId);
      if (!read) added.push(after);
      else if (read.state !== after.state || bedId(read) !== bedId(after)) changed.push({ read, after });
    }
    return {
      processed: this.processed,
      routedTasks: [...this.routed].filter(([, task]) => task.changed).map(([taskId, task]) => ({ taskId, ...task })),
      bedCounts: [...this.changedCounts].map((id) => ({ read: this.readCounts.get(id)!, after: this.counts.get(id)! })),
      holds: { removed, added, changed },
      notifications: this.notifications,
      erasures: this.erasures,
      outbox: this.answers.map((answer) => answer.record),
    };
  }

  private notifyClinic(request: RequestDispatchedV1, task: DispatchedTask, meta: MessageMeta): NotificationEntry {
    const entry: NotificationEntry = {
      messageId: meta.messageId,
      taskId: task.taskId,
      clinicIk: task.clinicIk,
      requestIdentifier: request.requestIdentifier,
      requestVersion: request.version,
      change: request.change,
      action: task.action,
      departmentCode: request.departmentCode,
      ...(request.occurrenceDate ? { admissionDate: request.occurrenceDate } : {}),
      outcome: 'ignored-outdated',
    };
    // The dispatches of one request may arrive out of order: an older version changes nothing.
    const routed = this.routed.get(task.taskId);
    if (routed && routed.version > request.version) return entry;
    this.routed.set(task.taskId, {
      version: request.version,
      isNew: routed ? routed.isNew : true,
      changed: true,
      clinicIk: task.clinicIk,
      requestIdentifier: request.requestIdentifier,
      readVersion: routed?.readVersion ?? 0,
    });

    const plan = planTask(request, task, this.state.clinics.get(task.clinicIk), this.holds.get(task.taskId));
    if (plan.kind === 'declined-by-intake') {
      if (plan.releaseBed) this.release(task.taskId);
      return { ...entry, outcome: plan.outcome, answer: 'declined' };
    }
    if ((plan.kind === 'notify' || plan.kind === 'answer' || plan.kind === 'hold') && plan.releaseBed) this.release(task.taskId);
    const settled: SettledPlan =
      plan.kind === 'hold'
        ? afterHoldAttempt(request, plan.bed, this.hold(plan.bed, task.taskId, request.requestIdentifier), this.state.clinics.get(task.clinicIk))
        : plan.kind === 'reserve-new'
          ? afterReserveAttempt(this.reserveNew(plan.bed, task.taskId, request.requestIdentifier))
          : plan;
    if (settled.kind === 'reserve') this.reserve(task.taskId);
    if (settled.kind !== 'answer') return { ...entry, outcome: settled.outcome };
    this.answers.push({
      requestIdentifier: request.requestIdentifier,
      record: outboxRecord(
        ClinicAnswerSubmittedV1,
        {
          taskId: task.taskId,
          clinicIk: task.clinicIk,
          businessStatus: settled.answer,
          note: settled.note,
          source: 'automatic',
          // intake refuses the answer if the clinic was sent a newer version meanwhile.
          answersVersion: request.version,
        },
        meta,
      ),
    });
    return { ...entry, outcome: settled.outcome, answer: settled.answer, note: settled.note };
  }

  /** Holds one bed if one is available (`free_beds - held - reserved > 0`), as the locked count says. */
  private hold(bed: BedKey, taskId: string, requestIdentifier: string): 'held' | 'no-free-bed' | 'no-bed-count' {
    const count = this.counts.get(bedId(bed));
    if (!count) return 'no-bed-count';
    if (availableBeds(count) <= 0) return 'no-free-bed';
    this.counts.set(bedId(bed), { ...count, held: count.held + 1 });
    this.changedCounts.add(bedId(bed));
    this.holds.set(taskId, {
      taskId,
      clinicIk: bed.clinicIk,
      departmentCode: bed.departmentCode,
      admissionDate: bed.admissionDate,
      state: 'held',
      requestIdentifier,
    });
    return 'held';
  }

  /**
   * Reserves one bed of the count for a selected clinic that holds none (it accepted by hand). The
   * selection is recorded whatever the count says, so with none available the bed is reserved
   * all the same and the count is over-booked (available stays 0); no count, nothing is booked.
   */
  private reserveNew(bed: BedKey, taskId: string, requestIdentifier: string): 'reserved' | 'overbooked' | 'no-bed-count' {
    const count = this.counts.get(bedId(bed));
    if (!count) return 'no-bed-count';
    const overbooked = availableBeds(count) <= 0;
    this.counts.set(bedId(bed), { ...count, reserved: count.reserved + 1 });
    this.changedCounts.add(bedId(bed));
    this.holds.set(taskId, { ...bed, taskId, state: 'reserved', requestIdentifier });
    return overbooked ? 'overbooked' : 'reserved';
  }

  private reserve(taskId: string): void {
    const hold = this.holds.get(taskId);
    if (hold?.state !== 'held') return;
    const count = this.counts.get(bedId(hold));
    if (count) {
      this.counts.set(bedId(hold), { ...count, held: count.held - 1, reserved: count.reserved + 1 });
      this.changedCounts.add(bedId(hold));
    }
    this.holds.set(taskId, { ...hold, state: 'reserved' });
  }

  private release(taskId: string): boolean {
    const hold = this.holds.get(taskId);
    if (!hold) return false;
    const count = this.counts.get(bedId(hold));
    if (count) {
      this.counts.set(bedId(hold), { ...count, [hold.state]: count[hold.state] - 1 });
      this.changedCounts.add(bedId(hold));
    }
    this.holds.delete(taskId);
    return true;
  }
}

/**
 * A notification log line without what described the patient's need: the department and date, and
 * the automatic answer's note, which names them. Ids, the change, the outcome and the answer stay.
 */
function withoutPatientNeed(entry: NotificationEntry): NotificationEntry {
  const kept: NotificationEntry = { ...entry };
  delete kept.departmentCode;
  delete kept.admissionDate;
  delete kept.note;
  return kept;
}
