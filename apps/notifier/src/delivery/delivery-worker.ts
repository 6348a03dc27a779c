import { context, ROOT_CONTEXT } from '@opentelemetry/api';
import type { Logger } from 'pino';
import type { WithheldReason } from '@bedrequest/contracts';
import { WakeUpLoop } from '@bedrequest/messaging';
import type { EventRepository, IncomingEvent, RecordOutcome } from '../events/event.repository';
import { AttemptRecorder } from './attempt-recorder';
import type { InFlightCaps } from './claim-rule';
import type { ClaimResult, ClaimedDelivery, UnreadableDelivery } from './claimed-delivery';
import type { DeliveryRepository } from './delivery.repository';
import type { DeliveryMetrics } from './delivery-metrics';
import type { RetryPolicy } from './retry-policy';
import type { WithheldDeliveries } from './withheld-deliveries';
import { attemptDelivery } from './webhook-attempt';
import type { WebhookSender } from './webhook-sender';

/**
 * Time to record an attempt's outcome after its deadline. A claim lasts the attempt timeout plus
 * this; only a worker that died mid-attempt ever lets a claim run out.
 */
const LEASE_MARGIN_MS = 5_000;

export interface DeliveryWorkerOptions {
  repository: Pick<DeliveryRepository, 'claimDue' | 'recordAttempts' | 'releaseClaims'>;
  /** Stores the events the consumer takes in (storeAndHandOver). */
  events: Pick<EventRepository, 'recordAll'>;
  sender: Pick<WebhookSender, 'send'>;
  policy: RetryPolicy;
  metrics: DeliveryMetrics;
  logger: Logger;
  timeoutMs: number;
  /** Attempts in flight at once in this process (claimed and not yet recorded). */
  concurrency: number;
  /** Attempts in flight at once per subscription and per origin, over every process (claim-rule.ts); none: uncapped. */
  caps?: InFlightCaps;
  pollIntervalMs: number;
  disableAfterMs: number;
  /**
   * Why a claimed delivery must not be sent now (docs/webhooks.md, "Authorization at delivery time"),
   * asked right before each attempt, retries included; none: every one is sent. The request's erasure
   * needs no check here: it withholds the pending events itself (RequestErasureRepository).
   */
  withholding?: { reasonFor: (delivery: ClaimedDelivery) => WithheldReason | undefined; deliveries: Pick<WithheldDeliveries, 'withhold'> };
}

/**
 * Sends due deliveries. The schedule lives in the database (DeliveryRepository), so any number of
 * processes can run a worker and a restart loses nothing. Deliveries come to it by two claims under
 * the one claim rule (claim-rule.ts): the statement that stores a batch of new events takes those
 * that can go out at once (storeAndHandOver), and this loop claims what else is due, polled every
 * `pollIntervalMs` and when woken (events stored that found no free slot, attempts recorded: the
 * next event of a request may now be due).
 *
 * Slots are counted here and nowhere else: `concurrency` of them, each free, held by a claim under
 * way (its statement may return that many deliveries), or taken by an attempt until it is recorded.
 * Either claim asks for at most the free slots and holds them while its statement runs, so however
 * the two interleave no more than `concurrency` attempts are in flight.
 *
 * Finished attempts are recorded in batches (AttemptRecorder). A slot stays taken until its attempt
 * is recorded, so the next event of a request, which is not due before this one is recorded, is
 * claimed only after that.
 */
