import { declareTopology, type QueueKey } from '@bedrequest/contracts';
import { DeadLetterQueues, type DeadLetter, type DeadLetterDecision, type FirstDeath } from '@bedrequest/messaging';
import { type AuditRecord, AuditTrailRepository, entriesOf } from '../audit';
import { type IntakeDatabase, prismaRunner } from '../persistence';
import { DeadLetterRequests, type DeadLetterRequest } from './dead-letter-requests';

/** The queues with a dead-letter queue: every one of the topology (libs/contracts, declareTopology). */
export const DEAD_LETTER_QUEUES = ['intake', 'routing', 'notifier'] as const satisfies readonly QueueKey[];

/** A dead letter as `list` shows it: what it is and which request it is about, never what it carries. */
export interface DeadLetterSummary {
  messageId?: string;
  /** Its routing key (`admission.bundle.submitted.v1`), or `unreadable`. */
  type: string;
  /** The identifier of its request, where it names one. */
  request?: string;
  firstDeath: FirstDeath;
}

export interface DeadLetterListing {
  /** The queue the messages were dead-lettered from. */
  queue: string;
  messages: DeadLetterSummary[];
  /** Messages of erased requests the pass found, and removed (see IntakeDeadLetters). */
  erased: number;
}

/** Which dead letters of a queue a command is for: the one with a message id, or all. */
export type DeadLetterSelection = { messageId: string } | 'all';

export interface DeadLetterOutcome {
  queue: string;
  /** Replayed or discarded, as the command asked. */
  done: number;
  kept: number;
  erased: number;
}

export interface IntakeDeadLettersOptions {
  /** Intake's broker user (it may read every dead-letter queue and publish through the default exchange: tools/provision). */
  amqpUrl: string;
  /** AMQP_NAMESPACE: the queues are its (declareTopology). */
  namespace: string;
  requests: Pick<DeadLetterRequests, 'of'>;
  audit: Pick<AuditTrailRepository, 'appendEntries'>;
  now?: () => Date;
}

/** The dead-letter queues of `broker.namespace` on intake's broker user, with intake's schema for their requests and the audit trail. */
export function intakeDeadLetters(broker: { amqpUrl: string; namespace: string }, prisma: IntakeDatabase, schema: string): IntakeDeadLetters {
  return new IntakeDeadLetters({
    ...broker,
    requests: new DeadLetterRequests(prisma, schema),
    audit: new AuditTrailRepository(prismaRunner(prisma), schema),
  });
}

/**
 * The dead-letter queues of every service, kept by intake (docs/operations.md, "Dead-lettered
 * messages"): every message that can reach them is intake's own (request.dispatched,
 * admission.response, request.erased: routing's and the notifier's) or was sent to it (bundles and
 * answers: intake's), so intake's broker user reads no more by reading them, and intake's audit
 * trail records what an administrator does with them. Routing and the notifier need no right more.
 *
 * Every pass (see DeadLetterQueues) also removes the messages of requests whose patient data was
 * erased: no message of an erased request is ever put back anywhere.
 */
export class IntakeDeadLetters {
  private readonly queueNames: Readonly<Record<QueueKey, string>>;
  private readonly now: () => Date;

  constructor(private readonly options: IntakeDeadLettersOptions) {
    const { queues } = declareTopology(options.namespace);
    this.queueNames = { intake: queues.intake.name, routing: queues.routing.name, notifier: queues.notifier.name };
    this.now = options.now ?? (() => new Date());
  }

  /** What each queue's dead-letter queue holds, a line per message (the messages themselves a chunk at a time). */
  list(queues: readonly QueueKey[] = DEAD_LETTER_QUEUES): Promise<DeadLetterListing[]> {
    return DeadLetterQueues.with(this.options.amqpUrl, async (deadLetters) => {
      const listings: DeadLetterListing[] = [];
      for (const key of queues) {
        const queue = this.queueNames[key];
        const messages: DeadLetterSummary[] = [];
        const pass = await deadLetters.pass(queue, async (letters) => {
          const requests = await this.options.requests.of(letters);
          return letters.map((letter, index): DeadLetterDecision => {
            const request = requests[index];
            if (request?.erased) return 'discard';
            messages.push({
              ...(letter.messageId ? { messageId: letter.messageId } : {}),
              type: typeOf(letter),
              ...(request ? { request: request.identifier } : {}),
              firstDeath: letter.firstDeath,
            });
            return 'keep';
          });
        });
        listings.push({ queue, messages, erased: pass.discarded });
      }
      return listings;
    });
  }

