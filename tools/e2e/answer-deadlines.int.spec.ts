// Answer deadlines through the whole stack (docs/api.md, "Answer deadlines"): the party's default
// set and read through the gateway, a deadline sent on the ServiceRequest and carried by every Task,
// the overdue mark intake's sweep sets (OVERDUE_SWEEP_SECONDS=1) found by `overdue=true`, the one
// AdmissionOverdueV1 per Task on the broker, the clinic list's fields and sort, and the mark gone
// with the clinic's answer. Every answer checked against the OpenAPI document (api-client.ts).
import { connect, type Channel, type ChannelModel } from 'amqplib';
import { AdmissionOverdueV1, declareTopology } from '@bedrequest/contracts';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { startE2eStack, type E2eStack } from './e2e-stack';

interface FhirTask {
  id: string;
  status: string;
  owner: { identifier: { value: string } };
  extension?: { url: string; valueDateTime: string }[];
  restriction?: { period: { end: string } };
}
type Searchset = { total: number; entry?: { resource: FhirTask }[] };

const LATE = '510000411';
const PROMPT = '510000412';
const PROFILE_BASE = 'https://bedrequest.example.org';

describe('answer deadlines and overdue Tasks', () => {
  let stack: E2eStack;
  let referrer: string;
  let late: string;
  let prompt: string;
  let broker: ChannelModel;
  let channel: Channel;
  let queue: string;
  const overdueMessages: unknown[] = [];

  beforeAll(async () => {
    stack = await startE2eStack({ OVERDUE_SWEEP_SECONDS: '1' });
    await stack.registerClinic(LATE, 'Rehazentrum Spät', ['2300']);
    await stack.registerClinic(PROMPT, 'Rehaklinik Pünktlich', ['2300']);
    await stack.createReferrer('deadline-hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    await stack.createClinicUser('spaet', LATE);
    await stack.createClinicUser('puenktlich', PROMPT);
    referrer = await stack.login('deadline-hospital');
    late = await stack.login('spaet');
    prompt = await stack.login('puenktlich');
    // A queue of the test's own on the events exchange: what intake's outbox relay published.
    broker = await connect(stack.env['AMQP_URL'] ?? 'amqp://guest:guest@127.0.0.1:5672');
    channel = await broker.createChannel();
    const topology = declareTopology(stack.env['AMQP_NAMESPACE'] ?? 'bedrequest');
    queue = (await channel.assertQueue('', { exclusive: true, autoDelete: true })).queue;
    await channel.bindQueue(queue, topology.eventsExchange, AdmissionOverdueV1.routingKey);
    await channel.consume(queue, (message) => message && overdueMessages.push(JSON.parse(message.content.toString())), { noAck: true });
  }, 120_000);

  afterAll(async () => {
    await broker?.close();
    await stack?.stop();
  });

  it("sets and reads the party's default answer deadline; a clinic token is 403", async () => {
    expect((await stack.api('GET', '/api/v1/referrer/settings', { token: referrer })).body).toEqual({ answerDeadline: { workingDays: 2, holidays: 'DE' } });
    const body = { answerDeadline: { workingDays: 3, holidays: 'DE-BW' } };
    const set = await stack.api('PUT', '/api/v1/referrer/settings', { token: referrer, body });
    expect([set.status, set.body]).toEqual([200, body]);
    expect((await stack.api('GET', '/api/v1/referrer/settings', { token: referrer })).body).toEqual(body);
    expect((await stack.api('GET', '/api/v1/referrer/settings', { token: late })).status).toBe(403);
  });

  it('marks the Task its clinic left unanswered past the deadline, once, finds it with overdue=true, lists it, and drops the mark with the answer', async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    // Room for the prompt clinic to answer first on a loaded machine: a Task still `requested` at the deadline is rightly marked.
    const deadline = new Date(Date.now() + 8000);
    deadline.setUTCMilliseconds(0);
    const bundle = admissionRequestBundle({ requestIdentifier: identifier, performerIks: [LATE, PROMPT] });
    const serviceRequest = bundle.entry?.find((entry) => entry.resource?.resourceType === 'ServiceRequest')?.resource as { extension?: unknown[] };
    serviceRequest.extension = [
      { url: `${PROFILE_BASE}/fhir/StructureDefinition/answer-deadline`, valueDateTime: deadline.toISOString().replace('.000Z', '+00:00') },
    ];
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: bundle })).status).toBe(202);

    const search = (query: string, token = referrer) =>
      stack.api<Searchset>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}&${query}`, { token });
    const tasks = await waitFor(async () => ((await search('')).body.entry?.length === 2 ? (await search('')).body.entry : undefined), { what: 'the Tasks' });
    for (const { resource } of tasks ?? []) expect(resource.restriction).toEqual({ period: { end: deadline.toISOString() } });
    const promptTask = tasks?.find((entry) => entry.resource.owner.identifier.value === PROMPT)?.resource;
    const lateTask = tasks?.find((entry) => entry.resource.owner.identifier.value === LATE)?.resource;
    const answered = await stack.api('POST', `/api/v1/clinic/tasks/${promptTask?.id}/answer`, { token: prompt, body: { businessStatus: 'accepted' } });
    expect(answered.status).toBe(200);

    const overdue = await waitFor(async () => ((await search('overdue=true')).body.total === 1 ? (await search('overdue=true')).body : undefined), {
      what: 'the overdue Task',
      timeoutMs: 20_000,
    });
    expect(overdue?.entry?.map((entry) => entry.resource.id)).toEqual([lateTask?.id]);
    expect(overdue?.entry?.[0]?.resource.extension).toEqual([
      { url: `${PROFILE_BASE}/fhir/StructureDefinition/answer-overdue`, valueDateTime: expect.any(String) },
    ]);
    expect((await search('overdue=false')).body.entry?.map((entry) => entry.resource.id)).toEqual([promptTask?.id]);

    // One message for the one overdue Task, with the Task as marked.
    await waitFor(async () => (overdueMessages.length > 0 ? true : undefined), { what: 'AdmissionOverdueV1 on the broker' });
    await new Promise((resolve) => setTimeout(resolve, 2500));
    const ours = overdueMessages
      .map((envelope) => AdmissionOverdueV1.payload.parse((envelope as { payload: unknown }).payload))
      .filter((payload) => payload.requestIdentifier === identifier);
    expect(ours).toHaveLength(1);
    expect(ours[0]).toMatchObject({
      deadline: deadline.toISOString(),
      task: { id: lateTask?.id, status: 'requested', restriction: { period: { end: deadline.toISOString() } } },
    });

    // The clinic's list: its deadline, since when it is overdue, sorted by deadline.
    const list = await stack.api<{ items: { id: string; deadline?: string; overdueSince?: string }[] }>('GET', '/api/v1/clinic/tasks?_sort=deadline', {
      token: late,
    });
    expect(list.status).toBe(200);
    expect(list.body.items.find((item) => item.id === lateTask?.id)).toMatchObject({ deadline: deadline.toISOString(), overdueSince: expect.any(String) });

    // The answer ends it.
    const lateAnswer = await stack.api<FhirTask>('POST', `/api/v1/clinic/tasks/${lateTask?.id}/answer`, {
      token: late,
      body: { businessStatus: 'declined', note: 'Leider kein Bett' },
    });
    expect(lateAnswer.status).toBe(200);
    expect(lateAnswer.body.extension).toBeUndefined();
    expect((await search('overdue=true')).body.total).toBe(0);

    // The clinic's history keeps the mark between the request and the answer, with the deadline that passed.
    const history = await stack.api<{ items: { kind: string; deadline?: string }[] }>('GET', `/api/v1/clinic/tasks/${lateTask?.id}/history`, { token: late });
    expect(history.body.items.map((entry) => entry.kind)).toEqual(['answer', 'overdue', 'request']);
    expect(history.body.items[1]).toEqual({
      kind: 'overdue',
      at: list.body.items.find((item) => item.id === lateTask?.id)?.overdueSince,
      deadline: deadline.toISOString(),
    });
  });
});
