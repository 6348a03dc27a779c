import { AdmissionBundleSubmittedV1 } from './messages/admission-bundle-submitted';
import { AdmissionOverdueV1 } from './messages/admission-overdue';
import { AdmissionResponseV1 } from './messages/admission-response';
import { ClinicAnswerSubmittedV1 } from './messages/clinic-answer-submitted';
import { DocumentBundleSubmittedV1 } from './messages/document-bundle-submitted';
import { RequestDispatchedV1 } from './messages/request-dispatched';
import { RequestErasedV1 } from './messages/request-erased';

/**
 * The one place that declares the broker's exchanges and queues. Provisioning declares the whole
 * topology before any service starts (docs/operations.md, "Provisioning"), so start order does not
 * matter and no message published before its consumer first started is dropped for want of a queue;
 * the services declare none of it, and each service's broker user may bind only the routing keys of
 * its queue here (and of its broadcasts).
 */
export interface QueueDeclaration {
  readonly name: string;
  /** Routing keys bound to the events exchange. */
  readonly bindings: readonly string[];
  /**
   * One consumer at a time takes the queue's messages (RabbitMQ's single active consumer); the
   * others stand by and the next takes over, in queue order, when it goes. For a queue whose
   * messages of one request must be applied in the order they were sent.
   */
  readonly singleActiveConsumer?: boolean;
}

export interface Topology {
  readonly eventsExchange: string;
  readonly deadLetterExchange: string;
  readonly queues: Readonly<Record<QueueKey, QueueDeclaration>>;
}

export type QueueKey = 'intake' | 'routing' | 'notifier';

export function declareTopology(namespace: string): Topology {
  const queue = (key: QueueKey, bindings: readonly string[], options: { singleActiveConsumer?: boolean } = {}): QueueDeclaration => ({
    name: `${namespace}.${key}`,
    bindings,
    ...options,
  });
  return {
    eventsExchange: `${namespace}.events`,
    deadLetterExchange: `${namespace}.dead-letter`,
    queues: {
      // A request's bundles must be applied in the order they were sent (a supplement before the
      // revocation that follows it), also when they wait in the queue together: with competing
      // consumers two intake processes applied 191 of 1,500 such requests out of order (bench,
      // figure 7b). So one intake process consumes at a time, the others stand by
      // (docs/architecture.md, "Scaling").
      intake: queue('intake', [AdmissionBundleSubmittedV1.routingKey, DocumentBundleSubmittedV1.routingKey, ClinicAnswerSubmittedV1.routingKey], {
        singleActiveConsumer: true,
      }),
      // Routing also hears every answer (a clinic's own decline releases the bed held for it) and
      // of erasures (it releases the request's held beds and drops its department and date).
      routing: queue('routing', [RequestDispatchedV1.routingKey, AdmissionResponseV1.routingKey, RequestErasedV1.routingKey]),
      // The notifier also hears of erasures (it drops the request's pending webhook events and data)
      // and of Tasks past their answer deadline (the AdmissionOverdue events).
      notifier: queue('notifier', [AdmissionResponseV1.routingKey, AdmissionOverdueV1.routingKey, RequestErasedV1.routingKey]),
    },
  };
}

/** Name of the queue that holds what `queueName` dead-lettered. */
export function deadLetterQueueName(queueName: string): string {
  return `${queueName}.dead-letter`;
}