export class DeliveryWorker {
  /** The attempts under way, and the claim each works on. */
  private readonly inFlight = new Map<Promise<void>, ClaimedDelivery>();
  /** Claims a stopping worker gave back unfinished (see stop): their attempts' outcomes are not recorded. */
  private readonly handedBack = new Set<string>();
  private readonly recorder: AttemptRecorder;
  /** Claims what is due: when woken, and every `pollIntervalMs` (retries, events other processes left, anything missed). */
  private readonly claims: WakeUpLoop;
  private stopped = false;
  /** Slots held by claims under way: their statements may return this many deliveries between them. */
  private claiming = 0;
  /**
   * Whether due deliveries may wait that nobody has claimed: set when stored events were not handed
   * over, when a claim filled every slot it held, and by the poll; cleared by a claim that left
   * slots unused. While it is clear, a finished attempt claims nothing.
   */
  private backlog = true;
  /** Requests (subscription and identifier) with a later event waiting for the one in flight here. */
  private readonly followUps = new Set<string>();
  /**
   * Requests whose waiting event became due when the attempt before it was recorded, until the next
   * claim: a delivery of one of them that this claim takes may have yet another event behind it, so
   * its request is followed up again (one more look at the end of a chain, never a wait for the poll).
   */
  private readonly released = new Set<string>();

  constructor(private readonly options: DeliveryWorkerOptions) {
    const { repository, metrics, logger, concurrency, disableAfterMs } = options;
    this.recorder = new AttemptRecorder({ repository, metrics, logger, maxBatch: concurrency, disableAfterMs });
    this.claims = new WakeUpLoop({
      pass: () => this.claim(),
      intervalMs: options.pollIntervalMs,
      // The poll looks whether or not the worker thinks there is a backlog: retries fall due with time.
      onInterval: () => (this.backlog = true),
      logger: options.logger,
      failureMessage: 'claiming due deliveries failed; will retry',
    });
  }

  start(): void {
    this.claims.start();
  }

  /**
   * Stores a batch of events (EventRepository.recordAll: one statement, which also claims under the
   * claim rule, up to the free slots, those that can go out at once) and sends what it claimed; one
   * outcome per event, in order. Of the events stored and not handed over, one that found no free
   * slot is claimed as soon as the worker looks again (now), one kept back by an earlier event of
   * its request when that event's attempt is recorded here, or by the poll.
   */
  async storeAndHandOver(events: readonly IncomingEvent[]): Promise<RecordOutcome[]> {
    const { outcomes } = await this.claimWithin(events.length, (limit) =>
      this.options.events.recordAll(events, { limit, leaseMs: this.leaseMs, ...(this.options.caps ? { caps: this.options.caps } : {}) }),
    );
    let leftBehind = false;
    events.forEach((event, index) => {
      const outcome = outcomes[index];
      if (outcome?.kind !== 'stored' || outcome.handedOver) return;
      leftBehind = true;
      if (outcome.waitsForEarlier) this.followUps.add(requestKey({ subscriptionId: outcome.subscriptionId, requestIdentifier: event.requestIdentifier }));
    });
    if (leftBehind) this.wake();
    return outcomes;
  }

  /**
   * Looks for due deliveries on the next turn, whether or not it thinks there is a backlog. Wakes
   * within one turn of the event loop are one look (a batch of recorded attempts wakes once, not
   * once per attempt), coalesced with a look already under way (see WakeUpLoop).
   */
  wake(): void {
    this.backlog = true;
    this.claims.wake();
  }

  /**
   * Stops claiming and waits, at most `timeoutMs`, for the attempts in flight to be recorded. The
   * claims of those still under way then are handed back (released in the database, as if never
   * claimed), so that another notifier takes them at once instead of after their lease; whatever
   * answer comes for them here is not recorded. A receiver may then get that webhook twice, with the
   * same id (docs/webhooks.md: at least once).
   */
  async stop(timeoutMs = this.leaseMs): Promise<void> {
    this.stopped = true;
    await this.claims.stop();
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([Promise.allSettled([...this.inFlight.keys()]), new Promise((resolve) => (timer = setTimeout(resolve, timeoutMs)))]);
    clearTimeout(timer);
    const unfinished = [...this.inFlight.values()];
    if (unfinished.length === 0) return;
    for (const delivery of unfinished) this.handedBack.add(delivery.eventId);
    await this.options.repository.releaseClaims(unfinished);
    this.options.logger.warn({ handedBack: unfinished.length }, 'webhook attempts still under way handed back to the other notifiers');
  }

