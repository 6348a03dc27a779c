// `npm run sandbox` as an integrator runs it (docs/sandbox.md): `node tools/sandbox.mjs` in a child
// process, built beforehand (SKIP_BUILD), on ports and in a namespace of the test's own. It starts
// the stack, registers the demo parties, prints what an integrator needs, answers with the sandbox
// header, its clinics answer by the shipped rules file, it stops on SIGTERM, a second start finds
// everything registered, and `--reset` removes it. Refusals come before anything starts.
import { spawn, type ChildProcess } from 'node:child_process';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { join, relative } from 'node:path';
import { Client } from 'pg';
import { buildServices, removeKeptNamespace, root } from '@bedrequest/stack';
import { testEnvironment, uniqueName, waitFor } from '@bedrequest/testing';
import { freeServicePorts } from './service-ports';
import { clientAssertion, clientTokenForm, type TestClientKey } from './client-assertion';

interface Run {
  readonly child: ChildProcess;
  output: string;
  readonly exited: Promise<number | null>;
}

describe('npm run sandbox', () => {
  const run = testEnvironment();
  const namespace = uniqueName('sandbox');
  // A fresh clone has no tmp/ until something makes it.
  mkdirSync(join(root, 'tmp'), { recursive: true });
  const directory = mkdtempSync(join(root, 'tmp', 'sandbox-launcher-'));
  let env: NodeJS.ProcessEnv;
  let gatewayUrl: string;
  const runs: Run[] = [];

  /** `npm run sandbox -- …args` with the test's environment (and `extra` on top). */
  const sandbox = (args: string[] = [], extra: NodeJS.ProcessEnv = {}): Run => {
    const child = spawn(process.execPath, [join(root, 'tools', 'sandbox.mjs'), ...args], {
      cwd: root,
      env: { ...env, ...extra },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const started: Run = { child, output: '', exited: new Promise((resolve) => child.once('exit', (code) => resolve(code))) };
    child.stdout!.on('data', (chunk: Buffer) => (started.output += chunk.toString()));
    child.stderr!.on('data', (chunk: Buffer) => (started.output += chunk.toString()));
    runs.push(started);
    return started;
  };
  const ready = async (started: Run) => {
    await waitFor(() => started.output.includes('Ctrl-C stops the sandbox') || started.child.exitCode !== null, {
      timeoutMs: 180_000,
      intervalMs: 200,
      what: 'the sandbox to say it is ready',
    });
    expect(started.child.exitCode).toBeNull();
    return started.output;
  };
  const stop = async (started: Run) => {
    started.child.kill('SIGTERM');
    expect(await started.exited).toBe(0);
    expect(started.output).toContain('[sandbox]  stopped');
  };
  const printed = (output: string, label: string) => new RegExp(`^\\[sandbox\\] {4}${label} +(.*)$`, 'm').exec(output)?.[1];

  beforeAll(async () => {
    buildServices();
    env = {
      ...process.env,
      ...(await freeServicePorts()),
      SANDBOX_NAMESPACE: namespace,
      SANDBOX_DIR: directory,
      SKIP_BUILD: '1',
      NO_COLOR: '1',
      LOG_LEVEL: 'warn',
    };
    gatewayUrl = `http://127.0.0.1:${env.PORT}`;
  }, 300_000);

  afterAll(async () => {
    // After a failure: SIGTERM, so that the sandbox stops its services (each in a process group of its own).
    for (const started of runs.filter((each) => each.child.exitCode === null)) {
      started.child.kill('SIGTERM');
      const force = setTimeout(() => started.child.kill('SIGKILL'), 30_000);
      await started.exited;
      clearTimeout(force);
    }
    await removeKeptNamespace({ ...process.env, AMQP_NAMESPACE: namespace, ...schemasOf(namespace), REDIS_KEY_PREFIX: `${run.redisKeyPrefix}${namespace}:` });
    rmSync(directory, { recursive: true, force: true });
  }, 60_000);

  it('refuses NODE_ENV=production and an unknown option before anything starts', async () => {
    const production = sandbox([], { NODE_ENV: 'production' });
    expect(await production.exited).toBe(1);
    expect(production.output.trim()).toBe(
      '[sandbox]  the sandbox is for development and integration tests (its passwords are public); refusing with NODE_ENV=production',
    );
    const unknown = sandbox(['--rest']);
    expect(await unknown.exited).toBe(1);
    expect(unknown.output.trim()).toBe('[sandbox]  unknown option --rest (npm run sandbox takes --reset alone)');
  }, 60_000);

  it('starts, prints what an integrator needs, marks its answers, answers by the shipped rules, and stops on SIGTERM', async () => {
    const first = sandbox();
    const output = await ready(first);
    expect(output).toContain(`[sandbox]  The sandbox is ready at ${gatewayUrl} (every answer carries Bedrequest-Environment: sandbox)`);
    expect(printed(output, 'API')).toContain(`${gatewayUrl}   FHIR base ${gatewayUrl}/api/v2/fhir`);
    expect(printed(output, 'web app')).toBe(`http://127.0.0.1:${env.WEB_PORT}/inbox/`);
    expect(printed(output, 'referrer')).toBe(`username sandbox-referrer   password sandbox-referrer-password   (POST ${gatewayUrl}/api/v1/token/login)`);
    const clientId = /^client id (\S+) {3}RS384, kid (\S+)$/.exec(printed(output, 'SMART client') ?? '');
    expect(clientId?.[1]).toMatch(/^[0-9a-f-]{36}$/);
    const kept = relative(root, directory);
    expect(printed(output, 'private key')).toBe(
      `${kept}/referrer-client.key.pem   (public JWKS ${kept}/referrer-client.jwks.json; client id and kid in ${kept}/referrer-client.json)`,
    );
    // The same for scripts (docs/integration.md reads it).
    expect(JSON.parse(readFileSync(join(directory, 'referrer-client.json'), 'utf8'))).toEqual({
      clientId: clientId?.[1],
      kid: clientId?.[2],
      algorithm: 'RS384',
      tokenEndpoint: `${gatewayUrl}/api/v1/token/oauth2`,
      privateKeyFile: join(directory, 'referrer-client.key.pem'),
      jwksFile: join(directory, 'referrer-client.jwks.json'),
    });
    expect(printed(output, 'token endpoint')).toBe(`${gatewayUrl}/api/v1/token/oauth2`);
    expect(printed(output, 'rules file')).toMatch(/^tools\/sandbox\/clinics\.json {3}/);
    expect(output.match(/^\[sandbox\] {4}clinic 51000000\d /gm)).toHaveLength(5);

    // Every answer says it is the sandbox's, a 404 too.
    for (const path of ['/api/v1/token/status', '/api/v2/fhir/metadata', '/no/such/path']) {
      expect((await fetch(`${gatewayUrl}${path}`)).headers.get('bedrequest-environment')).toBe('sandbox');
    }

    // The SMART client gets a token with the printed key file at the printed token endpoint.
    const privateKey = createPrivateKey(readFileSync(join(directory, 'referrer-client.key.pem')));
    const key: TestClientKey = { alg: 'RS384', kid: clientId![2]!, privateKey, publicKey: createPublicKey(privateKey), jwk: {} };
    const tokenEndpoint = `${gatewayUrl}/api/v1/token/oauth2`;
    const token = await fetch(tokenEndpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: clientTokenForm(clientAssertion(clientId![1]!, tokenEndpoint, key)),
    });
    expect(token.status).toBe(200);
    const accessToken = ((await token.json()) as { access_token: string }).access_token;

    // docs/examples/admission-request.json as it stands, to the first two demo clinics: orthopaedics
    // on a date less than 7 days ahead is declined with the reason, the other clinic asks a query.
    const example = readFileSync(join(root, 'docs', 'examples', 'admission-request.json'), 'utf8');
    const sent = await fetch(`${gatewayUrl}/api/v2/fhir/Bundle`, {
      method: 'POST',
      headers: { authorization: `Bearer ${accessToken}`, 'content-type': 'application/fhir+json' },
      body: example,
    });
    expect(sent.status).toBe(202);
    const answers = await waitFor(
      async () => {
        const search = await fetch(`${gatewayUrl}/api/v2/fhir/Task`, { headers: { authorization: `Bearer ${accessToken}` } });
        const tasks =
          ((await search.json()) as { entry?: { resource: { owner: { identifier: { value: string } }; businessStatus?: { coding: { code: string }[] } } }[] })
            .entry ?? [];
        const codes = Object.fromEntries(tasks.map(({ resource }) => [resource.owner.identifier.value, resource.businessStatus?.coding[0]?.code]));
        return codes['510000001'] && codes['510000002'] ? codes : undefined;
      },
      { what: 'the demo clinics to answer', timeoutMs: 20_000, intervalMs: 250 },
    );
    expect(answers).toEqual({ '510000001': 'declined', '510000002': 'query' });
    expect(first.output).toMatch(/^\[clinics\] {2}510000001 sandbox-orthopaedics: Task \S+ \(version 1\) answered declined by rule 1$/m);

    await stop(first);
  }, 300_000);

  it('finds everything registered on a second start, and --reset removes it while it is stopped', async () => {
    const before = readFileSync(join(directory, 'referrer-client.key.pem'), 'utf8');
    const firstClientId = /client id (\S+)/.exec(runs.find((each) => each.output.includes('client id'))?.output ?? '')?.[1];
    const second = sandbox();
    const output = await ready(second);
    expect(/client id (\S+)/.exec(output)?.[1]).toBe(firstClientId);
    expect(readFileSync(join(directory, 'referrer-client.key.pem'), 'utf8')).toBe(before);
    // While it runs, --reset refuses.
    const refused = sandbox(['--reset']);
    expect(await refused.exited).toBe(1);
    expect(refused.output).toContain(`[sandbox]  a sandbox answers at ${gatewayUrl}: stop it first (Ctrl-C), then reset`);
    await stop(second);

    expect(await schemasLeft(run.databaseUrl, namespace)).toEqual([
      `${namespace}_auth`,
      `${namespace}_intake`,
      `${namespace}_notifier`,
      `${namespace}_routing`,
    ]);
    const reset = sandbox(['--reset']);
    expect(await reset.exited).toBe(0);
    expect(reset.output).toContain(`[sandbox]  removing the sandbox "${namespace}"`);
    expect(await schemasLeft(run.databaseUrl, namespace)).toEqual([]);
  }, 300_000);
});

function schemasOf(namespace: string): Record<string, string> {
  return Object.fromEntries(['AUTH', 'INTAKE', 'ROUTING', 'NOTIFIER'].map((service) => [`${service}_DB_SCHEMA`, `${namespace}_${service.toLowerCase()}`]));
}

async function schemasLeft(databaseUrl: string, namespace: string): Promise<string[]> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ nspname: string }>('SELECT nspname FROM pg_namespace WHERE nspname LIKE $1 ORDER BY nspname', [`${namespace}\\_%`]);
    return rows.map((row) => row.nspname);
  } finally {
    await client.end();
  }
}
