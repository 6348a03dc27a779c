import type { Logger } from 'pino';
import { WakeUpLoop } from '@bedrequest/messaging';
import type { IntakeDeadLetters } from '../dead-letters';

/** Hourly, as the retention job: the safety net for what a wake did not cover. */
const SWEEP_INTERVAL_MS = 60 * 60 * 1000;

/**
 * Removes the messages of erased requests from every dead-letter queue (docs/data-protection.md,
 * "Retention and erasure"; docs/operations.md, "Dead-lettered messages"): a pass once intake
 * started, one after every erasure (RequestErasureRepository's `onErased`; erasures close together
 * share one), and one every hour for what those missed: a message dead-lettered after its request
 * was erased (a consumer was still retrying it), a pass that failed (the broker away; logged, and
 * tried again at the next wake).
 */
export function startDeadLetterSweep(deadLetters: Pick<IntakeDeadLetters, 'removeErased'>, logger: Logger): WakeUpLoop {
  const loop = new WakeUpLoop({
    pass: async () => {
      const removed = await deadLetters.removeErased();
      if (removed > 0) logger.info({ removed }, 'dead-lettered messages of erased requests removed');
    },
    intervalMs: SWEEP_INTERVAL_MS,
    logger,
    failureMessage: 'removing the dead-lettered messages of erased requests failed; will retry',
  });
  loop.start();
  return loop;
}
