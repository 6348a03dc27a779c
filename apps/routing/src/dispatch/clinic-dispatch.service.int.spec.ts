import { randomUUID } from 'node:crypto';
import { workOf } from '@bedrequest/messaging';
import { Pool } from 'pg';
import {
  AdmissionResponseV1,
  RequestDispatchedV1,
  RequestErasedV1,
  createEnvelope,
  type BusinessStatus,
  type MessageDefinition,
  type PayloadOf,
} from '@bedrequest/contracts';
import { fhirTask } from '@bedrequest/fhir-model/testing';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { BedCapacityRepository } from '../beds/bed-capacity.repository';
import { openRoutingDatabase, type RoutingDatabase } from '../persistence/database';
import { ClinicRegistry } from '../registry/clinic-registry.service';
import { ClinicRepository } from '../registry/clinic.repository';
import { ClinicDispatchService, routingCommands, type RoutingCommand } from './clinic-dispatch.service';
import { DispatchBatch } from './dispatch-batch';
import { DispatchRepository } from './dispatch.repository';

const env = testEnvironment();
const DATE = '2026-12-01';

/** Routing's batches against the real PostgreSQL: what one unit of work of several messages does. */
describe('ClinicDispatchService batches against the real PostgreSQL', () => {
  const schema = uniqueName('routing_batch');
  let prisma: RoutingDatabase;
  let pool: Pool;
  let service: ClinicDispatchService;
  let repository: DispatchRepository;
  let registry: ClinicRegistry;
  let beds: BedCapacityRepository;
  let clinicSeq = 0;

  beforeAll(async () => {
    prisma = await openRoutingDatabase({ databaseUrl: env.databaseUrl, schema, poolSize: 2 });
    pool = new Pool({ connectionString: env.databaseUrl, max: 1 });
    registry = new ClinicRegistry(new ClinicRepository(prisma));
    beds = new BedCapacityRepository(prisma, schema);
    repository = new DispatchRepository(prisma, schema);
    service = new ClinicDispatchService(repository);
  });
  afterAll(async () => {
    await prisma.$disconnect();
    await pool.query(`DROP SCHEMA "${schema}" CASCADE`);
    await pool.end();
  });

  const newClinic = async (freeBeds: number) => {
    const ik = `5910000${String(++clinicSeq).padStart(2, '0')}`;
    await registry.register({ ik, name: `Testklinik ${ik}`, departments: ['2300'] });
    await registry.setAutomaticAnswers(ik, true);
    await beds.publish({ clinicIk: ik, departmentCode: '2300', admissionDate: DATE }, freeBeds);
    return ik;
  };
  const command = <D extends MessageDefinition>(definition: D, payload: PayloadOf<D>): RoutingCommand =>
    workOf(routingCommands, { envelope: createEnvelope(definition, payload, { correlationId: 'routing-batch' }), definition });
  const dispatch = (requestIdentifier: string, version: number, change: RequestDispatchedV1['change'], tasks: RequestDispatchedV1['tasks']) =>
    command(RequestDispatchedV1, {
      requestIdentifier,
      referrerPartyId: 'referrer-1',
      version,
      change,
      departmentCode: '2300',
      specialty: 'orthopedics',
      occurrenceDate: DATE,
      tasks,
    });
  const bedCount = async (ik: string) => (await beds.list(ik))[0];
  const outcomesOf = async (taskId: string) =>
    (await prisma.clinicNotification.findMany({ where: { taskId }, orderBy: { id: 'asc' } })).map((entry) => entry.outcome);
  const answersIn = async () =>
    (
      await pool.query<{ envelope: { payload: { taskId: string; businessStatus: string } } }>(
        `SELECT envelope FROM "${schema}".outbox_message WHERE routing_key = 'clinic.answer.submitted.v1' ORDER BY id`,
      )
    ).rows;

  it('applies two dispatches of one Task in one batch in order: held, then kept', async () => {
    const ik = await newClinic(1);
    const taskId = randomUUID();
    const identifier = `https://referrer.example/fhir/ServiceRequest/${randomUUID()}`;
    const task = { taskId, clinicIk: ik, action: 'answer-requested' as const };

    await service.handle([dispatch(identifier, 1, 'created', [task]), dispatch(identifier, 2, 'supplemented', [task])]);

    expect(await outcomesOf(taskId)).toEqual(['accepted-bed-held', 'accepted-bed-kept']);
    expect(await bedCount(ik)).toMatchObject({ freeBeds: 1, held: 1, reserved: 0 });
  });

  it('gives the last free bed to exactly one of two requests in one batch', async () => {
    const ik = await newClinic(1);
    const [first, second] = [randomUUID(), randomUUID()];
    const request = () => `https://referrer.example/fhir/ServiceRequest/${randomUUID()}`;

    await service.handle([
      dispatch(request(), 1, 'created', [{ taskId: first, clinicIk: ik, action: 'answer-requested' }]),
      dispatch(request(), 1, 'created', [{ taskId: second, clinicIk: ik, action: 'answer-requested' }]),
    ]);

    expect([...(await outcomesOf(first)), ...(await outcomesOf(second))]).toEqual(['accepted-bed-held', 'declined-no-free-bed']);
    expect(await bedCount(ik)).toMatchObject({ held: 1 });
  });

  it('a redelivered batch changes nothing', async () => {
    const ik = await newClinic(2);
    const taskId = randomUUID();
    const batch = [
      dispatch(`https://referrer.example/fhir/ServiceRequest/${randomUUID()}`, 1, 'created', [{ taskId, clinicIk: ik, action: 'answer-requested' }]),
    ];
    const answersBefore = (await answersIn()).length;

    const first = await service.handle(batch);
    const again = await service.handle(batch);

    expect([first.duplicates, again.duplicates]).toEqual([0, 1]);
    expect(await outcomesOf(taskId)).toEqual(['accepted-bed-held']);
    expect(await bedCount(ik)).toMatchObject({ held: 1 });
    expect((await answersIn()).length).toBe(answersBefore + 1);
  });

  it('records a decline intake made, gives the held bed back and answers nothing itself', async () => {
    const ik = await newClinic(1);
    const taskId = randomUUID();
    const identifier = `https://referrer.example/fhir/ServiceRequest/${randomUUID()}`;
    await service.handle([dispatch(identifier, 1, 'created', [{ taskId, clinicIk: ik, action: 'answer-requested' }])]);
    const answersBefore = (await answersIn()).length;

    await service.handle([dispatch(identifier, 2, 'supplemented', [{ taskId, clinicIk: ik, action: 'answer-requested', declined: 'department-not-offered' }])]);

    expect(await outcomesOf(taskId)).toEqual(['accepted-bed-held', 'declined-department-not-offered']);
    expect(await bedCount(ik)).toMatchObject({ held: 0 });
    expect((await answersIn()).length).toBe(answersBefore);
  });

  it("gives back the bed of a Task its clinic declined, and ignores other answers and the service's own declines without a trace", async () => {
    const ik = await newClinic(1);
    const taskId = randomUUID();
    const identifier = `https://referrer.example/fhir/ServiceRequest/${randomUUID()}`;
    await service.handle([dispatch(identifier, 1, 'created', [{ taskId, clinicIk: ik, action: 'answer-requested' }])]);
    const response = (code: BusinessStatus, source: 'clinic' | 'automatic') =>
      command(AdmissionResponseV1, {
        eventId: randomUUID(),
        referrerPartyId: 'referrer-1',
        requestIdentifier: identifier,
        task: fhirTask({ id: taskId, requestIdentifier: identifier, clinicIk: ik, businessStatus: code }),
        source,
      });

    const ignored = await service.handle([response('query', 'clinic'), response('declined', 'automatic')]);
    expect(ignored).toEqual({ notifications: [], released: [], erased: 0, ignoredErased: 0, duplicates: 0, answers: 0 });
    expect(await bedCount(ik)).toMatchObject({ held: 1 });
    const declined = await service.handle([response('declined', 'clinic')]);

    expect(declined.released).toEqual([taskId]);
    expect(await bedCount(ik)).toMatchObject({ held: 0 });
  });

  it("keeps the bed a selection reserved while the selected clinic's Task is in progress, and gives it back when its clinic withdraws its acceptance", async () => {
    const ik = await newClinic(2);
    const taskId = randomUUID();
    const identifier = `https://referrer.example/fhir/ServiceRequest/${randomUUID()}`;
    await service.handle([dispatch(identifier, 1, 'created', [{ taskId, clinicIk: ik, action: 'answer-requested' }])]);
    await service.handle([dispatch(identifier, 2, 'selected', [{ taskId, clinicIk: ik, action: 'selected' }])]);
    expect(await bedCount(ik)).toMatchObject({ held: 0, reserved: 1 });
    const response = (status: 'in-progress' | 'rejected') =>
      command(AdmissionResponseV1, {
        eventId: randomUUID(),
        referrerPartyId: 'referrer-1',
        requestIdentifier: identifier,
        task: fhirTask({ id: taskId, requestIdentifier: identifier, clinicIk: ik, businessStatus: 'declined', status }),
        source: 'clinic',
      });

    // A selected clinic's answer is recorded but keeps the selection (docs/decisions.md, "Clinics answer"), and so its bed.
    expect((await service.handle([response('in-progress')])).released).toEqual([]);
    expect(await bedCount(ik)).toMatchObject({ held: 0, reserved: 1 });
    // Its withdrawal of the acceptance lifts the selection: the Task is rejected, the bed free again.
    expect((await service.handle([response('rejected')])).released).toEqual([taskId]);
    expect(await bedCount(ik)).toMatchObject({ held: 0, reserved: 0 });
  });

  it('a batch that booked against a bed count another batch changed meanwhile writes nothing', async () => {
    const ik = await newClinic(1);
    const [late, early] = [randomUUID(), randomUUID()];
    const request = () => `https://referrer.example/fhir/ServiceRequest/${randomUUID()}`;
    const lateDispatch = dispatch(request(), 1, 'created', [{ taskId: late, clinicIk: ik, action: 'answer-requested' }]);
    if (lateDispatch.kind !== 'dispatch') throw new Error('not a dispatch');
    // This batch reads the count (one bed free) and books it in memory ...
    const state = await repository.load({
      messages: [lateDispatch.meta],
      taskIds: [late],
      holdTaskIds: [late],
      wantedBeds: [{ clinicIk: ik, departmentCode: '2300', admissionDate: DATE }],
      clinicIks: [ik],
      requestIdentifiers: [lateDispatch.request.requestIdentifier],
      erasedRequests: [],
    });
    const batch = new DispatchBatch(state);
    batch.take(lateDispatch.meta);
    expect(batch.dispatch(lateDispatch.request, lateDispatch.meta)).toEqual([expect.objectContaining({ outcome: 'accepted-bed-held' })]);
    // ... another batch takes the bed meanwhile ...
    await service.handle([dispatch(request(), 1, 'created', [{ taskId: early, clinicIk: ik, action: 'answer-requested' }])]);

    // ... so the first may not write its booking.
    await expect(repository.write(batch.changes())).rejects.toThrow(/concurrent change: bed counts/);
    expect(await bedCount(ik)).toMatchObject({ held: 1 });
    expect(await outcomesOf(late)).toEqual([]);
    // Tried again, it finds no free bed.
    await service.handle([lateDispatch]);
    expect(await outcomesOf(late)).toEqual(['declined-no-free-bed']);
  });

  it('a dispatch read before its request was erased writes nothing, and is ignored when tried again', async () => {
    const ik = await newClinic(1);
    const taskId = randomUUID();
    const identifier = `https://referrer.example/fhir/ServiceRequest/${randomUUID()}`;
    const late = dispatch(identifier, 1, 'created', [{ taskId, clinicIk: ik, action: 'answer-requested' }]);
    if (late.kind !== 'dispatch') throw new Error('not a dispatch');
    const state = await repository.load({
      messages: [late.meta],
      taskIds: [taskId],
      holdTaskIds: [taskId],
      wantedBeds: [{ clinicIk: ik, departmentCode: '2300', admissionDate: DATE }],
      clinicIks: [ik],
      requestIdentifiers: [identifier],
      erasedRequests: [],
    });
    const batch = new DispatchBatch(state);
    batch.take(late.meta);
    batch.dispatch(late.request, late.meta);
    const erasure = command(RequestErasedV1, {
      requestIdentifier: identifier,
      referrerPartyId: 'referrer-1',
      reason: 'requested',
      erasedAt: new Date().toISOString(),
      tasks: [{ taskId, clinicIk: ik }],
    });
    expect(await service.handle([erasure])).toMatchObject({ erased: 1, released: [] });

    await expect(repository.write(batch.changes())).rejects.toThrow(/concurrent change: erased requests/);
    expect(await service.handle([late])).toMatchObject({ ignoredErased: 1, notifications: [] });
    expect(await bedCount(ik)).toMatchObject({ held: 0 });
    expect(await outcomesOf(taskId)).toEqual([]);
  });

  it('an erasure read before a dispatch of its request booked another bed writes nothing, and finds that hold when tried again', async () => {
    const [first, second] = [await newClinic(1), await newClinic(1)];
    const [firstTask, secondTask] = [randomUUID(), randomUUID()];
    const identifier = `https://referrer.example/fhir/ServiceRequest/${randomUUID()}`;
    await service.handle([dispatch(identifier, 1, 'created', [{ taskId: firstTask, clinicIk: first, action: 'answer-requested' }])]);
    const erasure = command(RequestErasedV1, {
      requestIdentifier: identifier,
      referrerPartyId: 'referrer-1',
      reason: 'requested',
      erasedAt: new Date().toISOString(),
      tasks: [{ taskId: firstTask, clinicIk: first }],
    });
    if (erasure.kind !== 'erased') throw new Error('not an erasure');
    // This batch reads the request's holds (the first clinic's) and erases them in memory ...
    const state = await repository.load({
      messages: [erasure.meta],
      taskIds: [],
      holdTaskIds: [],
      wantedBeds: [],
      clinicIks: [],
      requestIdentifiers: [identifier],
      erasedRequests: [identifier],
    });
    const batch = new DispatchBatch(state);
    batch.take(erasure.meta);
    expect(batch.erase(erasure.erasure)).toEqual([firstTask]);
    // ... a stale dispatch of the request books the second clinic's bed meanwhile ...
    await service.handle([dispatch(identifier, 1, 'created', [{ taskId: secondTask, clinicIk: second, action: 'answer-requested' }])]);
    expect(await bedCount(second)).toMatchObject({ held: 1 });

    // ... so the erasure may not write: that hold would outlive it.
    await expect(repository.write(batch.changes())).rejects.toThrow(/concurrent change: holds of erased requests/);
    expect(await service.handle([erasure])).toMatchObject({ erased: 1, released: expect.arrayContaining([firstTask, secondTask]) });
    expect([await bedCount(first), await bedCount(second)]).toMatchObject([{ held: 0 }, { held: 0 }]);
    expect(await prisma.bedHold.count({ where: { requestIdentifier: identifier } })).toBe(0);
  });

  it('gives back a bed held and erases the need of a request dispatched and erased in one batch', async () => {
    const ik = await newClinic(1);
    const taskId = randomUUID();
    const identifier = `https://referrer.example/fhir/ServiceRequest/${randomUUID()}`;
    const erasure = command(RequestErasedV1, {
      requestIdentifier: identifier,
      referrerPartyId: 'referrer-1',
      reason: 'retention',
      erasedAt: new Date().toISOString(),
      tasks: [{ taskId, clinicIk: ik }],
    });

    const result = await service.handle([dispatch(identifier, 1, 'created', [{ taskId, clinicIk: ik, action: 'answer-requested' }]), erasure]);

    // The automatic answer the dispatch made is not sent: its note names department and date.
    expect(result).toMatchObject({ erased: 1, released: [taskId], answers: 0 });
    expect(await bedCount(ik)).toMatchObject({ held: 0, reserved: 0 });
    expect(await prisma.bedHold.count({ where: { taskId } })).toBe(0);
    expect(
      await prisma.clinicNotification.findMany({ where: { taskId }, select: { outcome: true, departmentCode: true, admissionDate: true, note: true } }),
    ).toEqual([{ outcome: 'accepted-bed-held', departmentCode: null, admissionDate: null, note: null }]);
  });
});
