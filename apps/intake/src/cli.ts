import { userInfo } from 'node:os';
import { CommandLine, UsageError, command, option, type CommandContext, type Session } from '@bedrequest/cli';
import { deadLetterQueueName } from '@bedrequest/contracts';
import { SqlKeyStore, dataKeyCommands, openDataKeyring, type ServiceDataKeys } from '@bedrequest/crypto';
import { describeDatabase, openPlainSqlSession } from '@bedrequest/persistence';
import { AUDIT_CLI, type AuditCliServices } from './audit/audit-cli';
import { AuditTrailRepository } from './audit/audit-trail.repository';
import { AuditAnchors } from './audit/audit-anchors';
import { AuditTrail } from './audit/audit-trail.service';
import { RequestExport } from './audit/request-export';
import {
  DEAD_LETTER_QUEUES,
  intakeDeadLetters,
  type DeadLetterListing,
  type DeadLetterOutcome,
  type IntakeDeadLetters,
} from './dead-letters/dead-letters.service';
import { RequestErasureRepository } from './erasure/request-erasure.repository';
import type { IntakeCliBrokerConfig, IntakeCliConfig } from './config';
import { openIntakeDatabase, type IntakeDatabase } from './persistence/database';
import { RECORD_CLI, type RecordCliServices } from './payer-record/record-cli';
import { RecordSigningKeys } from './payer-record/record-signing-keys';
import { sealedColumnsOf } from './persistence/sealed-columns';
import { openSealedFields, sqlClientOf } from './persistence/sealed-fields';
import { prismaRunner } from './persistence/sql-runner';

interface IntakeCliServices extends AuditCliServices {
  exports: RequestExport;
  erasure: RequestErasureRepository;
  /** The dead-letter queues, where the broker was configured (IntakeCliBrokerConfig). */
  deadLetters?: IntakeDeadLetters;
  /** Who the audit trail records for an export, erasure, replay or discard (operatorOf). */
  operator: string;
}

type Context = CommandContext<IntakeCliServices>;

const SUMMARY = 'Reads DATABASE_URL, INTAKE_DB_SCHEMA, DATA_KEK, DATA_KEK_ID and DATA_PREVIOUS_KEKS from the environment.';

/**
 * `npm run admin -- request export --identifier <uri>`: prints a request's latest bundle version
 * (FHIR JSON, for a data subject's access request or a DPO), recorded in the audit trail as the
 * administrator's read. `request erase --identifier <uri>`: erases its patient data as the
 * referrer's `DELETE` does (an erasure request that reached the operator another way), recorded as
 * the administrator's.
 */
export const REQUEST_CLI = new CommandLine<IntakeCliServices>({
  program: 'npm run admin --',
  group: 'request',
  summary:
    "Admission requests (intake). Reads DATABASE_URL, INTAKE_DB_SCHEMA, DATA_KEK, DATA_KEK_ID, DATA_PREVIOUS_KEKS, ADMIN_OPERATOR (who the audit trail names, beside the login), AMQP_URL and AMQP_NAMESPACE (intake's broker user: an erasure removes the dead letters of the request) from the environment.",
  commands: {
    export: command({
      summary: "prints the latest bundle version of the request (FHIR JSON) and records the export in the audit trail under the operator's login",
      options: { identifier: option.string('<ServiceRequest identifier URI>') },
      async run({ identifier }, { services, out }: Context) {
        const { exports, operator } = await services();
        const exported = await exports.latestBundle(identifier, operator);
        if (!exported) throw new Error(`there is no request with the identifier ${identifier}`);
        out(JSON.stringify(exported.bundle, null, 2));
      },
    }),
    erase: command({
      summary:
        "erases the request's patient data in intake (versions, documents, the clinics' notes) as the referrer's DELETE does, keeps its tombstone, tells routing and the notifier, removes its messages from the dead-letter queues, and records the erasure under the operator's login",
      options: { identifier: option.string('<ServiceRequest identifier URI>') },
      async run({ identifier }, { services, out }: Context) {
        const { erasure, deadLetters, operator } = await services();
        const result = await erasure.erase(
          { identifier },
          { agent: { kind: 'administrator', user: operator }, reason: 'requested', correlationId: `admin-erase-${Date.now()}` },
        );
        if (result.outcome === 'not-found') throw new Error(`there is no request with the identifier ${identifier}`);
        const { tombstone } = result;
        const when = tombstone.erasedAt.toISOString();
        out(
          result.outcome === 'erased'
            ? `erased: ${tombstone.versions} version(s), ${tombstone.documents} document(s) and the notes of ${tombstone.tasks.length} Task(s) at ${when}; routing and the notifier follow once intake's outbox relay runs (the stack must be running)`
            : `already erased at ${when} (${tombstone.reason}); nothing changed`,
        );
        // Committed above; the dead letters follow (a running intake removes them too, within the hour).
        if (deadLetters) out(`${count(await deadLetters.removeErased(), 'dead-lettered message')} of erased requests removed`);
      },
    }),
  },
});

