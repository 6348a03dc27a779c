import { randomUUID } from 'node:crypto';
import { connect, type ChannelModel } from 'amqplib';
import {
  AdmissionBundleSubmittedV1,
  ClinicAnswerSubmittedV1,
  DocumentBundleSubmittedV1,
  deadLetterQueueName,
  declareTopology,
  messageCatalog,
  type IntakeVerdictV1,
  type MessageDefinition,
  type PayloadOf,
} from '@bedrequest/contracts';
import { admissionRequestSummary, DEFAULT_PROFILE_BASE, validateAdmissionRequestBundle } from '@bedrequest/fhir-model';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { Broker, declareBrokerTopology } from '@bedrequest/messaging';
import { deleteBrokerTopology, serveClinicRegistry, silentLogger, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { TestAuthority } from '@bedrequest/tokens/testing';
import { IntakeConfig } from '../config';
import { startIntake, type RunningIntake } from '../start';

const env = testEnvironment();
const CLINIC = '510000001';
const referrer = { partyId: 'referrer-dead-letters', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };

/** A message in a dead-letter queue, as this test tells them apart: its id and the request it is about. */
interface Held {
  messageId: string;
  request: string;
}

/**
 * Dead-lettered messages hold whole bundles, notes and Tasks: an erasure removes every message of
 * the request from the dead-letter queue of every service (intake's own, routing's and the
 * notifier's), and leaves those of other requests. The real intake, RabbitMQ and PostgreSQL; the
 * referrer asks for the erasure as through the gateway.
 */
describe("erasure of a request's dead-lettered messages", () => {
  const namespace = uniqueName('intake_dlq');
  const topology = declareTopology(namespace);
  const queues = Object.values(topology.queues).map((queue) => queue.name);
  let intake: RunningIntake;
  let client: Broker;
  let inspector: ChannelModel;
  let registry: Awaited<ReturnType<typeof serveClinicRegistry>>;
  let authority: TestAuthority;

  beforeAll(async () => {
    authority = await TestAuthority.start();
    registry = await serveClinicRegistry([{ ik: CLINIC, departments: ['2300'] }]);
    // Provisioning's step, as the local administrator: services declare no topology.
    await declareBrokerTopology(env.amqpUrl, topology, 5);
    intake = await startIntake(
      IntakeConfig.parse({
        NODE_ENV: 'test',
        INTAKE_PORT: '0',
        INTAKE_INTERNAL_PORT: '0',
        AMQP_NAMESPACE: namespace,
        INTAKE_DB_SCHEMA: uniqueName('intake_dlq'),
        LOG_LEVEL: 'silent',
        DATABASE_URL: env.databaseUrl,
        AMQP_URL: env.amqpUrl,
        ROUTING_URL: registry.url,
        OUTBOX_POLL_INTERVAL_MS: '100',
        ...authority.env,
      }),
    );
    client = new Broker({ url: env.amqpUrl, topology, catalog: messageCatalog, logger: silentLogger(), prefetch: 8, deliveryLimit: 5 });
    await client.start();
    inspector = await connect(env.amqpUrl);
  });

  afterAll(async () => {
    await client?.stop();
    await intake?.stop();
    await inspector?.close();
    await registry?.stop();
    await authority?.stop();
    await deleteBrokerTopology(env.amqpUrl, topology);
  });

  const send = async <D extends MessageDefinition>(definition: D, payload: PayloadOf<D>): Promise<IntakeVerdictV1> => {
    const { reply } = await client.publishAndAwaitReply(definition, payload, { correlationId: 'dead-letters' }, 10_000);
    return reply!.payload as IntakeVerdictV1;
  };

  /** A request for CLINIC, answered by it: intake sends request.dispatched and admission.response (routing's and the notifier's). */
  const answeredRequest = async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const bundle = admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC] });
    const validation = validateAdmissionRequestBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE });
    if (!validation.ok) throw new Error(JSON.stringify(validation.issues));
    const submitted = await send(AdmissionBundleSubmittedV1, {
      submitter: referrer,
      receivedAt: new Date().toISOString(),
      bundle: bundle as unknown as Record<string, unknown>,
      request: admissionRequestSummary(validation.bundle),
    });
    expect(submitted).toMatchObject({ outcome: 'accepted' });
    const tasks = await fetch(`${intake.url}/internal/tasks?based-on=${encodeURIComponent(identifier)}`, { headers: await asReferrer() });
    const taskId = ((await tasks.json()) as { entry: { resource: { id: string } }[] }).entry[0]!.resource.id;
    const answered = await send(ClinicAnswerSubmittedV1, {
      taskId,
      clinicIk: CLINIC,
      businessStatus: 'accepted',
      source: 'clinic',
      user: 'clinic-user',
      note: 'Aufnahme am Montag',
    });
    expect(answered).toMatchObject({ outcome: 'accepted' });
    return { identifier, taskId };
  };
  const asReferrer = async () => ({ authorization: `Bearer ${await authority.referrer(referrer.partyId)}` });

  /** Publishes a message of `routingKey` that intake cannot read (its payload fails the schema): intake dead-letters it at once. */
  const unreadableForIntake = async (routingKey: string, payload: Record<string, unknown>) => {
    const channel = await inspector.createConfirmChannel();
    const id = randomUUID();
    const [type, version] = [routingKey.slice(0, routingKey.lastIndexOf('.v')), Number(routingKey.slice(routingKey.lastIndexOf('.v') + 2))];
    const envelope = { id, type, version, correlationId: 'dead-letters', occurredAt: new Date().toISOString(), payload };
    channel.publish(topology.eventsExchange, routingKey, Buffer.from(JSON.stringify(envelope)), { persistent: true, messageId: id, type: routingKey });
    await channel.waitForConfirms();
    await channel.close();
    return id;
  };

  /** What a consumer that gives up does: every message now in `queue` rejected without requeue, to its dead-letter queue. */
  const deadLetterAll = async (queue: string) => {
    const channel = await inspector.createChannel();
    for (let message = await channel.get(queue, { noAck: false }); message; message = await channel.get(queue, { noAck: false })) {
      channel.nack(message, false, false);
    }
    await channel.close();
  };

  const depth = async (queue: string) => {
    const channel = await inspector.createChannel();
    try {
      return (await channel.checkQueue(queue)).messageCount;
    } finally {
      await channel.close();
    }
  };

  /** The messages in a dead-letter queue, left there (taken unacked, returned when the channel closes). */
  const peek = async (queue: string, requestOfTask: ReadonlyMap<string, string>): Promise<Held[]> => {
    const channel = await inspector.createChannel();
    const held: Held[] = [];
    try {
      for (let message = await channel.get(deadLetterQueueName(queue), { noAck: false }); message;) {
        const { id, payload } = JSON.parse(message.content.toString()) as { id: string; payload: Record<string, unknown> };
        const request =
          (payload['requestIdentifier'] as string | undefined) ??
          (payload['request'] as { identifier?: string } | undefined)?.identifier ??
          requestOfTask.get(payload['taskId'] as string) ??
          'unknown';
        held.push({ messageId: id, request });
        message = await channel.get(deadLetterQueueName(queue), { noAck: false });
      }
    } finally {
      await channel.close();
    }
    return held;
  };

  it("removes the request's messages from every dead-letter queue and keeps another request's", async () => {
    const erased = await answeredRequest();
    const other = await answeredRequest();
    const requestOfTask = new Map([
      [erased.taskId, erased.identifier],
      [other.taskId, other.identifier],
    ]);
    // Intake's relay has published what routing and the notifier get of both requests: dispatched
    // and answered (routing), answered (the notifier). Their consumers give it all up.
    await waitFor(async () => (await depth(topology.queues.routing.name)) === 4 && (await depth(topology.queues.notifier.name)) === 2, {
      what: "both requests' messages for routing and the notifier",
    });
    await deadLetterAll(topology.queues.routing.name);
    await deadLetterAll(topology.queues.notifier.name);
    // Intake's own: a document bundle of each request and an answer naming the erased one's Task only, which it cannot read.
    const unreadable = { submitter: referrer, receivedAt: 'yesterday', bundle: { resourceType: 'Bundle' } };
    await unreadableForIntake(DocumentBundleSubmittedV1.routingKey, { ...unreadable, requestIdentifier: erased.identifier });
    await unreadableForIntake(DocumentBundleSubmittedV1.routingKey, { ...unreadable, requestIdentifier: other.identifier });
    await unreadableForIntake(ClinicAnswerSubmittedV1.routingKey, { taskId: erased.taskId, clinicIk: CLINIC, businessStatus: 'maybe', note: 'Befund folgt' });
    await waitFor(async () => (await depth(deadLetterQueueName(topology.queues.intake.name))) === 3, { what: "intake's dead letters" });

    const before = Object.fromEntries(await Promise.all(queues.map(async (queue) => [queue, await peek(queue, requestOfTask)] as const)));
    expect(Object.fromEntries(queues.map((queue) => [queue, before[queue]!.map((held) => held.request).sort()]))).toEqual({
      [topology.queues.intake.name]: [erased.identifier, erased.identifier, other.identifier].sort(),
      [topology.queues.routing.name]: [erased.identifier, erased.identifier, other.identifier, other.identifier].sort(),
      [topology.queues.notifier.name]: [erased.identifier, other.identifier].sort(),
    });

    const erasure = await fetch(`${intake.url}/internal/requests?identifier=${encodeURIComponent(erased.identifier)}`, {
      method: 'DELETE',
      headers: await asReferrer(),
    });
    expect(erasure.status).toBe(202);

    const othersOf = (queue: string) => before[queue]!.filter((held) => held.request === other.identifier);
    await waitFor(
      async () => (await Promise.all(queues.map(async (queue) => (await depth(deadLetterQueueName(queue))) === othersOf(queue).length))).every(Boolean),
      {
        timeoutMs: 15_000,
        what: 'the dead-letter queues without the erased request',
      },
    );
    for (const queue of queues) {
      const left = await peek(queue, requestOfTask);
      expect({ queue, left: left.map((held) => held.messageId).sort() }).toEqual({
        queue,
        left: othersOf(queue)
          .map((held) => held.messageId)
          .sort(),
      });
    }
  });
});
