import { randomUUID } from 'node:crypto';
import { ClinicAnswerSubmittedV1, RequestDispatchedV1, createEnvelope, declareTopology, messageCatalog, type Envelope } from '@bedrequest/contracts';
import { Broker, declareBrokerTopology } from '@bedrequest/messaging';
import { deleteBrokerTopology, silentLogger, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { BedCapacityRepository } from '../beds/bed-capacity.repository';
import { RoutingConfig } from '../config';
import { openRoutingDatabase, type RoutingDatabase } from '../persistence/database';
import { ClinicRegistry } from '../registry/clinic-registry.service';
import { ClinicRepository } from '../registry/clinic.repository';
import { startRouting, type RunningRouting } from '../start';

const env = testEnvironment();
const DATE = '2026-12-01';

/**
 * The routing queue's consumer with the real RabbitMQ and PostgreSQL: two routing instances share
 * one queue and one schema, as two replicas would. Automatic answers are read from the intake
 * queue, where intake would receive them.
 */
describe('routing fans requests out to clinics', () => {
  const namespace = uniqueName('routing');
  const schema = uniqueName('routing');
  const topology = declareTopology(namespace);
  const instances: RunningRouting[] = [];
  let client: Broker;
  let prisma: RoutingDatabase;
  let registry: ClinicRegistry;
  let beds: BedCapacityRepository;
  const answers: Envelope[] = [];
  let clinicSeq = 0;

  beforeAll(async () => {
    const config = RoutingConfig.parse({
      NODE_ENV: 'test',
      ROUTING_PORT: '0',
      ROUTING_INTERNAL_PORT: '0',
      AMQP_NAMESPACE: namespace,
      ROUTING_DB_SCHEMA: schema,
      LOG_LEVEL: 'silent',
      DATABASE_URL: env.databaseUrl,
      AMQP_URL: env.amqpUrl,
      DATABASE_POOL_SIZE: '4',
    });
    // Provisioning's step, as the local administrator: services declare no topology.
    await declareBrokerTopology(env.amqpUrl, topology, 5);
    instances.push(await startRouting(config), await startRouting(config));
    prisma = await openRoutingDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    registry = new ClinicRegistry(new ClinicRepository(prisma));
    beds = new BedCapacityRepository(prisma, schema);
    client = new Broker({ url: env.amqpUrl, topology, catalog: messageCatalog, logger: silentLogger(), prefetch: 32, deliveryLimit: 5 });
    await client.start();
    await client.consume(topology.queues.intake.name, async (messages) => {
      for (const message of messages) if (message.definition.routingKey === ClinicAnswerSubmittedV1.routingKey) answers.push(message.envelope);
      return messages.map(() => 'ack' as const);
    });
  });

  afterAll(async () => {
    await client.stop();
    for (const instance of instances) await instance.stop();
    await prisma.$disconnect();
    await deleteBrokerTopology(env.amqpUrl, topology);
  });

  /** A clinic of its own for each test, so that tests do not share bed counts. */
  const newClinic = async (options: { departments?: string[]; automaticAnswers?: boolean; freeBeds?: number } = {}) => {
    const ik = `5900000${String(++clinicSeq).padStart(2, '0')}`;
    await registry.register({ ik, name: `Testklinik ${ik}`, departments: options.departments ?? ['2300'] });
    if (options.automaticAnswers) await registry.setAutomaticAnswers(ik, true);
    if (options.freeBeds !== undefined) await beds.publish({ clinicIk: ik, departmentCode: '2300', admissionDate: DATE }, options.freeBeds);
    return ik;
  };

  const dispatch = (overrides: Partial<RequestDispatchedV1> & Pick<RequestDispatchedV1, 'tasks'>): RequestDispatchedV1 => ({
    requestIdentifier: `https://referrer.example/fhir/ServiceRequest/${randomUUID()}`,
    referrerPartyId: 'referrer-1',
    version: 1,
    change: 'created',
    departmentCode: '2300',
    specialty: 'orthopedics',
    occurrenceDate: DATE,
    ...overrides,
  });
  const publish = (payload: RequestDispatchedV1) => client.publish(RequestDispatchedV1, payload, { correlationId: 'routing-test' });
  const answersFor = (taskId: string) => answers.map((envelope) => envelope.payload as ClinicAnswerSubmittedV1).filter((answer) => answer.taskId === taskId);
  const answerFor = (taskId: string) => waitFor(() => answersFor(taskId)[0], { what: `the automatic answer to Task ${taskId}` });
  const bedCount = async (ik: string) => (await beds.list(ik))[0];
  const outcomesOf = async (taskId: string) =>
    (await prisma.clinicNotification.findMany({ where: { taskId }, orderBy: { id: 'asc' } })).map((entry) => entry.outcome);
  /** Acknowledged routing-queue messages over both instances, from their /metrics. */
  const acked = async () => {
    let total = 0;
    for (const instance of instances) {
      const text = await (await fetch(`${instance.internalUrl}/metrics`)).text();
      const line = text
        .split('\n')
        .find(
          (candidate) =>
            candidate.startsWith('messages_consumed_total{') &&
            candidate.includes(`queue="${topology.queues.routing.name}"`) &&
            candidate.includes('outcome="ack"'),
        );
      total += line ? Number(line.split(' ').at(-1)) : 0;
    }
    return total;
  };

  it("records intake's decline of a clinic that does not offer the department, and answers nothing itself", async () => {
    const ik = await newClinic({ departments: ['0300'], automaticAnswers: true });
    const taskId = randomUUID();

    await publish(dispatch({ tasks: [{ taskId, clinicIk: ik, action: 'answer-requested', declined: 'department-not-offered' }] }));

    expect(await waitFor(async () => (await outcomesOf(taskId)).length > 0 && outcomesOf(taskId))).toEqual(['declined-department-not-offered']);
    const [entry] = await prisma.clinicNotification.findMany({ where: { taskId } });
    expect(entry).toMatchObject({ clinicIk: ik, action: 'answer-requested', change: 'created', departmentCode: '2300', answer: 'declined' });
    expect(answersFor(taskId)).toEqual([]);
  });

  it('only records the notification for a clinic that answers itself', async () => {
    const ik = await newClinic({ freeBeds: 3 });
    const taskId = randomUUID();

    await publish(dispatch({ tasks: [{ taskId, clinicIk: ik, action: 'answer-requested' }] }));

    expect(await waitFor(async () => (await outcomesOf(taskId)).length > 0 && outcomesOf(taskId))).toEqual(['forwarded']);
    expect(answersFor(taskId)).toEqual([]);
    expect(await bedCount(ik)).toMatchObject({ held: 0 });
  });

  it('processes a redelivered dispatch once: one hold, one answer, one log entry', async () => {
    const ik = await newClinic({ automaticAnswers: true, freeBeds: 5 });
    const taskId = randomUUID();
    const envelope = createEnvelope(RequestDispatchedV1, dispatch({ tasks: [{ taskId, clinicIk: ik, action: 'answer-requested' }] }), {
      correlationId: 'redelivery',
    });
    const before = await acked();

    await client.publishEnvelope(RequestDispatchedV1.routingKey, envelope);
    await client.publishEnvelope(RequestDispatchedV1.routingKey, envelope);

    await waitFor(async () => (await acked()) >= before + 2, { what: 'both deliveries acknowledged' });
    expect(await answerFor(taskId)).toMatchObject({
      businessStatus: 'accepted',
      note: `Testklinik ${ik}: Zusage für Orthopädie (2300) zum 01.12.2026 – automatisch aus den veröffentlichten Bettenzahlen.`,
    });
    // A later answer, to a dispatch sent after both were handled: the outbox relay publishes in
    // commit order onto one queue, so once it is here a wrong second answer would be here too.
    const [laterTaskId, laterClinic] = [randomUUID(), await newClinic({ automaticAnswers: true, freeBeds: 1 })];
    await publish(dispatch({ tasks: [{ taskId: laterTaskId, clinicIk: laterClinic, action: 'answer-requested' }] }));
    await answerFor(laterTaskId);
    expect(answersFor(taskId)).toHaveLength(1);
    expect(await bedCount(ik)).toMatchObject({ freeBeds: 5, held: 1, reserved: 0 });
    expect(await outcomesOf(taskId)).toEqual(['accepted-bed-held']);
  });

  it('gives the last free bed to exactly one of ten concurrent requests across two instances', async () => {
    const ik = await newClinic({ automaticAnswers: true, freeBeds: 1 });
    const taskIds = Array.from({ length: 10 }, () => randomUUID());

    await Promise.all(taskIds.map((taskId) => publish(dispatch({ tasks: [{ taskId, clinicIk: ik, action: 'answer-requested' }] }))));

    const statuses = await Promise.all(taskIds.map(async (taskId) => (await answerFor(taskId)).businessStatus));
    expect(statuses.filter((status) => status === 'accepted')).toHaveLength(1);
    expect(statuses.filter((status) => status === 'declined')).toHaveLength(9);
    expect(await bedCount(ik)).toMatchObject({ freeBeds: 1, held: 1, reserved: 0 });
    expect(await prisma.bedHold.count({ where: { clinicIk: ik } })).toBe(1);
  });

  it('holds the bed on acceptance, keeps it for supplemented data, reserves it on selection and releases it on revocation', async () => {
    const ik = await newClinic({ automaticAnswers: true, freeBeds: 1 });
    const taskId = randomUUID();
    const base = dispatch({ tasks: [] });
    const step = async (version: number, change: RequestDispatchedV1['change'], action: RequestDispatchedV1['tasks'][number]['action']) => {
      await publish({ ...base, version, change, tasks: [{ taskId, clinicIk: ik, action }] });
      await waitFor(async () => (await outcomesOf(taskId)).length >= version, { what: `version ${version} applied` });
    };

    await step(1, 'created', 'answer-requested');
    expect(await bedCount(ik)).toMatchObject({ held: 1, reserved: 0 });

    // With one bed, only keeping the hold can answer "accepted" again.
    await step(2, 'supplemented', 'answer-requested');
    await waitFor(() => answersFor(taskId).length === 2);
    expect(answersFor(taskId).map((answer) => [answer.businessStatus, answer.source === 'automatic' && answer.answersVersion])).toEqual([
      ['accepted', 1],
      ['accepted', 2],
    ]);
    expect(await bedCount(ik)).toMatchObject({ held: 1, reserved: 0 });

    await step(3, 'selected', 'selected');
    expect(await bedCount(ik)).toMatchObject({ held: 0, reserved: 1 });

    await step(4, 'revoked', 'cancelled');
    expect(await bedCount(ik)).toMatchObject({ held: 0, reserved: 0 });
    expect(await outcomesOf(taskId)).toEqual(['accepted-bed-held', 'accepted-bed-kept', 'selected-bed-reserved', 'cancelled-bed-released']);
    expect(answersFor(taskId)).toHaveLength(2);
  });

  it('releases the bed of a clinic whose Task is cancelled because another clinic was selected', async () => {
    const ik = await newClinic({ automaticAnswers: true, freeBeds: 1 });
    const taskId = randomUUID();
    const base = dispatch({ tasks: [] });

    await publish({ ...base, tasks: [{ taskId, clinicIk: ik, action: 'answer-requested' }] });
    await answerFor(taskId);
    await publish({ ...base, version: 2, change: 'selected', tasks: [{ taskId, clinicIk: ik, action: 'cancelled' }] });

    await waitFor(async () => (await bedCount(ik))?.held === 0, { what: 'the bed released' });
    expect(await outcomesOf(taskId)).toEqual(['accepted-bed-held', 'cancelled-bed-released']);
  });

  it('ignores a dispatch older than one already applied to the Task', async () => {
    const ik = await newClinic({ automaticAnswers: true, freeBeds: 1 });
    const taskId = randomUUID();
    const base = dispatch({ tasks: [] });

    await publish({ ...base, version: 2, change: 'revoked', tasks: [{ taskId, clinicIk: ik, action: 'cancelled' }] });
    await waitFor(async () => (await outcomesOf(taskId)).length === 1);
    await publish({ ...base, version: 1, change: 'created', tasks: [{ taskId, clinicIk: ik, action: 'answer-requested' }] });

    expect(await waitFor(async () => (await outcomesOf(taskId)).length === 2 && outcomesOf(taskId))).toEqual(['cancelled', 'ignored-outdated']);
    expect(await bedCount(ik)).toMatchObject({ held: 0 });
    expect(answersFor(taskId)).toEqual([]);
  });

  it('leaves the answer to the clinic when it published no bed count for the date, or the request names no date', async () => {
    const ik = await newClinic({ automaticAnswers: true });
    const [withDate, withoutDate] = [randomUUID(), randomUUID()];

    await publish(dispatch({ tasks: [{ taskId: withDate, clinicIk: ik, action: 'answer-requested' }] }));
    await publish(dispatch({ occurrenceDate: undefined, tasks: [{ taskId: withoutDate, clinicIk: ik, action: 'answer-requested' }] }));

    expect(await waitFor(async () => (await outcomesOf(withDate))[0])).toBe('forwarded-no-bed-count');
    expect(await waitFor(async () => (await outcomesOf(withoutDate))[0])).toBe('forwarded-no-date');
    expect([...answersFor(withDate), ...answersFor(withoutDate)]).toEqual([]);
  });

  it('declines with a note when no bed is free on the requested date', async () => {
    const ik = await newClinic({ automaticAnswers: true, freeBeds: 0 });
    const taskId = randomUUID();

    await publish(dispatch({ tasks: [{ taskId, clinicIk: ik, action: 'answer-requested' }] }));

    expect(await answerFor(taskId)).toMatchObject({
      businessStatus: 'declined',
      note: `Testklinik ${ik}: Absage für Orthopädie (2300) zum 01.12.2026 – automatisch aus den veröffentlichten Bettenzahlen, kein Bett frei.`,
    });
  });
});