const QUEUE = option.choice(DEAD_LETTER_QUEUES);
const MESSAGE_ID = option.string('<message id>').optional();

/**
 * `npm run admin -- dead-letters list|replay|discard` (docs/operations.md, "Dead-lettered
 * messages"): the dead-letter queues of intake, routing and the notifier, kept by intake
 * (IntakeDeadLetters). `list` shows each message's id, type, request and first death, never what it
 * carries; `replay` puts messages back onto their own queue, `discard` removes them (with
 * --confirm); each replayed or discarded message is recorded in the audit trail under the
 * operator's name before it moves. Every one of them also removes the messages of erased requests.
 */
export const DEAD_LETTERS_CLI = new CommandLine<IntakeCliServices>({
  program: 'npm run admin --',
  group: 'dead-letters',
  summary:
    "The dead-letter queues of intake, routing and the notifier (intake's broker user reads them all). Reads AMQP_URL, AMQP_NAMESPACE, DATABASE_URL, INTAKE_DB_SCHEMA, DATA_KEK, DATA_KEK_ID, DATA_PREVIOUS_KEKS and ADMIN_OPERATOR (who the audit trail names, beside the login) from the environment.",
  commands: {
    list: command({
      summary: "lists each dead-letter queue (or --queue's): per message its id, type, request and first death (why, where, when), never its content",
      options: { queue: QUEUE.optional() },
      async run({ queue }, { services, out }: Context) {
        const listings = await deadLettersOf(await services()).list(queue === undefined ? DEAD_LETTER_QUEUES : [queue]);
        for (const listing of listings) for (const line of linesOf(listing)) out(line);
      },
    }),
    replay: command({
      summary:
        "puts the message --id (or --all of the queue) back onto the queue it was dead-lettered from, only that one, and records each under the operator's login; fix the cause first",
      options: { queue: QUEUE, id: MESSAGE_ID, all: option.flag() },
      async run({ queue, id, all }, { services, out }: Context) {
        const selection = selectionOf(id, all);
        const { deadLetters, operator } = await servicesWithDeadLetters(services);
        const outcome = await deadLetters.replay(queue, selection, operator);
        out(outcomeLine('replayed', outcome, id, `from ${deadLetterQueueName(outcome.queue)} onto ${outcome.queue}`));
      },
    }),
    discard: command({
      summary: "removes the message --id (or --all of the queue) for good, and records each under the operator's login; needs --confirm",
      options: { queue: QUEUE, id: MESSAGE_ID, all: option.flag(), confirm: option.flag() },
      async run({ queue, id, all, confirm }, { services, out }: Context) {
        const selection = selectionOf(id, all);
        if (!confirm) throw new UsageError('discard removes messages for good, and what a referrer was told was accepted with them: add --confirm');
        const { deadLetters, operator } = await servicesWithDeadLetters(services);
        const outcome = await deadLetters.discard(queue, selection, operator);
        out(outcomeLine('discarded', outcome, id, `from ${deadLetterQueueName(outcome.queue)}`));
      },
    }),
  },
});

