import type { ReceivedWebhook } from '@bedrequest/testing';
import type { PublishedEvent } from './fleet-events';

/** What one run of a notifier fleet's `deliver` saw. */
export interface FleetRun {
  events: number;
  /**
   * Deliveries per second while the processes are busy: the middle 80 % of the first arrivals over
   * the time between them, without the start (publishing, the first claims) and the end (the last
   * attempts, when fewer events are left than slots), which weigh more in a shorter run.
   */
  perSecond: number;
  /** Events over the seconds from the first publish to the last event's first arrival. */
  overallPerSecond: number;
  seconds: number;
  /** Published events that never arrived. */
  lost: number;
  /** Events that arrived more than once (every receiver answers 2xx: a second arrival is a double). */
  doubled: number;
  /** Events stored and recorded as delivered by the notifiers (the database's view). */
  recordedDelivered: number;
  /** Requests whose two events arrived in the other order. */
  outOfOrder: number;
  /** Attempts each process made in the run (from its /metrics), by instance name. */
  attemptsByInstance: Record<string, number>;
}

/**
 * The figures of a run the receivers' view gives: rates, lost and doubled events, and the requests
 * (`requests`: how many; the first event of request n is published[n], the second
 * published[n + requests]) whose second event arrived before the first. `started`: when the first
 * publish began (performance.now()).
 */
export function arrivalFigures(
  published: readonly PublishedEvent[],
  requests: number,
  received: readonly ReceivedWebhook[],
  started: number,
): Pick<FleetRun, 'perSecond' | 'overallPerSecond' | 'seconds' | 'lost' | 'doubled' | 'outOfOrder'> {
  const arrivals = new Map<string, ReceivedWebhook[]>();
  for (const webhook of received) arrivals.set(webhook.id, [...(arrivals.get(webhook.id) ?? []), webhook]);
  const firstArrivalTimes = [...arrivals.values()].map((copies) => copies[0]!.receivedAt).sort((a, b) => a - b);
  const seconds = (firstArrivalTimes.at(-1)! - started) / 1000;
  const [from, to] = [Math.floor(firstArrivalTimes.length * 0.1), Math.ceil(firstArrivalTimes.length * 0.9) - 1];
  const busySeconds = (firstArrivalTimes[to]! - firstArrivalTimes[from]!) / 1000;
  const position = new Map(received.map((webhook, index) => [webhook, index] as const));
  let outOfOrder = 0;
  for (let request = 0; request < requests; request++) {
    const earlier = arrivals.get(published[request]!.eventId)?.[0];
    const later = published[request + requests] && arrivals.get(published[request + requests]!.eventId)?.[0];
    if (earlier && later && position.get(later)! < position.get(earlier)!) outOfOrder += 1;
  }
  return {
    perSecond: (to - from) / busySeconds,
    overallPerSecond: published.length / seconds,
    seconds,
    lost: published.filter((event) => !arrivals.has(event.eventId)).length,
    doubled: [...arrivals.values()].filter((copies) => copies.length > 1).length,
    outOfOrder,
  };
}
