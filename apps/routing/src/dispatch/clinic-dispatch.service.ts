import { AdmissionResponseV1, businessStatusOf, RequestDispatchedV1, RequestErasedV1 } from '@bedrequest/contracts';
import { metaOf, type MessageHandlers, type MessageMeta } from '@bedrequest/messaging';
import type { BedKey } from '../beds/bed-count';
import { DispatchBatch, type NotificationEntry, type RequestErasure } from './dispatch-batch';
import type { DispatchRepository } from './dispatch.repository';

/** A message routing handles, read from its envelope. */
export type RoutingCommand =
  | { kind: 'dispatch'; meta: MessageMeta; request: RequestDispatchedV1 }
  /** A clinic declined its Task (or, selected, withdrew its acceptance): the bed the Task holds or has reserved goes back. */
  | { kind: 'declined'; meta: MessageMeta; taskId: string }
  /** Intake erased the request's patient data: routing erases its copy (DispatchBatch.erase). */
  | { kind: 'erased'; meta: MessageMeta; erasure: RequestErasure }
  /** Any other answer (the service's own included): nothing to do, nothing to record. */
  | { kind: 'ignored'; meta: MessageMeta };

/** The command of each message routing consumes (the routing queue's bindings, libs/contracts topology). */
export const routingCommands: MessageHandlers<RoutingCommand> = {
  [RequestDispatchedV1.routingKey]: (request, message) => ({ kind: 'dispatch', meta: metaOf(message), request }),
  [RequestErasedV1.routingKey]: ({ requestIdentifier, erasedAt }, message) => ({
    kind: 'erased',
    meta: metaOf(message),
    erasure: { requestIdentifier, erasedAt },
  }),
  [AdmissionResponseV1.routingKey]: ({ source, task }, message) => {
    // The service's own answers booked or released their beds already (routing's from bed counts,
    // intake's declines through the dispatch): only a clinic's decline gives a bed back here. The
    // selected clinic's Task stays in progress whatever it answers, and the bed the selection reserved
    // with it; its withdrawal of the acceptance makes the Task rejected, which gives it back
    // (docs/decisions.md, "Clinics answer").
    const declinedByClinic = source !== 'automatic' && businessStatusOf(task) === 'declined' && task.status !== 'in-progress';
    return declinedByClinic ? { kind: 'declined', meta: metaOf(message), taskId: task.id } : { kind: 'ignored', meta: metaOf(message) };
  },
};

export interface BatchResult {
  /** Notification log lines of the dispatches that were new. */
  notifications: NotificationEntry[];
  /** Tasks whose bed a decline or an erasure gave back. */
  released: string[];
  /** Requests erased (request.erased.v1 processed for the first time). */
  erased: number;
  /** Dispatches of requests erased before: acknowledged, nothing booked or logged. */
  ignoredErased: number;
  /** Messages processed before (redeliveries): acknowledged again, nothing changed. */
  duplicates: number;
  /** Automatic answers written to the outbox. */
  answers: number;
}

/**
 * Fans changed requests out to their clinics (request.dispatched.v1), gives back the beds of
 * declined Tasks (admission.response.v1) and erases what routing keeps of an erased request
 * (request.erased.v1), a batch at a time. One statement writes the inbox rows,
 * the bed bookings, the notification log and the automatic answers (outbox), so a bed is never held
 * without its answer being sent, and a redelivered message changes nothing.
 */
export class ClinicDispatchService {
  constructor(private readonly dispatches: DispatchRepository) {}

  /** Applies a batch (read its state, decide in memory, write it in one statement), in the order the messages arrived. */
  async handle(commands: readonly RoutingCommand[]): Promise<BatchResult> {
    const relevant = commands.filter((command) => command.kind !== 'ignored');
    const result: BatchResult = { notifications: [], released: [], erased: 0, ignoredErased: 0, duplicates: 0, answers: 0 };
    if (relevant.length === 0) return result;
    const dispatches = relevant.flatMap((command) => (command.kind === 'dispatch' ? [command.request] : []));
    const tasks = dispatches.flatMap((request) => request.tasks);
    const wantedBeds: BedKey[] = dispatches.flatMap(({ tasks: dispatched, departmentCode, occurrenceDate: admissionDate }) =>
      admissionDate ? dispatched.map((task) => ({ clinicIk: task.clinicIk, departmentCode, admissionDate })) : [],
    );
    const erasedRequests = relevant.flatMap((command) => (command.kind === 'erased' ? [command.erasure.requestIdentifier] : []));
    const state = await this.dispatches.load({
      messages: relevant.map((command) => command.meta),
      taskIds: tasks.map((task) => task.taskId),
      holdTaskIds: [...tasks.map((task) => task.taskId), ...relevant.flatMap((command) => (command.kind === 'declined' ? [command.taskId] : []))],
      wantedBeds,
      clinicIks: tasks.map((task) => task.clinicIk),
      requestIdentifiers: [...dispatches.map((request) => request.requestIdentifier), ...erasedRequests],
      erasedRequests,
    });
    const batch = new DispatchBatch(state);
    for (const command of relevant) {
      if (!batch.take(command.meta)) {
        result.duplicates++;
      } else if (command.kind === 'dispatch') {
        const entries = batch.dispatch(command.request, command.meta);
        if (entries === 'erased') result.ignoredErased++;
        else result.notifications.push(...entries);
      } else if (command.kind === 'declined') {
        if (batch.releaseForDecline(command.taskId)) result.released.push(command.taskId);
      } else if (command.kind === 'erased') {
        result.released.push(...batch.erase(command.erasure));
        result.erased++;
      }
    }
    const changes = batch.changes();
    await this.dispatches.write(changes);
    return { ...result, notifications: changes.notifications, answers: changes.outbox.length };
  }
}
