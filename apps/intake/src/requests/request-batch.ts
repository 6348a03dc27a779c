import type { IntakeVerdictV1 } from '@bedrequest/contracts';
import { submitAdmissionRequest } from './admission-submission';
import { BatchState, type BatchContext } from './batch-state';
import { answerTaskOf } from './clinic-answer';
import { submitDocument } from './document-submission';
import type { FingerprintedCommand } from './intake-commands';
import type { BatchChanges, StoredDocumentHash, StoredRequest, StoredTask } from './request-records';

/**
 * The unit of work of one batch of intake's messages: the requests they touch, loaded and locked
 * up front (batch-state.ts), then every message applied in the order it arrived, in memory: two
 * bundles for the same request in one batch apply one after the other, exactly as if they had come
 * in two batches. `result()` is what the batch writes. Decisions come from the pure state machine;
 * each kind of message is applied by its own function (admission-submission.ts,
 * document-submission.ts, clinic-answer.ts).
 */
export class RequestBatch {
  private readonly state: BatchState;

  constructor(loaded: { requests: StoredRequest[]; tasks: StoredTask[]; documents: readonly StoredDocumentHash[] }, context: BatchContext) {
    this.state = new BatchState(loaded, context);
  }

  /** Applies one message and returns its verdict (also recorded in the inbox), as the reply carries it. */
  apply(command: FingerprintedCommand): IntakeVerdictV1 {
    const result = this.decideAndApply(command);
    this.state.changes.inbox.push({ messageId: command.meta.messageId, messageType: command.meta.messageType, verdict: result });
    return result;
  }

  result(): BatchChanges {
    return this.state.result();
  }

  private decideAndApply(command: FingerprintedCommand): IntakeVerdictV1 {
    switch (command.kind) {
      case 'admission':
        return submitAdmissionRequest(this.state, command);
      case 'document':
        return submitDocument(this.state, command);
      case 'answer':
        return answerTaskOf(this.state, command.answer, command.meta);
    }
  }
}
