// The upgrade from release 1.0 (docs/compatibility.md, "1.1"; docs/parties.md, "Refresh tokens of
// release 1.0"), on what release 1.0's services wrote: a recording made by running them and driving
// them as clients do (tools/e2e/fixtures/release-1.0/README.md). Its four schemas and auth's keys in
// Redis are restored before this release's stack is provisioned, whose provisioning runs the
// migrations since 1.0 (auth's 0002_parties, intake's 0006_change_authors, …) as a rollout does;
// the stack then serves the 1.0 users, their live refresh tokens, requests, answer, subscription and
// audit trail, with 1.0's key-encryption key.
import { createHash } from 'node:crypto';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import type { AuditEvent, Bundle, Task } from '@medplum/fhirtypes';
import { loadConfig } from '@bedrequest/config';
import { waitFor } from '@bedrequest/testing';
import { AUDIT_CLI, openIntakeServices } from '../../apps/intake/src/cli';
import { IntakeCliConfig } from '../../apps/intake/src/config';
import { startE2eStack, type E2eStack } from './e2e-stack';
import type { RecordedUser } from './release-upgrade/recording';
import { readRecording, restoreRecording } from './release-upgrade/restore';

const recording = readRecording('1.0');
const { referrer, clinicUser, disabledUser } = recording;
const [answered] = recording.requests as [(typeof recording.requests)[number]];

interface TokenPair {
  accessToken: string;
  refreshToken: string;
  error?: string;
}
const claimsOf = (token: string) =>
  JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub: string; act?: { sub: string; name?: string } };