function deadLettersOf(services: IntakeCliServices): IntakeDeadLetters {
  if (!services.deadLetters) throw new Error('the broker is not configured (AMQP_URL, AMQP_NAMESPACE)');
  return services.deadLetters;
}

async function servicesWithDeadLetters(services: () => Promise<IntakeCliServices>): Promise<{ deadLetters: IntakeDeadLetters; operator: string }> {
  const opened = await services();
  return { deadLetters: deadLettersOf(opened), operator: opened.operator };
}

function selectionOf(id: string | undefined, all: boolean): { messageId: string } | 'all' {
  if (all === (id !== undefined)) throw new UsageError('name the message with --id <message id>, or give --all (one of them)');
  return id === undefined ? 'all' : { messageId: id };
}

/** `bedrequest.intake.dead-letter: 2 messages`, then a line per message. */
function linesOf(listing: DeadLetterListing): string[] {
  const { messages, erased } = listing;
  const name = deadLetterQueueName(listing.queue);
  return [
    `${name}: ${messages.length === 0 ? 'empty' : count(messages.length, 'message')}`,
    ...messages.map(({ messageId, type, request, firstDeath }) =>
      [
        ' ',
        messageId ?? '(no id)',
        type,
        ...(request ? ['request', request] : []),
        firstDeath.reason,
        ...(firstDeath.queue ? ['in', firstDeath.queue] : []),
        ...(firstDeath.at ? ['at', firstDeath.at.toISOString()] : []),
      ].join(' '),
    ),
    ...(erased > 0 ? [`  (${count(erased, 'message')} of erased requests removed)`] : []),
  ];
}

function outcomeLine(done: string, outcome: DeadLetterOutcome, id: string | undefined, where: string): string {
  const erased = outcome.erased > 0 ? `; ${count(outcome.erased, 'message')} of erased requests removed` : '';
  if (id !== undefined && outcome.done === 0) throw new Error(`no message ${id} in ${deadLetterQueueName(outcome.queue)}${erased}`);
  return `${done} ${count(outcome.done, 'message')} ${where}; ${outcome.kept} kept${erased}`;
}

