import { randomUUID } from 'node:crypto';
import { RequestDispatchedV1, declareTopology, messageCatalog } from '@bedrequest/contracts';
import { Broker, declareBrokerTopology } from '@bedrequest/messaging';
import { deleteBrokerTopology, silentLogger, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { BedCapacityRepository } from '../beds/bed-capacity.repository';
import { BedCountService } from '../beds/bed-count.service';
import { RoutingConfig } from '../config';
import { openRoutingDatabase, type RoutingDatabase } from '../persistence/database';
import { ClinicRegistry } from '../registry/clinic-registry.service';
import { ClinicRepository } from '../registry/clinic.repository';
import { startRouting, type RunningRouting } from '../start';

const env = testEnvironment();
const DATE = '2026-12-01';

/**
 * A selection reserves a bed of the date's count however the clinic accepted (docs/parties.md,
 * "Automatic answers from bed counts"): here the clinics accepted by hand, so no bed was held. Two
 * routing instances share one queue and one schema, as two replicas would.
 */
describe('a selection of a clinic that accepted by hand', () => {
  const namespace = uniqueName('routing');
  const schema = uniqueName('routing');
  const topology = declareTopology(namespace);
  const instances: RunningRouting[] = [];
  let client: Broker;
  let prisma: RoutingDatabase;
  let registry: ClinicRegistry;
  let beds: BedCapacityRepository;
  let counts: BedCountService;
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
    await declareBrokerTopology(env.amqpUrl, topology, 5);
    instances.push(await startRouting(config), await startRouting(config));
    prisma = await openRoutingDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    registry = new ClinicRegistry(new ClinicRepository(prisma));
    beds = new BedCapacityRepository(prisma, schema);
    counts = new BedCountService(registry, beds);
    client = new Broker({ url: env.amqpUrl, topology, catalog: messageCatalog, logger: silentLogger(), prefetch: 32, deliveryLimit: 5 });
    await client.start();
  });

  afterAll(async () => {
    await client.stop();
    for (const instance of instances) await instance.stop();
    await prisma.$disconnect();
    await deleteBrokerTopology(env.amqpUrl, topology);
  });

  /** A clinic of its own for each test; `freeBeds` undefined publishes no count. */
  const newClinic = async (options: { automaticAnswers?: boolean; freeBeds?: number } = {}) => {
    const ik = `5920000${String(++clinicSeq).padStart(2, '0')}`;
    await registry.register({ ik, name: `Testklinik ${ik}`, departments: ['2300'] });
    if (options.automaticAnswers) await registry.setAutomaticAnswers(ik, true);
    if (options.freeBeds !== undefined) await beds.publish({ clinicIk: ik, departmentCode: '2300', admissionDate: DATE }, options.freeBeds);
    return ik;
  };
  /**
   * One request to one clinic: `step` publishes its next version as intake would and waits until
   * routing logged it (two instances could otherwise apply versions sent at once out of order),
   * answering the Task's outcomes so far.
   */
  const requestTo = (ik: string) => {
    const requestIdentifier = `https://referrer.example/fhir/ServiceRequest/${randomUUID()}`;
    const taskId = randomUUID();
    let version = 0;
    const step = async (change: RequestDispatchedV1['change'], action: RequestDispatchedV1['tasks'][number]['action']) => {
      const sent = ++version;
      await client.publish(
        RequestDispatchedV1,
        {
          requestIdentifier,
          referrerPartyId: 'referrer-1',
          version: sent,
          change,
          departmentCode: '2300',
          specialty: 'orthopedics',
          occurrenceDate: DATE,
          tasks: [{ taskId, clinicIk: ik, action }],
        },
        { correlationId: 'selection-test' },
      );
      return waitFor(async () => (await outcomesOf(taskId)).length === sent && outcomesOf(taskId), { what: `version ${sent} of Task ${taskId}` });
    };
    return { taskId, step };
  };
  /** The count as the capacity API answers it (`available` included). */
  const bedCount = async (ik: string) => (await counts.list(ik))[0];
  const outcomesOf = async (taskId: string) =>
    (await prisma.clinicNotification.findMany({ where: { taskId }, orderBy: { id: 'asc' } })).map((entry) => entry.outcome);

  it('reserves a bed of the count on selection and releases it when the selection is withdrawn', async () => {
    const ik = await newClinic({ freeBeds: 2 });
    const request = requestTo(ik);
    await request.step('created', 'answer-requested');

    await request.step('selected', 'selected');
    expect(await bedCount(ik)).toMatchObject({ freeBeds: 2, held: 0, reserved: 1, available: 1 });

    expect(await request.step('selection-withdrawn', 'cancelled')).toEqual(['forwarded', 'selected-bed-reserved', 'cancelled-bed-released']);
    expect(await bedCount(ik)).toMatchObject({ held: 0, reserved: 0, available: 2 });
    expect(await prisma.bedHold.count({ where: { taskId: request.taskId } })).toBe(0);
  });

  it('releases the reservation when the request is revoked', async () => {
    const ik = await newClinic({ freeBeds: 1 });
    const request = requestTo(ik);
    await request.step('created', 'answer-requested');
    await request.step('selected', 'selected');
    expect(await bedCount(ik)).toMatchObject({ reserved: 1, available: 0 });

    expect(await request.step('revoked', 'cancelled')).toEqual(['forwarded', 'selected-bed-reserved', 'cancelled-bed-released']);
    expect(await bedCount(ik)).toMatchObject({ reserved: 0, available: 1 });
  });

  it('counts every one of concurrent selections for the last bed: one reserved, the others over-booked, none lost', async () => {
    const ik = await newClinic({ freeBeds: 1 });
    const requests = Array.from({ length: 8 }, () => requestTo(ik));
    await Promise.all(requests.map((request) => request.step('created', 'answer-requested')));

    const outcomes = await Promise.all(requests.map(async (request) => (await request.step('selected', 'selected'))[1]));

    expect(outcomes.filter((outcome) => outcome === 'selected-bed-reserved')).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'selected-bed-overbooked')).toHaveLength(7);
    expect(await bedCount(ik)).toMatchObject({ freeBeds: 1, held: 0, reserved: 8, available: 0 });
    expect(await prisma.bedHold.count({ where: { clinicIk: ik, state: 'reserved' } })).toBe(8);
  });

  it('leaves no bed for an automatic acceptance once a selection reserved the last one', async () => {
    const ik = await newClinic({ freeBeds: 1 });
    const byHand = requestTo(ik);
    await byHand.step('created', 'answer-requested');
    await byHand.step('selected', 'selected');
    await registry.setAutomaticAnswers(ik, true);

    expect(await requestTo(ik).step('created', 'answer-requested')).toEqual(['declined-no-free-bed']);
    expect(await bedCount(ik)).toMatchObject({ held: 0, reserved: 1, available: 0 });
  });

  it('reserves nothing when the clinic published no count for the date, and publishes none for it', async () => {
    const ik = await newClinic();
    const request = requestTo(ik);
    await request.step('created', 'answer-requested');

    expect(await request.step('selected', 'selected')).toEqual(['forwarded', 'selected-no-bed-count']);
    expect(await counts.list(ik)).toEqual([]);
    expect(await prisma.bedHold.count({ where: { taskId: request.taskId } })).toBe(0);
  });
});
