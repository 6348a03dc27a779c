// A clinic's people work on its requests together (docs/api.md, "Working on a request together"):
// one takes a request and the colleague sees who, and may take it over; internal notes are the
// clinic's alone, never in the referrer's Task or events; what one of them opened is seen by the
// clinic, until a new version comes. The whole stack in-process, every answer checked against the
// OpenAPI document (api-client.ts).
import { randomUUID } from 'node:crypto';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { startE2eStack, type E2eStack } from './e2e-stack';

interface Workspace {
  taskId: string;
  version: number;
  seenVersion?: number;
  seen: boolean;
  assignee?: { user: string; name?: string; since: string };
  internalNotes: { id: string; time: string; author: { user: string; name?: string }; text: string }[];
}
interface Marks {
  unseen: number;
  items: Omit<Workspace, 'internalNotes'>[];
}

const CLINIC = '510000401';
const OTHER_CLINIC = '510000402';
const NOTE = 'Intern: Rückruf beim Sozialdienst wegen Rollator, Zimmer 12 frei ab Montag';

describe("a clinic's shared workspace of its requests", () => {
  let stack: E2eStack;
  let referrer: string;
  let tom: string;
  let lea: string;
  let other: string;
  let tomId: string;
  let leaId: string;

  beforeAll(async () => {
    stack = await startE2eStack();
    await stack.registerClinic(CLINIC, 'Reha-Klinik Am Waldsee', ['2300']);
    await stack.registerClinic(OTHER_CLINIC, 'Rehazentrum Am Hang', ['2300']);
    await stack.createReferrer('hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    const team = await stack.createParty('clinic', 'Reha-Klinik Am Waldsee', [CLINIC]);
    tomId = await stack.createPerson(team, 'tom', 'Tom Becker');
    leaId = await stack.createPerson(team, 'lea', 'Lea Wolf');
    await stack.createClinicUser('am-hang', OTHER_CLINIC);
    [referrer, tom, lea, other] = await Promise.all([stack.login('hospital'), stack.login('tom'), stack.login('lea'), stack.login('am-hang')]);
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const send = async (identifier: string, occurrenceDate: string) => {
    const sent = await stack.api('POST', '/api/v2/fhir/Bundle', {
      token: referrer,
      body: admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC, OTHER_CLINIC], occurrenceDate }),
    });
    expect(sent.status).toBe(202);
  };
  const taskOf = (identifier: string, token: string) =>
    waitFor(
      async () =>
        (await stack.api<{ entry?: { resource: { id: string } }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token })).body
          .entry?.[0]?.resource.id,
      { what: 'the Task' },
    );
  const workspace = (taskId: string, token: string) => stack.api<Workspace>('GET', `/api/v1/clinic/tasks/${taskId}/workspace`, { token });
  const take = (taskId: string, token: string, body: { takeOver?: boolean } = {}) =>
    stack.api<Workspace & { error?: string }>('PUT', `/api/v1/clinic/tasks/${taskId}/assignee`, { token, body });
  const release = (taskId: string, token: string) => stack.api<Workspace & { error?: string }>('DELETE', `/api/v1/clinic/tasks/${taskId}/assignee`, { token });
  const marks = (taskId: string, token: string) => stack.api<Marks>('GET', `/api/v1/clinic/workspace?tasks=${taskId}`, { token });

  it('shows who took a request to a colleague, who may take it over; the holder releases it', async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    await send(identifier, '2027-03-01');
    const taskId = await taskOf(identifier, tom);
    expect((await workspace(taskId, lea)).body).toEqual({ taskId, version: 1, seen: false, internalNotes: [] });

    const taken = await take(taskId, tom);
    expect(taken.status).toBe(200);
    expect(taken.body.assignee).toEqual({ user: tomId, name: 'Tom Becker', since: expect.any(String) });
    // Taking it again changes nothing, not even since when.
    expect((await take(taskId, tom)).body.assignee).toEqual(taken.body.assignee);

    // Lea reads it and sees Tom; she cannot take it silently, nor release it for him.
    expect((await workspace(taskId, lea)).body.assignee).toEqual(taken.body.assignee);
    expect((await take(taskId, lea)).status).toBe(409);
    expect((await release(taskId, lea)).status).toBe(409);
    expect((await marks(taskId, lea)).body.items).toEqual([expect.objectContaining({ taskId, assignee: taken.body.assignee })]);

    const takenOver = await take(taskId, lea, { takeOver: true });
    expect(takenOver.status).toBe(200);
    expect(takenOver.body.assignee).toMatchObject({ user: leaId, name: 'Lea Wolf' });
    expect((await workspace(taskId, tom)).body.assignee).toMatchObject({ user: leaId, name: 'Lea Wolf' });

    expect((await release(taskId, tom)).status).toBe(409);
    const released = await release(taskId, lea);
    expect(released.status).toBe(200);
    expect(released.body.assignee).toBeUndefined();

    // Another clinic the request went to finds nothing of it.
    const others = await taskOf(identifier, other);
    expect(others).not.toBe(taskId);
    expect((await workspace(taskId, other)).status).toBe(404);
    expect((await take(taskId, other)).status).toBe(404);
    expect((await marks(taskId, other)).body.items).toEqual([]);
    expect((await workspace(others, other)).body.assignee).toBeUndefined();
  });

  it("keeps internal notes within the clinic: never in the referrer's Task or events", async () => {
    const subscription = await stack.api<{ id: string }>('POST', '/api/v1/subscriptions', {
      token: referrer,
      body: { eventType: 'AdmissionResponse', callbackUrl: 'https://klinikum-nord.example/hooks/admission' },
    });
    expect(subscription.status).toBe(201);
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    await send(identifier, '2027-03-02');
    const taskId = await taskOf(identifier, tom);

    const added = await stack.api<Workspace>('POST', `/api/v1/clinic/tasks/${taskId}/internal-notes`, { token: tom, body: { text: NOTE } });
    expect(added.status).toBe(201);
    const notes = await stack.api<{ total: number; items: Workspace['internalNotes'] }>('GET', `/api/v1/clinic/tasks/${taskId}/internal-notes`, { token: lea });
    expect(notes.body).toEqual({
      total: 1,
      items: [{ id: expect.any(String), time: expect.any(String), author: { user: tomId, name: 'Tom Becker' }, text: NOTE }],
    });
    expect((await stack.api('POST', `/api/v1/clinic/tasks/${taskId}/internal-notes`, { token: lea, body: { text: 'x'.repeat(2001) } })).status).toBe(400);
    expect((await stack.api('POST', `/api/v1/clinic/tasks/${taskId}/internal-notes`, { token: other, body: { text: 'fremd' } })).status).toBe(404);
    expect((await stack.api('GET', `/api/v1/clinic/tasks/${taskId}/internal-notes`, { token: other })).status).toBe(404);

    // The answer goes to the referrer as an event; the internal note goes nowhere.
    expect(
      (await stack.api('POST', `/api/v1/clinic/tasks/${taskId}/answer`, { token: lea, body: { businessStatus: 'accepted', note: 'Aufnahme möglich' } })).status,
    ).toBe(200);
    const events = await waitFor(
      async () => {
        const feed = await stack.api<{ items: { data: unknown }[] }>('GET', `/api/v1/subscriptions/${subscription.body.id}/events?since=0`, {
          token: referrer,
        });
        const text = JSON.stringify(feed.body);
        return text.includes('Aufnahme möglich') && text;
      },
      { what: "the answer's event" },
    );
    expect(events).not.toContain('Rollator');
    const referrersTask = await stack.api('GET', `/api/v2/fhir/Task/${taskId}`, { token: referrer });
    expect(referrersTask.status).toBe(200);
    expect(JSON.stringify(referrersTask.body)).toContain('Aufnahme möglich');
    expect(JSON.stringify(referrersTask.body)).not.toContain('Rollator');
    expect(JSON.stringify((await stack.api('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: referrer })).body)).not.toContain(
      'Rollator',
    );
    // Nor does the referrer reach the clinic's workspace.
    expect((await workspace(taskId, referrer)).status).toBe(403);
  });

  it('counts a version as seen by the clinic once one of its people opened it, until a new version comes', async () => {
    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    await send(identifier, '2027-03-03');
    const taskId = await taskOf(identifier, tom);
    const before = (await marks(taskId, lea)).body;
    expect(before.items).toEqual([{ taskId, version: 1, seen: false }]);
    expect(before.unseen).toBeGreaterThanOrEqual(1);

    expect((await stack.api('POST', `/api/v1/clinic/tasks/${taskId}/seen`, { token: tom, body: { version: 2 } })).status).toBe(409);
    const seen = await stack.api<Workspace>('POST', `/api/v1/clinic/tasks/${taskId}/seen`, { token: tom, body: { version: 1 } });
    expect(seen.status).toBe(200);
    expect(seen.body).toMatchObject({ version: 1, seenVersion: 1, seen: true });
    const after = (await marks(taskId, lea)).body;
    expect(after.items).toEqual([{ taskId, version: 1, seenVersion: 1, seen: true }]);
    expect(after.unseen).toBe(before.unseen - 1);
    // The other clinic's Task of the same request is not seen by this clinic's opening it.
    const others = await taskOf(identifier, other);
    expect((await workspace(others, other)).body.seen).toBe(false);

    // The referrer moves the desired date: a new version, new to the whole clinic again.
    await send(identifier, '2027-03-10');
    const moved = await waitFor(
      async () => {
        const now = (await workspace(taskId, lea)).body;
        return now.version === 2 && now;
      },
      { what: 'the new version' },
    );
    expect(moved).toMatchObject({ version: 2, seenVersion: 1, seen: false });
    expect((await marks(taskId, lea)).body.unseen).toBe(before.unseen);
    // An older version opened late changes nothing.
    expect((await stack.api<Workspace>('POST', `/api/v1/clinic/tasks/${taskId}/seen`, { token: lea, body: { version: 1 } })).body.seen).toBe(false);
    expect((await stack.api<Workspace>('POST', `/api/v1/clinic/tasks/${taskId}/seen`, { token: lea, body: { version: 2 } })).body.seen).toBe(true);
  });
});