function count(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

/**
 * `npm run admin -- intake ...` (docs/data-protection.md, "Key rotation"): intake's data keys and
 * fingerprint key, and the re-encryption of what older data keys sealed, in the intake schema with
 * the stack's key-encryption keys. The service keeps running meanwhile.
 */
export const INTAKE_KEYS_CLI = new CommandLine<ServiceDataKeys>({
  program: 'npm run admin --',
  group: 'intake',
  summary: `Intake's keys for data at rest. ${SUMMARY}`,
  commands: dataKeyCommands('intake'),
});

/** `audit verify`, `audit anchors export`: src/audit/audit-cli.ts. */
export { AUDIT_CLI };

/** The command lines of intake, by their group (the first argument). */
export const INTAKE_CLIS = { audit: AUDIT_CLI, request: REQUEST_CLI, 'dead-letters': DEAD_LETTERS_CLI, intake: INTAKE_KEYS_CLI, record: RECORD_CLI } as const;

/**
 * Intake's schema (migrated first, so that the CLI works before the stack's first start), and with
 * `broker` the dead-letter queues.
 */
export async function openIntakeServices(config: IntakeCliConfig, broker?: IntakeCliBrokerConfig): Promise<Session<IntakeCliServices>> {
  const prisma = await openDatabase(config);
  try {
    const { fields } = await openSealedFields(config, prisma);
    const trail = new AuditTrailRepository(prismaRunner(prisma), config.INTAKE_DB_SCHEMA);
    const services: IntakeCliServices = {
      // The chain's anchors are checked under the KEKs of the environment (audit-anchors.ts).
      audit: new AuditTrail(trail, undefined, new AuditAnchors(trail, fields.keyring.keks)),
      anchors: (since) => trail.anchors(since),
      exports: new RequestExport(prisma, config.INTAKE_DB_SCHEMA, fields),
      erasure: new RequestErasureRepository(prisma, config.INTAKE_DB_SCHEMA),
      ...(broker ? { deadLetters: intakeDeadLetters({ amqpUrl: broker.AMQP_URL, namespace: broker.AMQP_NAMESPACE }, prisma, config.INTAKE_DB_SCHEMA) } : {}),
      operator: operatorOf(config.ADMIN_OPERATOR, userInfo().username, process.env.SUDO_USER),
    };
    return { services, close: () => prisma.$disconnect() };
  } catch (error) {
    await prisma.$disconnect();
    throw error;
  }
}

/**
 * Who the audit trail names for an audited command: ADMIN_OPERATOR is a claim anyone can make, so the
 * operating-system user the command runs as stays beside it, and the user who ran sudo where there is
 * one (docs/operations.md, "Running the admin command line in the cluster"). `ops-alice (os user
 * node)`, `ops-alice (os user root, sudo by bob)`, `root (sudo by bob)`; the login alone without either.
 */
function operatorOf(adminOperator: string | undefined, login: string, sudoUser: string | undefined): string {
  const sudo = sudoUser?.trim() && sudoUser.trim() !== login ? `sudo by ${sudoUser.trim()}` : undefined;
  if (adminOperator === undefined) return sudo ? `${login} (${sudo})` : login;
  return `${adminOperator} (${[`os user ${login}`, sudo].filter(Boolean).join(', ')})`;
}

/** The record signing keys in intake's schema (migrated first), their private keys sealed under the KEKs of `config`. */
export async function openRecordServices(config: IntakeCliConfig): Promise<Session<RecordCliServices>> {
  const prisma = await openDatabase(config);
  try {
    const { fields } = await openSealedFields(config, prisma);
    // The age limit is the service's (RECORD_SIGNING_KEY_MAX_AGE_DAYS): the CLI rotates only when told.
    return {
      services: { keys: new RecordSigningKeys(prisma, config.INTAKE_DB_SCHEMA, fields, { maxAgeDays: Number.POSITIVE_INFINITY }) },
      close: () => prisma.$disconnect(),
    };
  } catch (error) {
    await prisma.$disconnect();
    throw error;
  }
}

/**
 * Intake's schema (migrated first) and its keyring, with the KEKs of `config`. The fingerprint key
 * is read only when a command needs it: `keys` still reports it when its KEK is not configured.
 */
export function openIntakeKeys(config: IntakeCliConfig): Promise<Session<ServiceDataKeys>> {
  return openPlainSqlSession(
    config.DATABASE_URL,
    () => openIntakeDatabase({ databaseUrl: config.DATABASE_URL, schema: config.INTAKE_DB_SCHEMA, poolSize: 2 }),
    // The key table and the re-encryption through plain pg (see openPlainSql: arrays of bytea values).
    async (prisma, sql) => {
      const { keyring } = await openDataKeyring(config, { sql: sqlClientOf(prisma), schema: config.INTAKE_DB_SCHEMA });
      return {
        keyring,
        store: new SqlKeyStore(sql, config.INTAKE_DB_SCHEMA),
        columns: sealedColumnsOf(sql, config.INTAKE_DB_SCHEMA),
        fingerprintKey: true,
      };
    },
  );
}

function openDatabase(config: IntakeCliConfig): Promise<IntakeDatabase> {
  return openIntakeDatabase({ databaseUrl: config.DATABASE_URL, schema: config.INTAKE_DB_SCHEMA, poolSize: 2 }).catch((error: unknown) => {
    throw new Error(`cannot open the database at ${describeDatabase(config.DATABASE_URL)}: ${error instanceof Error ? error.message : String(error)}`);
  });
}
