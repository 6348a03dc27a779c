import { randomUUID } from 'node:crypto';
import { connect, type ChannelModel } from 'amqplib';
import { Pool } from 'pg';
import {
  AdmissionBundleSubmittedV1,
  RequestDispatchedV1,
  createEnvelope,
  deadLetterQueueName,
  declareTopology,
  type ClinicRecord,
  type MessageDefinition,
  type PayloadOf,
} from '@bedrequest/contracts';
import { admissionRequestSummary, fhirSystems, validateAdmissionRequestBundle } from '@bedrequest/fhir-model';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { assertTopology, workOf } from '@bedrequest/messaging';
import { deleteBrokerTopology, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { AUDIT_CLI, DEAD_LETTERS_CLI, REQUEST_CLI, openIntakeServices } from '../cli';
import type { IntakeCliBrokerConfig, IntakeCliConfig } from '../config';
import { openIntakeDatabase, type IntakeDatabase } from '../persistence/database';
import { prismaRunner } from '../persistence/sql-runner';
import { AdmissionRequestRepository } from '../requests/admission-request.repository';
import { intakeCommands } from '../requests/intake-commands';
import { IntakeService } from '../requests/intake.service';
import { testSealedFields } from '../testing/sealed-fields';

const env = testEnvironment();
const CLINIC = '510000001';
const REFERRER = { partyId: 'referrer-dead-letters', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };
const registry = new Map<string, ClinicRecord>([
  [CLINIC, { ik: CLINIC, name: CLINIC, departments: [{ code: '2300', specialty: 'orthopedics', display: 'Orthopädie' }] }],
]);

/** What the audit trail names with ADMIN_OPERATOR=ops-alice: the operating-system user beside it (cli.ts, operatorOf). */
const OPERATOR = expect.stringMatching(/^ops-alice \(os user [^)]+\)$/) as string;

interface AuditRow {
  request_identifier: string;
  owner_party_id: string;
  agent_user: string;
  action: string;
  change: string | null;
  message: string | null;
  description: string | null;
}

/**
 * `npm run admin -- dead-letters list|replay|discard` against the real RabbitMQ and PostgreSQL:
 * what it shows of each dead letter (never what it carries), what it moves where, and the audit
 * trail's entry of every replay and discard under the operator's name.
 */
