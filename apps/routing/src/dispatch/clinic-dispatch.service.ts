import { ClinicAnswerSubmittedV1, type AdmissionResponseV1, type RequestDispatchedV1 } from '@bedrequest/contracts';
import { outboxRecord, type OutboxRecord } from '@bedrequest/messaging';
import type { BedCapacityRepository } from '../beds/bed-capacity.repository';
import { afterHoldAttempt, planTask, type DispatchedTask } from './dispatch-rules';
import type { DispatchRepository, NotificationEntry, Tx } from './dispatch.repository';

/** Metadata of the dispatch message: its id keys the inbox, its correlation id travels on. */
export interface MessageMeta {
  messageId: string;
  messageType: string;
  correlationId: string;
}

export type DispatchResult = { duplicate: true } | { duplicate: false; notifications: NotificationEntry[] };

/**
 * Fans a changed request out to its clinics (request.dispatched.v1). One transaction holds the
 * inbox row, the bed bookings, the notification log and the automatic answers (outbox), so a bed
 * is never held without its answer being sent, and a redelivered message changes nothing.
 */
export class ClinicDispatchService {
  constructor(
    private readonly dispatches: DispatchRepository,
    private readonly beds: BedCapacityRepository,
  ) {}

  dispatch(request: RequestDispatchedV1, meta: MessageMeta): Promise<DispatchResult> {
    return this.dispatches.transaction(async (tx) => {
      if (!(await this.dispatches.claimMessage(tx, meta.messageId, meta.messageType))) return { duplicate: true };
      await this.dispatches.lockRequest(tx, request.requestIdentifier);
      const notifications: NotificationEntry[] = [];
      const answers: OutboxRecord[] = [];
      // One order for every transaction, so two dispatches naming the same clinics lock their bed
      // counts in the same order and cannot deadlock.
      const tasks = [...request.tasks].sort((a, b) => a.clinicIk.localeCompare(b.clinicIk) || a.taskId.localeCompare(b.taskId));
      for (const task of tasks) {
        const entry = await this.notifyClinic(tx, request, task, meta);
        notifications.push(entry);
        if (entry.answer === 'accepted' || entry.answer === 'declined') {
          answers.push(
            outboxRecord(
              ClinicAnswerSubmittedV1,
              {
                taskId: task.taskId,
                clinicIk: task.clinicIk,
                businessStatus: entry.answer,
                ...(entry.note ? { note: entry.note } : {}),
                source: 'automatic',
                // intake refuses the answer if the clinic was sent a newer version meanwhile.
                answersVersion: request.version,
              },
              { correlationId: meta.correlationId },
            ),
          );
        }
      }
      await this.dispatches.recordNotifications(tx, notifications);
      await this.dispatches.addToOutbox(tx, answers);
      return { duplicate: false, notifications };
    });
  }

  /**
   * Every answer a Task received (admission.response.v1): a decline releases the bed held for that
   * Task, so a clinic that declines by hand after an automatic acceptance frees its bed at once.
   */
  recordAnswer(event: AdmissionResponseV1, meta: MessageMeta): Promise<{ duplicate: boolean; released: boolean }> {
    return this.dispatches.transaction(async (tx) => {
      if (!(await this.dispatches.claimMessage(tx, meta.messageId, meta.messageType))) return { duplicate: true, released: false };
      const task = event.task as { id?: unknown; businessStatus?: { coding?: { code?: unknown }[] } };
      const declined = task.businessStatus?.coding?.[0]?.code === 'declined';
      if (!declined || typeof task.id !== 'string') return { duplicate: false, released: false };
      await this.dispatches.lockRequest(tx, event.requestIdentifier);
      return { duplicate: false, released: await this.beds.release(tx, task.id) };
    });
  }

  private async notifyClinic(tx: Tx, request: RequestDispatchedV1, task: DispatchedTask, meta: MessageMeta): Promise<NotificationEntry> {
    const entry: NotificationEntry = {
      messageId: meta.messageId,
      taskId: task.taskId,
      clinicIk: task.clinicIk,
      requestIdentifier: request.requestIdentifier,
      requestVersion: request.version,
      change: request.change,
      action: task.action,
      ...(request.departmentCode ? { departmentCode: request.departmentCode } : {}),
      ...(request.occurrenceDate ? { admissionDate: request.occurrenceDate } : {}),
      outcome: 'ignored-outdated',
    };
    const current = await this.dispatches.advanceTask(tx, { ...task, requestIdentifier: request.requestIdentifier, version: request.version });
    if (!current) return entry;

    const clinic = await this.dispatches.findClinic(tx, task.clinicIk);
    const heldBed = await this.beds.findHold(tx, task.taskId);
    const plan = planTask(request, task, clinic, heldBed);
    if (plan.kind !== 'reserve' && plan.releaseBed) await this.beds.release(tx, task.taskId);
    const settled =
      plan.kind === 'hold'
        ? afterHoldAttempt(request, plan.bed, await this.beds.hold(tx, plan.bed, { taskId: task.taskId, requestIdentifier: request.requestIdentifier }))
        : plan;
    if (settled.kind === 'reserve') await this.beds.reserve(tx, task.taskId);
    return { ...entry, outcome: settled.outcome, ...(settled.kind === 'answer' ? { answer: settled.answer, note: settled.note } : {}) };
  }
}
