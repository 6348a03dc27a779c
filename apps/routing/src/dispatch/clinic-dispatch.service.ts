import { AdmissionResponseV1, businessStatusOf, RequestDispatchedV1, type Envelope, type MessageDefinition } from '@bedrequest/contracts';
import type { BedKey } from '../beds/bed-count';
import { DispatchBatch, type MessageMeta, type NotificationEntry } from './dispatch-batch';
import type { DispatchRepository } from './dispatch.repository';

/** A message routing handles, read from its envelope. */
export type RoutingCommand =
  | { kind: 'dispatch'; meta: MessageMeta; request: RequestDispatchedV1 }
  /** A clinic declined its Task: the bed the Task holds goes back. */
  | { kind: 'declined'; meta: MessageMeta; taskId: string }
  /** Any other answer (the service's own included): nothing to do, nothing to record. */
  | { kind: 'ignored'; meta: MessageMeta };

export interface BatchResult {
  /** Notification log lines of the dispatches that were new. */
  notifications: NotificationEntry[];
  /** Tasks whose bed a decline gave back. */
  released: string[];
  /** Messages processed before (redeliveries): acknowledged again, nothing changed. */
  duplicates: number;
  /** Automatic answers written to the outbox. */
  answers: number;
}

/**
 * Fans changed requests out to their clinics (request.dispatched.v1) and gives back the beds of
 * declined Tasks (admission.response.v1), a batch at a time. One statement writes the inbox rows,
 * the bed bookings, the notification log and the automatic answers (outbox), so a bed is never held
 * without its answer being sent, and a redelivered message changes nothing.
 */
export class ClinicDispatchService {
  constructor(private readonly dispatches: DispatchRepository) {}

  /** The command of a consumed message; undefined for a message type routing does not handle. */
  prepare(message: { envelope: Envelope; definition: MessageDefinition }): RoutingCommand | undefined {
    const { envelope, definition } = message;
    const meta: MessageMeta = { messageId: envelope.id, messageType: definition.routingKey, correlationId: envelope.correlationId };
    if (definition.routingKey === RequestDispatchedV1.routingKey) return { kind: 'dispatch', meta, request: envelope.payload as RequestDispatchedV1 };
    if (definition.routingKey !== AdmissionResponseV1.routingKey) return undefined;
    const { source, task } = envelope.payload as AdmissionResponseV1;
    // The service's own answers booked or released their beds already (routing's from bed counts,
    // intake's declines through the dispatch): only a clinic's decline gives a bed back here.
    const declinedByClinic = source !== 'automatic' && businessStatusOf(task) === 'declined';
    return declinedByClinic ? { kind: 'declined', meta, taskId: task.id } : { kind: 'ignored', meta };
  }

  /** Applies a batch (read its state, decide in memory, write it in one statement), in the order the messages arrived. */
  async handle(commands: readonly RoutingCommand[]): Promise<BatchResult> {
    const relevant = commands.filter((command) => command.kind !== 'ignored');
    if (relevant.length === 0) return { notifications: [], released: [], duplicates: 0, answers: 0 };
    const dispatches = relevant.flatMap((command) => (command.kind === 'dispatch' ? [command.request] : []));
    const tasks = dispatches.flatMap((request) => request.tasks);
    const wantedBeds: BedKey[] = dispatches.flatMap((request) =>
      request.departmentCode && request.occurrenceDate
        ? request.tasks.map((task) => ({ clinicIk: task.clinicIk, departmentCode: request.departmentCode!, admissionDate: request.occurrenceDate! }))
        : [],
    );
    const state = await this.dispatches.load({
        messages: relevant.map((command) => command.meta),
        taskIds: tasks.map((task) => task.taskId),
        holdTaskIds: [...tasks.map((task) => task.taskId), ...relevant.flatMap((command) => (command.kind === 'declined' ? [command.taskId] : []))],
        wantedBeds,
      clinicIks: tasks.map((task) => task.clinicIk),
    });
    const batch = new DispatchBatch(state);
    const result: BatchResult = { notifications: [], released: [], duplicates: 0, answers: 0 };
    for (const command of relevant) {
      if (!batch.take(command.meta)) {
        result.duplicates++;
      } else if (command.kind === 'dispatch') {
        result.notifications.push(...batch.dispatch(command.request, command.meta));
      } else if (command.kind === 'declined' && batch.releaseForDecline(command.taskId)) {
        result.released.push(command.taskId);
      }
    }
    const changes = batch.changes();
    await this.dispatches.write(changes);
    return { ...result, answers: changes.outbox.length };
  }
}
