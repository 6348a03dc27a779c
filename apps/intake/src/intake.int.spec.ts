import { connect, type ChannelModel } from 'amqplib';
import {
  AdmissionBundleSubmittedV1,
  ClinicAnswerSubmittedV1,
  DocumentBundleSubmittedV1,
  declareTopology,
  messageCatalog,
  type Envelope,
  type IntakeVerdictV1,
  type MessageDefinition,
  type PayloadOf,
} from '@bedrequest/contracts';
import { admissionRequestSummary, DEFAULT_PROFILE_BASE, validateAdmissionRequestBundle } from '@bedrequest/fhir-model';
import { admissionRequestBundle, documentBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { Broker, declareBrokerTopology } from '@bedrequest/messaging';
import { deleteBrokerTopology, serveClinicRegistry, silentLogger, testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { TestAuthority } from '@bedrequest/tokens/testing';
import { IntakeConfig } from './config';
import { startIntake, type RunningIntake } from './start';

const env = testEnvironment();
type FetchedBundle = { entry: { resource: { resourceType: string; name?: { family?: string }[] } }[] };
const A = '510000001';
const B = '510000002';
const referrer = { partyId: 'referrer-1', ikNumbers: [FIXTURE_REQUESTER_IK], fhirBase: FIXTURE_FHIR_BASE };

describe('intake with the real RabbitMQ and PostgreSQL', () => {
  const namespace = uniqueName('intake');
  const topology = declareTopology(namespace);
  let intake: RunningIntake;
  let client: Broker;
  let inspector: ChannelModel;
  let registry: Awaited<ReturnType<typeof serveClinicRegistry>>;
  let authority: TestAuthority;
  /** The headers of a call with the access token of `party` (a referrer) or of the clinic with IK `clinicIk`. */
  const as = async (who: { party: string } | { clinicIk: string }) => ({
    authorization: `Bearer ${'party' in who ? await authority.referrer(who.party) : await authority.clinic(`user-of-${who.clinicIk}`, who.clinicIk)}`,
  });

  beforeAll(async () => {
    // Auth's keys (intake verifies the tokens the gateway forwards) and service tokens (for the registry).
    authority = await TestAuthority.start();
    // Routing's clinic list: both clinics offer orthopaedics, what the fixture bundles ask for.
    registry = await serveClinicRegistry([
      { ik: A, departments: ['2300'] },
      { ik: B, departments: ['2300'] },
    ]);
    // Provisioning's step, as the local administrator: services declare no topology.
    await declareBrokerTopology(env.amqpUrl, topology, 5);
    intake = await startIntake(
      IntakeConfig.parse({
        NODE_ENV: 'test',
        INTAKE_PORT: '0',
        INTAKE_INTERNAL_PORT: '0',
        AMQP_NAMESPACE: namespace,
        INTAKE_DB_SCHEMA: uniqueName('intake'),
        LOG_LEVEL: 'silent',
        DATABASE_URL: env.databaseUrl,
        AMQP_URL: env.amqpUrl,
        ROUTING_URL: registry.url,
        ...authority.env,
      }),
    );
    client = new Broker({ url: env.amqpUrl, topology, catalog: messageCatalog, logger: silentLogger(), prefetch: 8, deliveryLimit: 5 });
    await client.start();
    inspector = await connect(env.amqpUrl);
  });

  afterAll(async () => {
    await client.stop();
    await intake.stop();
    await inspector.close();
    await registry.stop();
    await authority.stop();
    await deleteBrokerTopology(env.amqpUrl, topology);
  });

  const send = async <D extends MessageDefinition>(definition: D, payload: PayloadOf<D>): Promise<IntakeVerdictV1> => {
    const { reply } = await client.publishAndAwaitReply(definition, payload, { correlationId: 'intake-test' }, 10_000);
    return reply!.payload as IntakeVerdictV1;
  };
  /** The message the gateway publishes for `bundle`: the bundle and the summary it reads when it validates it. */
  const submission = (bundle: object) => {
    const validation = validateAdmissionRequestBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE });
    if (!validation.ok) throw new Error(JSON.stringify(validation.issues));
    return {
      submitter: referrer,
      receivedAt: new Date().toISOString(),
      bundle: bundle as Record<string, unknown>,
      request: admissionRequestSummary(validation.bundle),
    };
  };
  const submit = (bundle: object) => send(AdmissionBundleSubmittedV1, submission(bundle));
  const tasksOf = async (identifier: string, viewer: { party: string } | { clinicIk: string } = { party: referrer.partyId }) => {
    const response = await fetch(`${intake.url}/internal/tasks?based-on=${encodeURIComponent(identifier)}`, { headers: await as(viewer) });
    const bundle = (await response.json()) as {
      total: number;
      entry?: { resource: { id: string; status: string; owner: { identifier: { value: string } }; businessStatus?: { coding: { code: string }[] } } }[];
    };
    return Object.fromEntries(
      (bundle.entry ?? []).map(({ resource }) => [
        resource.owner.identifier.value,
        { id: resource.id, status: resource.status, businessStatus: resource.businessStatus?.coding[0]?.code },
      ]),
    );
  };
  const answer = (taskId: string, clinicIk: string, businessStatus: 'accepted' | 'declined' | 'query' | 'more-data-required') =>
    send(ClinicAnswerSubmittedV1, { taskId, clinicIk, businessStatus, source: 'clinic', user: `user-of-${clinicIk}`, note: `answer ${businessStatus}` });

  it('runs a request through create, answer, supplement, select, withdraw and revoke', async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    const bundle = (options: Parameters<typeof admissionRequestBundle>[0] = {}) =>
      admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A, B], ...options });

    expect(await submit(bundle())).toMatchObject({ outcome: 'accepted', requestIdentifier: identifier });
    let tasks = await tasksOf(identifier);
    expect(tasks).toEqual({ [A]: expect.objectContaining({ status: 'requested' }), [B]: expect.objectContaining({ status: 'requested' }) });
    expect(tasks[A]!.businessStatus).toBeUndefined();

    expect(await answer(tasks[A]!.id, A, 'query')).toMatchObject({ outcome: 'accepted', task: { status: 'on-hold' } });
    expect(await answer(tasks[B]!.id, B, 'accepted')).toMatchObject({ outcome: 'accepted', task: { status: 'accepted' } });
    // Another clinic's Task is not found for the answering clinic.
    expect(await answer(tasks[A]!.id, B, 'accepted')).toMatchObject({ outcome: 'rejected', refusal: 'not-found' });

    // Supplemented data: every open Task back to requested, keeping its last answer.
    expect(await submit(bundle({ notes: ['Befund ergänzt'] }))).toMatchObject({ outcome: 'accepted' });
    tasks = await tasksOf(identifier);
    expect(tasks[A]).toMatchObject({ status: 'requested', businessStatus: 'query' });
    expect(tasks[B]).toMatchObject({ status: 'requested', businessStatus: 'accepted' });

    // Selecting A, whose latest answer is a query, is a state conflict; B accepts again and is selected.
    expect(await submit(bundle({ intent: 'order', orderDetail: 'selected-provider', performerIks: [A] }))).toMatchObject({
      outcome: 'rejected',
      refusal: 'conflict',
    });
    await answer(tasks[B]!.id, B, 'accepted');
    expect(await submit(bundle({ intent: 'order', orderDetail: 'selected-provider', performerIks: [B] }))).toMatchObject({ outcome: 'accepted' });
    tasks = await tasksOf(identifier);
    expect(tasks[A]).toMatchObject({ status: 'cancelled' });
    expect(tasks[B]).toMatchObject({ status: 'in-progress', businessStatus: 'accepted' });
    expect(await answer(tasks[A]!.id, A, 'accepted')).toMatchObject({ outcome: 'rejected', refusal: 'conflict' });

    // The selected clinic reads the complete master data; the cancelled one the version before.
    const readAs = async (clinicIk: string) =>
      fetch(`${intake.url}/internal/tasks/${tasks[clinicIk]!.id}/bundle`, { headers: await as({ clinicIk }) }).then((r) => r.json() as Promise<FetchedBundle>);
    const patientOf = (b: FetchedBundle) => b.entry.find((e) => e.resource.resourceType === 'Patient')!.resource;
    expect(patientOf(await readAs(B)).name?.[0]?.family).toBeDefined();
    expect(patientOf(await readAs(A)).name?.[0]?.family).toBeUndefined();

    // Withdrawal: proposal again, B cancelled.
    expect(await submit(bundle({ intent: 'order', orderDetail: 'selected-provider-cancelled', performerIks: [B], patient: 'complete' }))).toMatchObject({
      outcome: 'accepted',
    });
    expect((await tasksOf(identifier))[B]).toMatchObject({ status: 'cancelled' });

    // A later bundle naming A again reopens its Task without its old answer.
    expect(await submit(bundle({ performerIks: [A], notes: ['zweiter Anlauf'] }))).toMatchObject({ outcome: 'accepted' });
    expect((await tasksOf(identifier))[A]).toMatchObject({ status: 'requested', businessStatus: undefined });

    // Revocation cancels everything; nothing is accepted afterwards.
    expect(await submit(bundle({ status: 'revoked', performerIks: [A] }))).toMatchObject({ outcome: 'accepted' });
    tasks = await tasksOf(identifier);
    expect(Object.values(tasks).map((task) => task.status)).toEqual(['cancelled', 'cancelled']);
    expect(await submit(bundle())).toMatchObject({ outcome: 'rejected', refusal: 'conflict' });
    // A cancelled clinic reads the version it was sent before, never the revocation (docs/decisions.md).
    const serviceRequestOf = (b: FetchedBundle) => b.entry.find((e) => e.resource.resourceType === 'ServiceRequest')!.resource as { status?: string };
    expect(serviceRequestOf(await readAs(A)).status).toBe('active');
    // The same revocation sent again is a retry: 202, nothing changes.
    expect(await submit(bundle({ status: 'revoked', performerIks: [A] }))).toMatchObject({ outcome: 'unchanged' });
  });

  it('answers an identical retransmission with 202 without storing a new version', async () => {
    const b = admissionRequestBundle({ performerIks: [A] });
    expect(await submit(b)).toMatchObject({ outcome: 'accepted' });
    expect(await submit(JSON.parse(JSON.stringify(b)))).toMatchObject({ outcome: 'unchanged' });
  });

  it('processes a redelivered message once and gives the same verdict', async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    const { envelope } = await client.publishAndAwaitReply(
      AdmissionBundleSubmittedV1,
      submission(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A] })),
      { correlationId: 'redelivery' },
      10_000,
    );
    // The same envelope (same message id) again, as the broker would redeliver it after a lost ack.
    await client.publishEnvelope(AdmissionBundleSubmittedV1.routingKey, envelope as Envelope);
    await client.publishEnvelope(AdmissionBundleSubmittedV1.routingKey, envelope as Envelope);
    await waitFor(async () => (await queueDepth(inspector, topology.queues.intake.name)) === 0);
    expect(Object.keys(await tasksOf(identifier))).toEqual([A]);
    const dispatched = await takeAll(inspector, topology.queues.routing.name);
    expect(dispatched.filter((message) => (message.payload as { requestIdentifier: string }).requestIdentifier === identifier)).toHaveLength(1);
  });

  it('serialises concurrent supplements of one request: every version is stored, none lost', async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    await submit(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A] }));
    const verdicts = await Promise.all(
      Array.from({ length: 12 }, (_, n) => submit(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A], notes: [`Ergänzung ${n}`] }))),
    );
    expect(verdicts.every((verdict) => verdict.outcome === 'accepted')).toBe(true);
    const dispatched = (await takeAll(inspector, topology.queues.routing.name))
      .map((message) => message.payload as { requestIdentifier: string; version: number })
      .filter((payload) => payload.requestIdentifier === identifier)
      .map((payload) => payload.version);
    expect(dispatched).toEqual(Array.from({ length: 13 }, (_, n) => n + 1));
  });

  it('stores a DocumentBundle for a known request and refuses one for an unknown request', async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    await submit(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A] }));
    const document = (requestIdentifier: string) =>
      send(DocumentBundleSubmittedV1, {
        submitter: referrer,
        receivedAt: new Date().toISOString(),
        bundle: documentBundle({ requestIdentifier }) as unknown as Record<string, unknown>,
        requestIdentifier,
      });
    expect(await document(identifier)).toMatchObject({ outcome: 'accepted' });
    expect(await document(`${FIXTURE_FHIR_BASE}/ServiceRequest/unknown`)).toMatchObject({ outcome: 'rejected', refusal: 'not-found' });
    const taskId = (await tasksOf(identifier))[A]!.id;
    const documents = await fetch(`${intake.url}/internal/tasks/${taskId}/documents`, { headers: await as({ clinicIk: A }) }).then(
      (r) => r.json() as Promise<{ items: unknown[] }>,
    );
    expect(documents.items).toHaveLength(1);
    // The same document again is a retry: stored once.
    expect(await document(identifier)).toMatchObject({ outcome: 'unchanged' });

    await submit(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A], status: 'revoked' }));
    expect(await document(identifier)).toMatchObject({ outcome: 'rejected', refusal: 'conflict' });
  });

  it('offers a cancelled clinic no document received after its cancellation', async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    await submit(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A, B] }));
    const tasks = await tasksOf(identifier);
    await answer(tasks[B]!.id, B, 'accepted');
    expect(
      await submit(admissionRequestBundle({ requestIdentifier: identifier, intent: 'order', orderDetail: 'selected-provider', performerIks: [B] })),
    ).toMatchObject({ outcome: 'accepted' });
    await send(DocumentBundleSubmittedV1, {
      submitter: referrer,
      receivedAt: new Date().toISOString(),
      bundle: documentBundle({ requestIdentifier: identifier }) as unknown as Record<string, unknown>,
      requestIdentifier: identifier,
    });
    const documentsOf = async (clinicIk: string) =>
      fetch(`${intake.url}/internal/tasks/${tasks[clinicIk]!.id}/documents`, { headers: await as({ clinicIk }) }).then(
        (r) => r.json() as Promise<{ items: unknown[] }>,
      );
    expect((await documentsOf(B)).items).toHaveLength(1);
    expect((await documentsOf(A)).items).toHaveLength(0);
  });

  it('shows a clinic only its own Tasks', async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    await submit(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A, B] }));
    expect(Object.keys(await tasksOf(identifier, { clinicIk: A }))).toEqual([A]);
    expect(await tasksOf(identifier, { party: 'someone-else' })).toEqual({});
  });
});

async function queueDepth(connection: ChannelModel, queue: string): Promise<number> {
  const channel = await connection.createChannel();
  try {
    return (await channel.checkQueue(queue)).messageCount;
  } finally {
    await channel.close();
  }
}

async function takeAll(connection: ChannelModel, queue: string): Promise<Envelope[]> {
  const channel = await connection.createChannel();
  const messages: Envelope[] = [];
  try {
    for (;;) {
      const message = await channel.get(queue, { noAck: true });
      if (!message) return messages;
      messages.push(JSON.parse(message.content.toString()) as Envelope);
    }
  } finally {
    await channel.close();
  }
}
