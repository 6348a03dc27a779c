import { IntakeVerdictV1 } from '@bedrequest/contracts';
import { handleByType, type BatchHandler, type OutboxRelay } from '@bedrequest/messaging';
import type { Logger } from 'pino';
import { intakeCommands, type IntakeService } from '../requests';

/**
 * The intake queue's handler: runs a batch through the use cases (one transaction), then, after
 * the commit, wakes the outbox relay, replies to each message with its verdict and acks them. A
 * thrown error (database unavailable, a message the database refuses) fails the batch, which the
 * broker then splits (libs/messaging BatchConsumer).
 */
export function intakeHandler(service: IntakeService, relay: Pick<OutboxRelay, 'nudge'>, logger: Logger): BatchHandler {
  return handleByType(intakeCommands, async (commands, messages) => {
    const verdicts = await service.handle(commands);
    relay.nudge();
    const counts: Record<string, number> = {};
    for (const [index, message] of messages.entries()) {
      const verdict = verdicts[index];
      if (!verdict) throw new Error('the batch gave no verdict for a message');
      // A refusal by its reason, else the outcome: what intake decided, not the caller's HTTP status.
      const refusal = verdict.outcome === 'rejected' ? verdict.refusal : undefined;
      const decided = refusal ?? verdict.outcome;
      counts[decided] = (counts[decided] ?? 0) + 1;
      message.logger.debug({ outcome: verdict.outcome, refusal }, 'processed');
      await message.reply(IntakeVerdictV1, verdict);
    }
    // One line per batch: ids and counts of what was decided, never bundle content.
    logger.info({ messages: messages.length, decided: counts, messageIds: messages.map((message) => message.envelope.id) }, 'batch processed');
  });
}