  /** Puts the selected dead letters back onto `queue`, each recorded in the audit trail as `operator`'s before it is moved. */
  replay(queue: QueueKey, selection: DeadLetterSelection, operator: string): Promise<DeadLetterOutcome> {
    return this.act('replay', queue, selection, operator);
  }

  /** Removes the selected dead letters, each recorded in the audit trail as `operator`'s before it is removed. */
  discard(queue: QueueKey, selection: DeadLetterSelection, operator: string): Promise<DeadLetterOutcome> {
    return this.act('discard', queue, selection, operator);
  }

  /** Removes the messages of erased requests from every dead-letter queue; resolves to how many. */
  removeErased(): Promise<number> {
    return DeadLetterQueues.with(this.options.amqpUrl, async (deadLetters) => {
      let removed = 0;
      for (const key of DEAD_LETTER_QUEUES) {
        const pass = await deadLetters.pass(this.queueNames[key], async (letters) => {
          const requests = await this.options.requests.of(letters);
          return requests.map((request) => (request?.erased ? 'discard' : 'keep'));
        });
        removed += pass.discarded;
      }
      return removed;
    });
  }

  private act(action: 'replay' | 'discard', key: QueueKey, selection: DeadLetterSelection, operator: string): Promise<DeadLetterOutcome> {
    const queue = this.queueNames[key];
    return DeadLetterQueues.with(this.options.amqpUrl, async (deadLetters) => {
      const outcome: DeadLetterOutcome = { queue, done: 0, kept: 0, erased: 0 };
      await deadLetters.pass(queue, async (letters) => {
        const requests = await this.options.requests.of(letters);
        const selected = letters.map((letter, index) => !requests[index]?.erased && (selection === 'all' || letter.messageId === selection.messageId));
        const records = letters.flatMap((letter, index) => (selected[index] ? [auditRecordOf(action, letter, requests[index], operator)] : []));
        // Recorded before the messages move: an action is never missing from the trail (one that
        // then fails is recorded, and recorded again when it is tried again).
        if (records.length > 0) await this.options.audit.appendEntries(entriesOf(records, this.now()));
        return letters.map((_, index): DeadLetterDecision => {
          if (requests[index]?.erased) {
            outcome.erased += 1;
            return 'discard';
          }
          outcome[selected[index] ? 'done' : 'kept'] += 1;
          return selected[index] ? action : 'keep';
        });
      });
      return outcome;
    });
  }
}

/** The audit record of an administrator's replay (an update: the message is handled again) or discard (a deletion). */
function auditRecordOf(action: 'replay' | 'discard', letter: DeadLetter, request: DeadLetterRequest | undefined, operator: string): AuditRecord {
  return {
    interaction: action === 'replay' ? 'update' : 'delete',
    agent: { kind: 'administrator', user: operator },
    request: {
      identifier: request?.identifier ?? '',
      ownerPartyId: request?.ownerPartyId ?? '',
      change: action === 'replay' ? 'dead-letter-replayed' : 'dead-letter-discarded',
    },
    resources: letter.messageId ? [{ type: 'Message', id: letter.messageId, messageType: typeOf(letter) }] : [],
    source: 'intake admin CLI',
  };
}

/** The routing key a dead letter was published with, or its envelope's `<type>.v<version>`, or `unreadable`. */
function typeOf(letter: DeadLetter): string {
  if (letter.type) return letter.type;
  const { type, version } = (typeof letter.body === 'object' && letter.body !== null ? letter.body : {}) as { type?: unknown; version?: unknown };
  return typeof type === 'string' && typeof version === 'number' ? `${type}.v${version}` : 'unreadable';
}