describe('an upgrade from release 1.0, on what its services wrote', () => {
  let stack: E2eStack;
  const sessions = new Map<string, string>();

  const login = (user: RecordedUser) => stack.api<TokenPair>('POST', '/api/v1/token/login', { body: { username: user.username, password: user.password } });
  const refresh = (refreshToken: string) => stack.api<TokenPair>('POST', '/api/v1/token/refresh', { body: { refreshToken } });
  /** An access token of the user, from a login of this test. */
  const tokenOf = async (user: RecordedUser) => {
    if (!sessions.has(user.username)) sessions.set(user.username, (await stack.stack.login(user.username, user.password)).accessToken);
    return sessions.get(user.username)!;
  };
  const auditEvents = async (identifier: string, user: RecordedUser) => {
    const answer = await stack.api<Bundle<AuditEvent>>('GET', `/api/v2/fhir/AuditEvent?entity=${encodeURIComponent(identifier)}&_count=100`, {
      token: await tokenOf(user),
    });
    expect(answer.status).toBe(200);
    return (answer.body.entry ?? []).map((entry) => entry.resource as AuditEvent);
  };
  const auditVerify = async () => {
    const lines: string[] = [];
    const code = await AUDIT_CLI.run(['audit', 'verify'], {
      open: () => openIntakeServices(loadConfig(IntakeCliConfig, stack.env)),
      out: (line) => lines.push(line),
      err: (line) => lines.push(line),
    });
    return { code, out: lines.join('\n') };
  };

  beforeAll(async () => {
    stack = await startE2eStack({ DATA_KEK: recording.keys.DATA_KEK }, 'in-process', undefined, { prepare: (env) => restoreRecording('1.0', env) });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it('logs each 1.0 user in with its old id as the party (sub) and as the person (act.sub), and refuses the disabled one', async () => {
    for (const user of [referrer, clinicUser]) {
      const answer = await login(user);
      expect(answer.status).toBe(200);
      // 0002_parties: the party takes the user's id, the display name is the username.
      expect(claimsOf(answer.body.accessToken)).toMatchObject({ sub: user.id, act: { sub: user.id, name: user.username } });
    }
    const refused = await login(disabledUser);
    expect([refused.status, refused.body.error]).toEqual([401, 'invalid_credentials']);
  });

  it("refreshes the live refresh tokens 1.0 issued, with a pair naming the user's old id and act; the disabled user's answers 401 invalid_refresh_token", async () => {
    // Each is in Redis as 1.0 left it, so that the 401 below is the disabled user's and not a token lost on the way.
    const redis = new Redis(stack.env.REDIS_URL ?? 'redis://127.0.0.1:6379');
    try {
      for (const user of [referrer, clinicUser, disabledUser]) {
        const key = `${stack.env.REDIS_KEY_PREFIX}auth:refresh:token:${createHash('sha256').update(user.refreshToken).digest('hex')}`;
        expect(await redis.hgetall(key)).toMatchObject({ userId: user.id, state: 'active' });
      }
    } finally {
      redis.disconnect();
    }

    for (const user of [referrer, clinicUser]) {
      const refreshed = await refresh(user.refreshToken);
      expect(refreshed.status).toBe(200);
      expect(claimsOf(refreshed.body.accessToken)).toMatchObject({ sub: user.id, act: { sub: user.id } });
      expect(refreshed.body.refreshToken).not.toBe(user.refreshToken);
      expect((await refresh(refreshed.body.refreshToken)).status).toBe(200);
    }
    const refused = await refresh(disabledUser.refreshToken);
    expect([refused.status, refused.body.error]).toEqual([401, 'invalid_refresh_token']);
  });

  it('shows the referrer its 1.0 requests with the clinic’s answer, and its subscription with its secret', async () => {
    const token = await tokenOf(referrer);
    for (const request of recording.requests) {
      const search = await stack.api<Bundle<Task>>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(request.identifier)}`, { token });
      expect(search.body.entry?.map((entry) => entry.resource?.id)).toEqual([request.taskId]);
    }
    const task = await stack.api<Task>('GET', `/api/v2/fhir/Task/${answered.taskId}`, { token });
    expect(task.body.businessStatus?.coding?.[0]?.code).toBe(answered.answer?.businessStatus);
    expect(task.body.note?.map((note) => note.text)).toEqual([answered.answer?.note]);
    expect((await stack.api<Bundle<Task>>('GET', '/api/v2/fhir/Task?_summary=count', { token })).body.total).toBe(recording.requests.length);

    const { subscription } = recording;
    const listed = await stack.api<{ items: { id: string; callbackUrl: string }[] }>('GET', '/api/v1/subscriptions', { token });
    expect(listed.body.items).toEqual([expect.objectContaining({ id: subscription.id, callbackUrl: subscription.callbackUrl })]);
    // What the notifier sealed with 1.0's key opens.
    expect((await stack.api<{ secret: string }>('GET', `/api/v1/subscriptions/${subscription.id}`, { token })).body.secret).toBe(subscription.secret);
  });

  it('shows the clinic its Tasks and its answer, and the request and document it was sent', async () => {
    const token = await tokenOf(clinicUser);
    const list = await stack.api<{ items: { id: string; businessStatus?: string }[] }>('GET', '/api/v1/clinic/tasks', { token });
    expect(list.body.items.map((item) => [item.id, item.businessStatus]).sort()).toEqual(
      recording.requests.map((request) => [request.taskId, request.answer?.businessStatus]).sort(),
    );
    // What intake sealed with 1.0's key opens.
    const versions = await stack.api<{ items: { bundle: unknown }[] }>('GET', `/api/v1/clinic/tasks/${answered.taskId}/versions`, { token });
    expect(versions.body.items).toHaveLength(1);
    expect(JSON.stringify(versions.body.items[0]?.bundle)).toContain(answered.identifier);
    const documents = await stack.api<{ total: number; items: unknown[] }>('GET', `/api/v1/clinic/tasks/${answered.taskId}/documents`, { token });
    expect(documents.body.total).toBe(1);
    expect(JSON.stringify(documents.body.items)).toContain(Buffer.from(answered.document ?? '', 'utf8').toString('base64'));
  });

  it('keeps the 1.0 audit trail readable, its entries naming the 1.0 users by their ids, and its chains and anchors verify', async () => {
    const changes = (events: AuditEvent[]) =>
      events
        .filter((event) => event.action === 'C' || event.action === 'U')
        .map((event) => ({ action: event.action, ik: event.agent[0]?.who?.identifier?.value, altId: event.agent[0]?.altId }));
    const { ik } = recording.clinic;
    expect(changes(await auditEvents(answered.identifier, referrer))).toEqual(
      expect.arrayContaining([
        { action: 'C', ik: referrer.ikNumbers[0], altId: referrer.id },
        { action: 'U', ik, altId: undefined },
      ]),
    );
    expect(changes(await auditEvents(answered.identifier, clinicUser))).toEqual([{ action: 'U', ik, altId: clinicUser.id }]);

    // Intake anchors the ended days of 1.0's trail as it starts, with the key 1.0 anchored its own with.
    let verified = await auditVerify();
    await waitFor(async () => (verified = await auditVerify()).code === 0, { timeoutMs: 15_000, what: 'audit verify' }).catch(() => undefined);
    expect(verified).toMatchObject({ code: 0, out: expect.stringMatching(/^the audit trail is intact: \d+ entries of \d+ days? checked$/) });
  });

  it("names the 1.0 referrer as who sent each of its versions and documents (intake's migration 0006_change_authors)", async () => {
    const client = new Client({ connectionString: stack.env.DATABASE_URL });
    await client.connect();
    try {
      const schema = client.escapeIdentifier(stack.env.INTAKE_DB_SCHEMA!);
      const { rows } = await client.query<{ identifier: string; kind: string; submitted_by: string | null }>(
        `SELECT r.identifier, 'version' AS kind, v.submitted_by FROM ${schema}.request_version v JOIN ${schema}.admission_request r ON r.id = v.request_id
         UNION ALL
         SELECT r.identifier, 'document', d.submitted_by FROM ${schema}.request_document d JOIN ${schema}.admission_request r ON r.id = d.request_id`,
      );
      const sent = recording.requests.flatMap((request) => [
        { identifier: request.identifier, kind: 'version', submitted_by: referrer.id },
        ...(request.document ? [{ identifier: request.identifier, kind: 'document', submitted_by: referrer.id }] : []),
      ]);
      const inOrder = (entries: { identifier: string; kind: string }[]) => entries.map((entry) => JSON.stringify(entry)).sort();
      expect(inOrder(rows)).toEqual(inOrder(sent));
    } finally {
      await client.end();
    }
  });
});
