// The client that records release 1.0's stack (tools/e2e/fixtures/release-1.0/README.md). Not a test
// of this release: record-1.0.mjs copies it into a worktree of release 1.0 as
// tools/e2e/release-upgrade/record-1.0.int.spec.ts, with recording.ts beside it, and runs it there
// with that release's jest, so that `../e2e-stack` and every module it reaches are release 1.0's.
//
// It starts 1.0's stack in-process on schemas named RECORDED_SCHEMA_PREFIX + service (a Redis key
// prefix and a broker namespace of its own, as every e2e stack), drives it as its clients did
// (users made with its admin command line, logins and a refresh, two requests, a subscription, a
// clinic's answer and a document), waits until every service has done its part, stops the services
// and writes what they left to RELEASE_FIXTURE_OUT: a pg_dump of each service's schema, auth's keys
// in Redis, and recording.json.
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Redis } from 'ioredis';
import { admissionRequestBundle, documentBundle, FIXTURE_FHIR_BASE, FIXTURE_PERFORMER_IKS, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { WebhookReceiver, waitFor } from '@bedrequest/testing';
import { passwordOf, startE2eStack, type E2eStack } from '../e2e-stack';
import { RECORDED_SCHEMA_PREFIX, RECORDING_DATA_KEK, SCHEMA_SERVICES, type RecordedRedisKey, type RecordedUser, type Recording } from './recording';

const run = promisify(execFile);
const out = process.env.RELEASE_FIXTURE_OUT ?? '';
const [CLINIC_IK] = FIXTURE_PERFORMER_IKS as unknown as [string];
const CLINIC = { ik: CLINIC_IK, name: 'Reha-Klinik Am Waldsee', departments: ['2300'] };

describe('release 1.0, recorded', () => {
  let stack: E2eStack;
  const receiver = new WebhookReceiver();

  afterAll(async () => {
    await receiver.stop();
    await stack?.stop();
  });

  it('drives the stack as its clients do and writes what it stored', async () => {
    if (!out) throw new Error('RELEASE_FIXTURE_OUT names no folder: run tools/e2e/release-upgrade/record-1.0.mjs');
    const schemaOf = (service: string) => `${RECORDED_SCHEMA_PREFIX}${service}`;
    stack = await startE2eStack({
      AUTH_DB_SCHEMA: schemaOf('auth'),
      INTAKE_DB_SCHEMA: schemaOf('intake'),
      ROUTING_DB_SCHEMA: schemaOf('routing'),
      NOTIFIER_DB_SCHEMA: schemaOf('notifier'),
      DATA_KEK: RECORDING_DATA_KEK,
    });
    await receiver.start();
    const ok = (what: string, status: number, expected: number) => {
      if (status !== expected) throw new Error(`${what} answered ${status}, not ${expected}`);
    };

    await stack.registerClinic(CLINIC.ik, CLINIC.name, CLINIC.departments);
    const create = async (role: 'referrer' | 'clinic', username: string, ikNumbers: string[], fhirBase?: string) => {
      const options = role === 'referrer' ? ['--ik', ikNumbers.join(','), '--fhir-base', fhirBase!] : ['--ik', ikNumbers[0]!];
      const printed = await stack.admin('user', 'create', '--role', role, '--username', username, '--password', passwordOf(username), ...options);
      const id = /\(id ([^)]+)\)/.exec(printed)?.[1];
      if (!id) throw new Error(`user create printed no id: ${printed}`);
      const session = await stack.stack.login(username, passwordOf(username));
      if (session.partyId !== id) throw new Error(`${username}'s token names ${session.partyId}, not its id ${id}`);
      return { username, password: passwordOf(username), id, role, ikNumbers, disabled: false, refreshToken: session.refreshToken, session };
    };
    const referrer = await create('referrer', 'release-1-0-referrer', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    const clinicUser = await create('clinic', 'release-1-0-clinic', [CLINIC.ik]);
    const disabledUser = await create('referrer', 'release-1-0-former', ['260000002'], 'https://former-hospital.example/fhir');
    await stack.admin('user', 'disable', '--username', disabledUser.username);
    // A client that refreshed once: its first token is used, the one kept is its successor.
    const refreshed = await stack.api<{ refreshToken: string }>('POST', '/api/v1/token/refresh', { body: { refreshToken: referrer.refreshToken } });
    ok('the refresh', refreshed.status, 200);
    referrer.refreshToken = refreshed.body.refreshToken;
    const [hospital, clinic] = [referrer.session.accessToken, clinicUser.session.accessToken];

    const subscription = await stack.api<{ id: string; secret: string }>('POST', '/api/v1/subscriptions', {
      token: hospital,
      body: { eventType: 'AdmissionResponse', callbackUrl: receiver.url },
    });
    ok('the subscription', subscription.status, 201);
    receiver.secret = subscription.body.secret;

    const identifiers = [randomUUID(), randomUUID()].map((id) => `${FIXTURE_FHIR_BASE}/ServiceRequest/${id}`);
    const taskIds: string[] = [];
    for (const identifier of identifiers) {
      const bundle = admissionRequestBundle({ requestIdentifier: identifier, performerIks: [CLINIC.ik], notes: ['Mobilisation an Unterarmgehstützen'] });
      ok('a request', (await stack.api('POST', '/api/v2/fhir/Bundle', { token: hospital, body: bundle })).status, 202);
      const search = `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`;
      type Tasks = { entry?: { resource: { id: string } }[] };
      taskIds.push(await waitFor(async () => (await stack.api<Tasks>('GET', search, { token: hospital })).body.entry?.[0]?.resource.id, { what: 'its Task' }));
    }

    const [answered] = taskIds as [string];
    const answer = { businessStatus: 'accepted' as const, note: 'Aufnahme am Montag möglich, bitte mit Medikationsplan.' };
    ok('the answer', (await stack.api('POST', `/api/v1/clinic/tasks/${answered}/answer`, { token: clinic, body: answer })).status, 200);
    const letter = 'Entlassbrief: Zustand nach Hüft-TEP, Wundheilung regelrecht.';
    const documents = documentBundle({ requestIdentifier: identifiers[0]!, documents: [{ contentType: 'text/plain', text: letter }] });
    ok('the document', (await stack.api('POST', '/api/v2/fhir/Bundle', { token: hospital, body: documents })).status, 202);

    // Every service has done its part before it stops: the notifier delivered the answer, intake
    // stored the document, routing logged both requests.
    await waitFor(() => receiver.accepted().length > 0, { timeoutMs: 20_000, what: "the answer's webhook" });
    const stored = `/api/v1/clinic/tasks/${answered}/documents`;
    await waitFor(async () => (await stack.api<{ total: number }>('GET', stored, { token: clinic })).body.total === 1, { what: 'the document' });
    await waitFor(
      async () => {
        const log = await stack.admin('clinic', 'notifications', '--ik', CLINIC.ik);
        return taskIds.every((taskId) => log.includes(taskId));
      },
      { what: "routing's notifications" },
    );

    for (const instance of stack.stack.instances().reverse()) await stack.stack.stopInstance(instance.name);
    mkdirSync(out, { recursive: true });
    for (const service of SCHEMA_SERVICES) writeFileSync(join(out, `${service}.sql`), await dumpSchema(stack.env.DATABASE_URL!, schemaOf(service)));
    writeFileSync(join(out, 'auth-redis.json'), `${JSON.stringify(await authKeys(stack.env), null, 2)}\n`);

    const user = ({ session: _session, ...recorded }: RecordedUser & { session: unknown }): RecordedUser => recorded;
    const recording: Recording = {
      release: '1.0',
      commit: process.env.RELEASE_COMMIT ?? '',
      recordedAt: new Date().toISOString(),
      schemaPrefix: RECORDED_SCHEMA_PREFIX,
      keys: { DATA_KEK: RECORDING_DATA_KEK },
      clinic: CLINIC,
      referrer: user(referrer),
      clinicUser: user(clinicUser),
      disabledUser: user({ ...disabledUser, disabled: true }),
      requests: [
        { identifier: identifiers[0]!, taskId: taskIds[0]!, answer, document: letter },
        { identifier: identifiers[1]!, taskId: taskIds[1]! },
      ],
      subscription: { id: subscription.body.id, eventType: 'AdmissionResponse', callbackUrl: receiver.url, secret: subscription.body.secret },
    };
    writeFileSync(join(out, 'recording.json'), `${JSON.stringify(recording, null, 2)}\n`);
  }, 300_000);
});

/**
 * One schema as plain SQL, without owners or grants (the upgraded stack's provisioning gives its
 * own), rows as INSERTs with column names, so that any client runs it; psql's `\restrict` lines
 * (pg_dump 15.14 and later) are left out for that reason.
 */
async function dumpSchema(databaseUrl: string, schema: string): Promise<string> {
  const { stdout } = await run('pg_dump', ['--dbname', databaseUrl, '--schema', schema, '--no-owner', '--no-privileges', '--column-inserts'], {
    maxBuffer: 64 * 1024 * 1024,
  });
  return stdout
    .split('\n')
    .filter((line) => !/^\\(un)?restrict /.test(line))
    .join('\n');
}

/** Auth's keys in Redis (refresh tokens, their families, the login throttle's), each with its value and what is left of its lifetime. */
async function authKeys(env: Record<string, string>): Promise<RecordedRedisKey[]> {
  const prefix = env.REDIS_KEY_PREFIX ?? '';
  const redis = new Redis(env.REDIS_URL ?? 'redis://127.0.0.1:6379', { lazyConnect: true });
  await redis.connect();
  try {
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}auth:*`, 'COUNT', 1000);
      keys.push(...found);
      cursor = next;
    } while (cursor !== '0');
    const recorded: RecordedRedisKey[] = [];
    for (const name of keys.sort()) {
      const key = name.slice(prefix.length);
      const ttlMs = await redis.pttl(name);
      const type = await redis.type(name);
      if (type === 'string') recorded.push({ key, type, value: (await redis.get(name)) ?? '', ttlMs });
      else if (type === 'hash') recorded.push({ key, type, value: await redis.hgetall(name), ttlMs });
      else if (type === 'set') recorded.push({ key, type, value: (await redis.smembers(name)).sort(), ttlMs });
      else if (type === 'list') recorded.push({ key, type, value: await redis.lrange(name, 0, -1), ttlMs });
      else if (type === 'zset') {
        const flat = await redis.zrange(name, '0', '-1', 'WITHSCORES');
        const pairs: [string, string][] = [];
        for (let index = 0; index < flat.length; index += 2) pairs.push([flat[index]!, flat[index + 1]!]);
        recorded.push({ key, type, value: pairs, ttlMs });
      } else throw new Error(`auth's key ${key} is a ${type}, which the recording does not know`);
    }
    return recorded;
  } finally {
    redis.disconnect();
  }
}
