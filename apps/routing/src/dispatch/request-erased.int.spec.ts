import { randomUUID } from 'node:crypto';
import { Pool } from 'pg';
import { RequestDispatchedV1, RequestErasedV1, createEnvelope, declareTopology, messageCatalog } from '@bedrequest/contracts';
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
 * Routing follows intake's erasures (request.erased.v1, docs/data-protection.md) with the real
 * RabbitMQ and PostgreSQL: the messages go through the routing queue as intake's outbox sends them.
 */
describe('routing erases its copy of an erased request', () => {
  const namespace = uniqueName('routing_erasure');
  const schema = uniqueName('routing_erasure');
  const topology = declareTopology(namespace);
  let routing: RunningRouting;
  let client: Broker;
  let prisma: RoutingDatabase;
  let pool: Pool;
  let registry: ClinicRegistry;
  let beds: BedCapacityRepository;
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
      DATABASE_POOL_SIZE: '2',
    });
    // Provisioning's step, as the local administrator: services declare no topology.
    await declareBrokerTopology(env.amqpUrl, topology, 5);
    routing = await startRouting(config);
    prisma = await openRoutingDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    registry = new ClinicRegistry(new ClinicRepository(prisma));
    beds = new BedCapacityRepository(prisma, schema);
    client = new Broker({ url: env.amqpUrl, topology, catalog: messageCatalog, logger: silentLogger(), prefetch: 32, deliveryLimit: 5 });
    await client.start();
  });

  afterAll(async () => {
    await client.stop();
    await routing.stop();
    await prisma.$disconnect();
    await deleteBrokerTopology(env.amqpUrl, topology);
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  const newClinic = async (freeBeds: number) => {
    const ik = `5920000${String(++clinicSeq).padStart(2, '0')}`;
    await registry.register({ ik, name: `Testklinik ${ik}`, departments: ['2300'] });
    await registry.setAutomaticAnswers(ik, true);
    await beds.publish({ clinicIk: ik, departmentCode: '2300', admissionDate: DATE }, freeBeds);
    return ik;
  };
  const newIdentifier = () => `https://referrer.example/fhir/ServiceRequest/${randomUUID()}`;
  const dispatched = (
    requestIdentifier: string,
    version: number,
    change: RequestDispatchedV1['change'],
    tasks: RequestDispatchedV1['tasks'],
  ): RequestDispatchedV1 => ({
    requestIdentifier,
    referrerPartyId: 'referrer-1',
    version,
    change,
    departmentCode: '2300',
    specialty: 'orthopedics',
    occurrenceDate: DATE,
    tasks,
  });
  const erased = (requestIdentifier: string, tasks: RequestErasedV1['tasks']): RequestErasedV1 => ({
    requestIdentifier,
    referrerPartyId: 'referrer-1',
    reason: 'requested',
    erasedAt: new Date().toISOString(),
    tasks,
  });
  const bedCount = async (ik: string) => (await beds.list(ik))[0];
  const notificationsOf = (requestIdentifier: string) =>
    prisma.clinicNotification.findMany({
      where: { requestIdentifier },
      orderBy: { id: 'asc' },
      select: { taskId: true, outcome: true, answer: true, departmentCode: true, admissionDate: true, note: true },
    });
  /** Everything routing keeps of the requests' Tasks, to prove that a message changed nothing. */
  const snapshot = async (iks: readonly string[]) => ({
    counts: await Promise.all(iks.map(bedCount)),
    holds: await prisma.bedHold.findMany({ where: { clinicIk: { in: [...iks] } }, orderBy: { taskId: 'asc' } }),
    routed: await prisma.routedTask.findMany({ where: { clinicIk: { in: [...iks] } }, orderBy: { taskId: 'asc' } }),
    notifications: await prisma.clinicNotification.findMany({ where: { clinicIk: { in: [...iks] } }, orderBy: { id: 'asc' } }),
    erasures: await prisma.requestErasure.findMany({ orderBy: { requestIdentifier: 'asc' } }),
  });
  /** Messages routing acknowledged, of every type, from its /metrics. */
  const acked = async () => {
    const text = await (await fetch(`${routing.internalUrl}/metrics`)).text();
    const lines = text
      .split('\n')
      .filter(
        (line) => line.startsWith('messages_consumed_total{') && line.includes(`queue="${topology.queues.routing.name}"`) && line.includes('outcome="ack"'),
      );
    return lines.reduce((total, line) => total + Number(line.split(' ').at(-1)), 0);
  };
  const publishAndAwaitAck = async (routingKey: string, envelope: ReturnType<typeof createEnvelope>) => {
    const before = await acked();
    await client.publishEnvelope(routingKey, envelope);
    await waitFor(async () => (await acked()) > before, { what: `${envelope.type} acknowledged` });
  };

  it('gives back the held beds, keeps the reserved one counted, drops the holds and the need from the log, once, and ignores later dispatches', async () => {
    const [selected, other] = [await newClinic(2), await newClinic(1)];
    const identifier = newIdentifier();
    const unrelated = newIdentifier();
    const [selectedTask, otherTask, unrelatedTask] = [randomUUID(), randomUUID(), randomUUID()];
    const tasks = [
      { taskId: selectedTask, clinicIk: selected, action: 'answer-requested' as const },
      { taskId: otherTask, clinicIk: other, action: 'answer-requested' as const },
    ];
    const send = (payload: RequestDispatchedV1) =>
      publishAndAwaitAck(RequestDispatchedV1.routingKey, createEnvelope(RequestDispatchedV1, payload, { correlationId: 'erasure-test' }));
    // Both clinics hold a bed for the request; the referrer selects one, whose bed becomes reserved
    // while the other's stays held. Another request holds the selected clinic's second bed.
    await send(dispatched(identifier, 1, 'created', tasks));
    await send(dispatched(identifier, 2, 'selected', [{ taskId: selectedTask, clinicIk: selected, action: 'selected' }]));
    await send(dispatched(unrelated, 1, 'created', [{ taskId: unrelatedTask, clinicIk: selected, action: 'answer-requested' }]));
    expect(await bedCount(selected)).toMatchObject({ freeBeds: 2, held: 1, reserved: 1 });
    expect(await bedCount(other)).toMatchObject({ freeBeds: 1, held: 1, reserved: 0 });
    expect((await notificationsOf(identifier)).map((entry) => entry.departmentCode)).toEqual(['2300', '2300', '2300']);

    const erasure = createEnvelope(
      RequestErasedV1,
      erased(
        identifier,
        tasks.map(({ taskId, clinicIk }) => ({ taskId, clinicIk })),
      ),
      { correlationId: 'erasure-test' },
    );
    await publishAndAwaitAck(RequestErasedV1.routingKey, erasure);

    expect(await bedCount(other)).toMatchObject({ freeBeds: 1, held: 0, reserved: 0 });
    expect(await bedCount(selected)).toMatchObject({ freeBeds: 2, held: 1, reserved: 1 });
    expect((await prisma.bedHold.findMany({ where: { clinicIk: { in: [selected, other] } } })).map((hold) => hold.taskId)).toEqual([unrelatedTask]);
    expect(await notificationsOf(identifier)).toEqual([
      { taskId: selectedTask, outcome: 'accepted-bed-held', answer: 'accepted', departmentCode: null, admissionDate: null, note: null },
      { taskId: otherTask, outcome: 'accepted-bed-held', answer: 'accepted', departmentCode: null, admissionDate: null, note: null },
      { taskId: selectedTask, outcome: 'selected-bed-reserved', answer: null, departmentCode: null, admissionDate: null, note: null },
    ]);
    expect(await notificationsOf(unrelated)).toEqual([expect.objectContaining({ departmentCode: '2300', admissionDate: new Date(DATE) })]);
    // The tombstone: which Tasks went to which clinic, at which version.
    expect(
      (await prisma.routedTask.findMany({ where: { requestIdentifier: identifier }, orderBy: { version: 'asc' } })).map((task) => [
        task.clinicIk,
        task.version,
      ]),
    ).toEqual([
      [other, 1],
      [selected, 2],
    ]);
    expect(await prisma.requestErasure.findUnique({ where: { requestIdentifier: identifier } })).toEqual({
      requestIdentifier: identifier,
      erasedAt: new Date(erasure.payload.erasedAt as string),
    });

    const erasedState = await snapshot([selected, other]);
    await publishAndAwaitAck(RequestErasedV1.routingKey, erasure);
    expect(await snapshot([selected, other])).toEqual(erasedState);

    // A dispatch sent before the erasure and delivered after it: its version is newer than any
    // applied, yet it books no bed and logs nothing.
    await send(dispatched(identifier, 3, 'selection-withdrawn', tasks));
    expect(await snapshot([selected, other])).toEqual(erasedState);
  });

  it('records the erasure of a request it never routed, and ignores the request’s dispatch arriving after it', async () => {
    const ik = await newClinic(1);
    const identifier = newIdentifier();
    const taskId = randomUUID();

    await publishAndAwaitAck(
      RequestErasedV1.routingKey,
      createEnvelope(RequestErasedV1, erased(identifier, [{ taskId, clinicIk: ik }]), { correlationId: 'erasure-test' }),
    );
    expect(await prisma.requestErasure.count({ where: { requestIdentifier: identifier } })).toBe(1);
    await publishAndAwaitAck(
      RequestDispatchedV1.routingKey,
      createEnvelope(RequestDispatchedV1, dispatched(identifier, 1, 'created', [{ taskId, clinicIk: ik, action: 'answer-requested' }]), {
        correlationId: 'erasure-test',
      }),
    );

    expect(await bedCount(ik)).toMatchObject({ held: 0, reserved: 0 });
    expect(await prisma.bedHold.count({ where: { requestIdentifier: identifier } })).toBe(0);
    expect(await prisma.routedTask.count({ where: { requestIdentifier: identifier } })).toBe(0);
    expect(await notificationsOf(identifier)).toEqual([]);
  });
});