  /** How long a claim lasts: the attempt's timeout and the time to record it. */
  get leaseMs(): number {
    return this.options.timeoutMs + LEASE_MARGIN_MS;
  }

  private async claim(): Promise<void> {
    if (!this.backlog || this.freeSlots() <= 0) return;
    const released = [...this.released];
    this.released.clear();
    const { claimed, unreadable, limit } = await this.claimWithin(this.options.concurrency, (limit) =>
      this.options.repository.claimDue(limit, this.leaseMs, this.options.caps),
    );
    for (const delivery of claimed) if (released.includes(requestKey(delivery))) this.followUps.add(requestKey(delivery));
    this.backlog = claimed.length + unreadable.length === limit;
  }

  private freeSlots(): number {
    return this.stopped ? 0 : this.options.concurrency - this.inFlight.size - this.claiming;
  }

  /**
   * Runs `claim` with a limit of up to `wanted` of the free slots, holds them while it runs, and
   * sends what it claimed (its limit at most): the one way deliveries take slots.
   */
  private async claimWithin<T extends ClaimResult>(wanted: number, claim: (limit: number) => Promise<T>): Promise<T & { limit: number }> {
    const limit = Math.max(0, Math.min(wanted, this.freeSlots()));
    this.claiming += limit;
    let result: T;
    try {
      result = await claim(limit);
    } finally {
      this.claiming -= limit;
    }
    this.reportUnreadable(result.unreadable);
    for (const delivery of result.claimed) this.send(delivery);
    return { ...result, limit };
  }

  /**
   * A delivery whose Task or secret does not open is not attempted; it is claimed again once its
   * lease has run out, and goes out when the missing key is configured again (DATA_PREVIOUS_KEKS).
   */
  private reportUnreadable(unreadable: readonly UnreadableDelivery[]): void {
    for (const { eventId, subscriptionId, reason } of unreadable) {
      this.options.logger.error({ eventId, subscriptionId, reason }, 'a claimed webhook cannot be decrypted; not attempted');
    }
  }

  private send(delivery: ClaimedDelivery): void {
    // In no one's context (a consumer's batch hands events over): the attempt's own span is a child
    // of the context stored with the delivery, and what follows it (the recording) is in no trace.
    const work: Promise<void> = context
      .with(ROOT_CONTEXT, () => this.deliver(delivery))
      .catch((error: unknown) =>
        // The claim runs out and the delivery is attempted again: at least once, never lost.
        this.options.logger.error({ eventId: delivery.eventId, err: String(error) }, 'recording a delivery attempt failed'),
      )
      .finally(() => {
        this.inFlight.delete(work);
        // The next event of its request is due now, if one waits for it; free slots may serve a backlog.
        if (this.followUps.delete(requestKey(delivery))) {
          this.released.add(requestKey(delivery));
          this.backlog = true;
        }
        this.claims.wake();
      });
    this.inFlight.set(work, delivery);
  }

  private async deliver(delivery: ClaimedDelivery): Promise<void> {
    const { sender, policy, metrics, withholding, logger } = this.options;
    const reason = withholding?.reasonFor(delivery);
    if (withholding && reason) {
      // Not sent, not an attempt: the log says why; the claim ends and the next event of its request is due.
      if (await withholding.deliveries.withhold(delivery, reason)) metrics.withheld.inc({ reason });
      logger.info({ eventId: delivery.eventId, subscriptionId: delivery.subscriptionId, reason }, 'webhook withheld');
      return;
    }
    const { attemptedAt, outcome, durationMs, span } = await attemptDelivery(delivery, sender, metrics);
    if (this.handedBack.has(delivery.eventId)) return;
    const step = policy.nextStep(outcome, delivery.attemptCount + 1);
    await this.recorder.add({ delivery, attemptedAt, outcome, durationMs, step, span });
  }
}

function requestKey(delivery: { subscriptionId: string; requestIdentifier: string }): string {
  return `${delivery.subscriptionId} ${delivery.requestIdentifier}`;
}