describe('the dead-letters command line', () => {
  const schema = uniqueName('intake_dlq_cli');
  const namespace = uniqueName('intake_dlq_cli');
  const topology = declareTopology(namespace);
  let prisma: IntakeDatabase;
  let pool: Pool;
  let service: IntakeService;
  let broker: ChannelModel;

  beforeAll(async () => {
    prisma = await openIntakeDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    const lookup = async (iks: readonly string[]) => new Map(iks.flatMap((ik) => (registry.has(ik) ? [[ik, registry.get(ik)!] as const] : [])));
    service = new IntakeService(
      new AdmissionRequestRepository(prismaRunner(prisma), schema, await testSealedFields(prisma, schema)),
      { lookup },
      fhirSystems(),
    );
    broker = await connect(env.amqpUrl);
    await assertTopology(await broker.createChannel(), topology, 5);
  });

  afterAll(async () => {
    await broker?.close();
    await deleteBrokerTopology(env.amqpUrl, topology);
    await prisma?.$disconnect();
    await pool?.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool?.end();
  });

  const cliConfig = (): IntakeCliConfig => ({
    NODE_ENV: 'test',
    DATABASE_URL: env.databaseUrl,
    DATABASE_POOL_SIZE: 2,
    INTAKE_DB_SCHEMA: schema,
    DATA_KEK: undefined,
    DATA_KEK_ID: undefined,
    DATA_PREVIOUS_KEKS: [],
    ADMIN_OPERATOR: 'ops-alice',
  });
  const brokerConfig: IntakeCliBrokerConfig = { NODE_ENV: 'test', AMQP_URL: env.amqpUrl, AMQP_NAMESPACE: namespace };
  const cli = async (argv: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const group = argv[0] === 'audit' ? AUDIT_CLI : argv[0] === 'request' ? REQUEST_CLI : DEAD_LETTERS_CLI;
    const code = await group.run(argv, {
      open: () => openIntakeServices(cliConfig(), brokerConfig),
      out: (line) => out.push(line),
      err: (line) => err.push(line),
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  /** A request intake stored, with its bundle's message (which holds the patient's name). */
  const storedRequest = async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const bundle = admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC], patient: 'complete' }) as unknown as Record<string, unknown>;
    const validation = validateAdmissionRequestBundle(bundle, { profileBase: fhirSystems().profileBase });
    if (!validation.ok) throw new Error(JSON.stringify(validation.issues));
    const envelope = createEnvelope(
      AdmissionBundleSubmittedV1,
      { submitter: REFERRER, receivedAt: new Date().toISOString(), bundle, request: admissionRequestSummary(validation.bundle) },
      { correlationId: 'dead-letters' },
    );
    await service.handle([workOf(intakeCommands, { envelope, definition: AdmissionBundleSubmittedV1 })]);
    return { identifier, envelope };
  };

  /**
   * Publishes `content` onto `queue` and rejects it there, as a consumer that gives up does: it
   * lands in the queue's dead-letter queue. (A consumer: intake's queue, of one active consumer, has no basic.get.)
   */
  const deadLetter = async (queue: string, content: Buffer, properties: { messageId?: string; type?: string; replyTo?: string }) => {
    const channel = await broker.createConfirmChannel();
    channel.publish('', queue, content, { persistent: true, ...properties });
    await channel.waitForConfirms();
    await new Promise<void>((resolve, reject) => {
      channel
        .consume(queue, (message) => {
          if (!message) return;
          channel.nack(message, false, false);
          resolve();
        })
        .catch(reject);
    });
    await channel.close();
  };
  const deadLetterEnvelope = async <D extends MessageDefinition>(queue: string, definition: D, payload: PayloadOf<D>, replyTo?: string) => {
    const envelope = createEnvelope(definition, payload, { correlationId: 'dead-letters' });
    await deadLetter(queue, Buffer.from(JSON.stringify(envelope)), { messageId: envelope.id, type: definition.routingKey, ...(replyTo ? { replyTo } : {}) });
    return envelope;
  };

  /**
   * Takes the messages off `queue` (a consumer, as for deadLetter) up to a marker it publishes behind
   * them: a queue hands its messages to one consumer in order, so once the marker has come, every
   * message that was there has. Ids, reply-to, bodies and headers, `expected` of them.
   */
  const take = async (queue: string, expected: number) => {
    const marker = `end-of-queue-${randomUUID()}`;
    const publisher = await broker.createConfirmChannel();
    publisher.publish('', queue, Buffer.from('marker'), { messageId: marker });
    await publisher.waitForConfirms();
    await publisher.close();
    const channel = await broker.createChannel();
    const taken: { messageId: string; replyTo?: string; content: string; headers: Record<string, unknown> }[] = [];
    await channel.consume(
      queue,
      (message) => {
        if (!message) return;
        taken.push({
          messageId: String(message.properties.messageId),
          ...(message.properties.replyTo ? { replyTo: String(message.properties.replyTo) } : {}),
          content: message.content.toString(),
          headers: message.properties.headers ?? {},
        });
      },
      { noAck: true },
    );
    await waitFor(() => taken.some((message) => message.messageId === marker), { what: `the messages in ${queue}` });
    await channel.close();
    const messages = taken.filter((message) => message.messageId !== marker);
    expect(messages).toHaveLength(expected);
    return messages;
  };

  const auditRows = async (since: Date) =>
    (
      await pool.query<AuditRow>(
        `SELECT request_identifier, owner_party_id, agent_user, resource->>'action' AS action,
                (SELECT d->>'valueString' FROM jsonb_array_elements(resource->'entity'->0->'detail') d WHERE d->>'type' = 'change') AS change,
                (SELECT e->'what'->'identifier'->>'value' FROM jsonb_array_elements(resource->'entity') e WHERE e ? 'description') AS message,
                (SELECT e->>'description' FROM jsonb_array_elements(resource->'entity') e WHERE e ? 'description') AS description
           FROM "${schema}".audit_events WHERE recorded >= $1 AND agent_user LIKE 'ops-alice (os user %' ORDER BY recorded, day, seq`,
        [since],
      )
    ).rows;

  it('lists each queue’s dead letters: id, type, request and first death, never what they carry', async () => {
    const request = await storedRequest();
    await deadLetter(topology.queues.intake.name, Buffer.from(JSON.stringify(request.envelope)), {
      messageId: request.envelope.id,
      type: AdmissionBundleSubmittedV1.routingKey,
    });
    await deadLetter(topology.queues.intake.name, Buffer.from('not a message of ours'), { messageId: 'garbage-1' });

    const listed = await cli(['dead-letters', 'list']);
    expect(listed).toMatchObject({ code: 0, err: '' });
    const lines = listed.out.split('\n');
    expect(lines).toContain(`${deadLetterQueueName(topology.queues.intake.name)}: 2 messages`);
    expect(lines).toContain(`${deadLetterQueueName(topology.queues.routing.name)}: empty`);
    expect(lines).toContain(`${deadLetterQueueName(topology.queues.notifier.name)}: empty`);
    const bundleLine = lines.find((line) => line.includes(request.envelope.id));
    expect(bundleLine).toMatch(
      new RegExp(
        `^  ${request.envelope.id} admission\\.bundle\\.submitted\\.v1 request ${escape(request.identifier)} rejected in ${escape(topology.queues.intake.name)} at \\d{4}-`,
      ),
    );
    expect(lines.find((line) => line.includes('garbage-1'))).toMatch(/^ {2}garbage-1 unreadable rejected in /);
    expect(listed.out).not.toContain('Musterfrau');
    expect(listed.out).not.toContain('not a message of ours');
    // Listing leaves them where they were.
    expect((await cli(['dead-letters', 'list', '--queue', 'intake'])).out.split('\n')[0]).toBe(
      `${deadLetterQueueName(topology.queues.intake.name)}: 2 messages`,
    );

    // Nothing left for the next test.
    expect((await cli(['dead-letters', 'discard', '--queue', 'intake', '--all', '--confirm'])).code).toBe(0);
  });

  it('replays one message onto its own queue only, keeps the others, and records it under the operator', async () => {
    const started = new Date();
    const request = await storedRequest();
    const dispatched = (version: number) => ({
      requestIdentifier: request.identifier,
      referrerPartyId: REFERRER.partyId,
      version,
      change: 'created' as const,
      departmentCode: '2300',
      tasks: [{ taskId: randomUUID(), clinicIk: CLINIC, action: 'answer-requested' as const }],
    });
    const first = await deadLetterEnvelope(topology.queues.routing.name, RequestDispatchedV1, dispatched(1));
    const second = await deadLetterEnvelope(topology.queues.routing.name, RequestDispatchedV1, dispatched(2));

    const replayed = await cli(['dead-letters', 'replay', '--queue', 'routing', '--id', first.id]);
    expect(replayed).toMatchObject({ code: 0, err: '' });
    expect(replayed.out).toContain(`replayed 1 message from ${deadLetterQueueName(topology.queues.routing.name)} onto ${topology.queues.routing.name}; 1 kept`);
    const [back, ...more] = await take(topology.queues.routing.name, 1);
    expect(more).toEqual([]);
    expect(back).toMatchObject({ messageId: first.id, content: JSON.stringify(first) });
    // Nobody else hears it again: the notifier's queue has nothing.
    expect(await take(topology.queues.notifier.name, 0)).toEqual([]);
    expect((await take(deadLetterQueueName(topology.queues.routing.name), 1)).map((message) => message.messageId)).toEqual([second.id]);

    expect(await auditRows(started)).toEqual([
      {
        request_identifier: request.identifier,
        owner_party_id: REFERRER.partyId,
        agent_user: OPERATOR,
        action: 'U',
        change: 'dead-letter-replayed',
        message: `urn:uuid:${first.id}`,
        description: RequestDispatchedV1.routingKey,
      },
    ]);
    expect((await cli(['audit', 'verify'])).code).toBe(0);
  });

  it('replays a whole queue, without the reply-to of a request nobody waits for any more', async () => {
    const started = new Date();
    const requests = [await storedRequest(), await storedRequest()];
    for (const { envelope } of requests) {
      await deadLetter(topology.queues.intake.name, Buffer.from(JSON.stringify(envelope)), {
        messageId: envelope.id,
        type: AdmissionBundleSubmittedV1.routingKey,
        replyTo: 'amq.rabbitmq.reply-to.gone',
      });
    }
    const replayed = await cli(['dead-letters', 'replay', '--queue', 'intake', '--all']);
    expect(replayed).toMatchObject({ code: 0 });
    expect(replayed.out).toContain(`replayed 2 messages from ${deadLetterQueueName(topology.queues.intake.name)} onto ${topology.queues.intake.name}; 0 kept`);
    const back = await take(topology.queues.intake.name, 2);
    expect(back.map((message) => message.messageId).sort()).toEqual(requests.map(({ envelope }) => envelope.id).sort());
    expect(back.every((message) => message.replyTo === undefined && message.headers['first-death-reason'] === 'rejected')).toBe(true);
    expect(await take(deadLetterQueueName(topology.queues.intake.name), 0)).toEqual([]);
    expect((await auditRows(started)).map((row) => [row.request_identifier, row.action, row.change]).sort()).toEqual(
      requests.map(({ identifier }) => [identifier, 'U', 'dead-letter-replayed']).sort(),
    );
  });

  it('discards only with --confirm, and records the discard, also of a message that names no request', async () => {
    const started = new Date();
    await deadLetter(topology.queues.notifier.name, Buffer.from('{"half": '), { messageId: 'garbage-2' });
    const kept = await deadLetterEnvelope(topology.queues.notifier.name, RequestDispatchedV1, {
      requestIdentifier: `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`,
      referrerPartyId: REFERRER.partyId,
      version: 1,
      change: 'created',
      departmentCode: '2300',
      tasks: [],
    });

    const unconfirmed = await cli(['dead-letters', 'discard', '--queue', 'notifier', '--id', 'garbage-2']);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.err).toContain('--confirm');
    expect((await cli(['dead-letters', 'list', '--queue', 'notifier'])).out.split('\n')[0]).toBe(
      `${deadLetterQueueName(topology.queues.notifier.name)}: 2 messages`,
    );

    const discarded = await cli(['dead-letters', 'discard', '--queue', 'notifier', '--id', 'garbage-2', '--confirm']);
    expect(discarded).toMatchObject({ code: 0 });
    expect(discarded.out).toContain(`discarded 1 message from ${deadLetterQueueName(topology.queues.notifier.name)}; 1 kept`);
    expect((await take(deadLetterQueueName(topology.queues.notifier.name), 1)).map((message) => message.messageId)).toEqual([kept.id]);
    expect(await auditRows(started)).toEqual([
      { request_identifier: '', owner_party_id: '', agent_user: OPERATOR, action: 'D', change: null, message: 'garbage-2', description: 'unreadable' },
    ]);
    expect((await cli(['audit', 'verify'])).code).toBe(0);
  });

  it("removes an erased request's dead letters with `request erase`, and keeps another's", async () => {
    const [erased, other] = [await storedRequest(), await storedRequest()];
    for (const { envelope } of [erased, other]) {
      await deadLetter(topology.queues.intake.name, Buffer.from(JSON.stringify(envelope)), {
        messageId: envelope.id,
        type: AdmissionBundleSubmittedV1.routingKey,
      });
    }
    const erasure = await cli(['request', 'erase', '--identifier', erased.identifier]);
    expect(erasure).toMatchObject({ code: 0, err: '' });
    expect(erasure.out.split('\n').at(-1)).toBe('1 dead-lettered message of erased requests removed');
    expect((await take(deadLetterQueueName(topology.queues.intake.name), 1)).map((message) => message.messageId)).toEqual([other.envelope.id]);
  });

  it('refuses a command line that names no message, or both one and all, and fails for a message not there', async () => {
    expect((await cli(['dead-letters', 'replay', '--queue', 'intake'])).code).toBe(2);
    expect((await cli(['dead-letters', 'replay', '--queue', 'intake', '--id', 'x', '--all'])).code).toBe(2);
    expect((await cli(['dead-letters', 'replay', '--queue', 'elsewhere', '--all'])).code).toBe(2);
    const missing = await cli(['dead-letters', 'replay', '--queue', 'intake', '--id', 'no-such-message']);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain(`no message no-such-message in ${deadLetterQueueName(topology.queues.intake.name)}`);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
