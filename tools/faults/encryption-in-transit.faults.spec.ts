import { chmodSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import { Client } from 'pg';
import { Agent, fetch as fetchWith } from 'undici';
import { WebhookReceiver, waitFor } from '@bedrequest/testing';
import { CLINIC, FaultFixture } from './support/fault-fixture';
import { reportFigures, seconds } from './support/figures';
import { bundleSource, postBundle } from './support/load';
import { issueServerCertificate, makeCa, TlsPostgres, TlsRabbitMq, TlsRedis, type CertificateFiles } from './support/tls-servers';

/**
 * Encryption in transit (docs/operations.md, "Encryption in transit"): PostgreSQL, Redis and
 * RabbitMQ of the test's own that take TLS connections only, with certificates of a CA the test
 * makes. Proved: provisioning and every service connect with TLS_CA_FILE, verifying each server
 * (sslmode=verify-full, rediss, amqps), and a bundle goes end to end; a service given another CA
 * stops at start with one line per server naming what failed; a JWKS served over https with a
 * certificate of another CA is refused, the same keys served by auth with its own certificate are taken.
 */
describe('encrypted in transit: PostgreSQL, Redis and RabbitMQ with TLS only', () => {
  let folder: string;
  let ca: CertificateFiles;
  let impostorCa: CertificateFiles;
  let postgres: TlsPostgres | undefined;
  let redis: TlsRedis | undefined;
  let rabbitmq: TlsRabbitMq | undefined;
  let faults: FaultFixture | undefined;
  const figures: string[] = [];

  beforeAll(async () => {
    folder = mkdtempSync(join(tmpdir(), 'tls-'));
    // PostgreSQL's and RabbitMQ's users reach their folders below it.
    chmodSync(folder, 0o755);
    ca = makeCa(folder, 'bedrequest-test-ca');
    impostorCa = makeCa(folder, 'impostor-ca');
    const server = issueServerCertificate(folder, 'server', ca);
    const startedAt = Date.now();
    const started = await Promise.allSettled([TlsPostgres.start(folder, server), TlsRedis.start(folder, server, ca), TlsRabbitMq.start(server, ca)]);
    if (started[0].status === 'fulfilled') postgres = started[0].value;
    if (started[1].status === 'fulfilled') redis = started[1].value;
    if (started[2].status === 'fulfilled') rabbitmq = started[2].value;
    const failed = started.find((result) => result.status === 'rejected');
    if (failed) throw failed.reason;
    figures.push(`servers up in ${seconds(Date.now() - startedAt)}`);
  }, 180_000);

  afterAll(async () => {
    reportFigures('encrypted in transit', figures.join('; '));
    await faults?.stop().catch(() => undefined);
    delete process.env.TLS_CA_FILE;
    postgres?.stop();
    redis?.stop();
    await rabbitmq?.stop();
    rmSync(folder, { recursive: true, force: true });
  }, 120_000);

  it('refuses PostgreSQL connections without TLS', async () => {
    const plain = new Client({ connectionString: postgres!.adminUrl(ca.certFile).replace(/\?.*$/, '?sslmode=disable') });
    plain.on('error', () => undefined);
    await expect(plain.connect()).rejects.toThrow(/no pg_hba\.conf entry .*no encryption/);
  });

  it('provisions and runs the stack over TLS, each server verified: a bundle goes end to end', async () => {
    const startedAt = Date.now();
    // Provisioning runs in this process (the launcher's), and reads TLS_CA_FILE from its environment
    // as the provisioning job does from its own.
    process.env.TLS_CA_FILE = ca.certFile;
    faults = await FaultFixture.start('tls', {
      DATABASE_URL: postgres!.adminUrl(ca.certFile),
      AMQP_URL: rabbitmq!.adminUrl,
      REDIS_URL: redis!.adminUrl,
      RABBITMQCTL: rabbitmq!.rabbitmqctl,
      TLS_CA_FILE: ca.certFile,
      DATABASE_POOL_SIZE: '3',
    });
    figures.push(`stack provisioned and up in ${seconds(Date.now() - startedAt)}`);
    const receiver = new WebhookReceiver();
    await receiver.start();
    try {
      const endToEndAt = Date.now();
      const clinic = await faults.login(CLINIC.username, CLINIC.password);
      const call = async <T>(method: string, path: string, token: string, body?: unknown) => {
        const response = await fetch(`${faults!.gatewayUrl}${path}`, {
          method,
          headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        return { status: response.status, body: (await response.json().catch(() => undefined)) as T };
      };
      const subscribed = await call<{ secret: string }>('POST', '/api/v1/subscriptions', faults.referrer.token, {
        eventType: 'AdmissionResponse',
        callbackUrl: receiver.url,
      });
      expect(subscribed.status).toBe(201);
      receiver.secret = subscribed.body.secret;

      const bundle = bundleSource(faults.referrer, [CLINIC.ik]).next();
      expect((await postBundle(faults.gatewayUrl, faults.referrer.token, bundle)).status).toBe(202);
      const taskId = await waitFor(
        async () =>
          (await call<{ entry?: { resource: { id: string } }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(bundle.identifier)}`, clinic.token))
            .body.entry?.[0]?.resource.id,
        { timeoutMs: 30_000, intervalMs: 200, what: "the clinic's Task" },
      );
      expect([200, 202]).toContain((await call('POST', `/api/v1/clinic/tasks/${taskId}/answer`, clinic.token, { businessStatus: 'accepted' })).status);
      const webhook = await waitFor(() => receiver.received.find((each) => each.verified), { timeoutMs: 30_000, intervalMs: 100, what: 'the webhook' });
      expect(JSON.stringify(webhook.body)).toContain(bundle.identifier);
      figures.push(`bundle to webhook ${seconds(Date.now() - endToEndAt)}`);
    } finally {
      await receiver.stop();
    }

    // Every service's own user is connected, and every connection is encrypted.
    const plan = faults.stack.plan!;
    const admin = new Client({ connectionString: postgres!.adminUrl(ca.certFile) });
    await admin.connect();
    const { rows } = await admin.query<{ usename: string; ssl: boolean }>(
      `SELECT DISTINCT a.usename, s.ssl FROM pg_stat_activity a JOIN pg_stat_ssl s USING (pid) WHERE a.backend_type = 'client backend' ORDER BY 1`,
    );
    await admin.end();
    expect(rows.filter((row) => !row.ssl)).toEqual([]);
    expect(rows.map((row) => row.usename)).toEqual(expect.arrayContaining(plan.database.map((principal) => principal.app)));
    const connections = JSON.parse(await rabbitmq!.node.ctl('list_connections', '--quiet', '--formatter', 'json', 'user', 'ssl')) as {
      user: string;
      ssl: boolean;
    }[];
    expect(connections.filter((connection) => !connection.ssl)).toEqual([]);
    expect(connections.map((connection) => connection.user)).toEqual(expect.arrayContaining(plan.broker.map((principal) => principal.user)));
    const redisAdmin = new Redis(redis!.adminUrl, { tls: { ca: readFileSync(ca.certFile, 'utf8') }, lazyConnect: true, maxRetriesPerRequest: 1 });
    await redisAdmin.connect();
    const clients = String(await redisAdmin.call('CLIENT', 'LIST'));
    redisAdmin.disconnect();
    for (const principal of plan.redis) expect(clients).toContain(`user=${principal.user} `);
  }, 240_000);

  it('stops a service given another CA at start, with one line per server naming it and the CA', async () => {
    const stack = faults!.stack;
    const auth = stack.plan!.database.find((principal) => principal.service === 'auth')!;
    // Without sslrootcert in the URL, PostgreSQL is verified with TLS_CA_FILE as well.
    const authDatabaseUrl = `postgresql://${auth.app}:${auth.password}@127.0.0.1:${postgres!.port}/bedrequest?sslmode=verify-full`;
    const cases = [
      { service: 'gateway', env: {}, servers: ['RabbitMQ'] },
      { service: 'web', env: {}, servers: ['Redis'] },
      { service: 'auth', env: { DATABASE_URL: authDatabaseUrl }, servers: ['PostgreSQL', 'Redis'] },
    ] as const;
    for (const { service, env, servers } of cases) {
      const name = `${service}-other-ca`;
      const startedAt = Date.now();
      await stack.start(name, service, { env: { ...env, TLS_CA_FILE: impostorCa.certFile, STARTUP_TIMEOUT_MS: '30000' }, waitUntilReady: false });
      let timer: NodeJS.Timeout | undefined;
      const exited = await Promise.race([stack.exited(name), new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), 20_000)))]);
      clearTimeout(timer);
      const output = stack.instance(name).output();
      await stack.stopInstance(name);
      expect({ service, exited }).toEqual({ service, exited: { code: 1, signal: null } });
      figures.push(`${service} given another CA exited after ${seconds(Date.now() - startedAt)}`);
      const lines = output.split('\n').filter((line) => line.startsWith(`${service}: `));
      expect(lines).toHaveLength(servers.length);
      for (const [index, server] of servers.entries()) {
        expect(lines[index]).toMatch(
          new RegExp(`^${service}: ${server} at 127\\.0\\.0\\.1:\\d+: certificate not trusted \\(.+\\), checked against TLS_CA_FILE ${impostorCa.certFile}$`),
        );
      }
    }
    // The same URL with the stack's CA: auth starts, verifying PostgreSQL with TLS_CA_FILE.
    await stack.start('auth-ca-file', 'auth', { env: { DATABASE_URL: authDatabaseUrl } });
    await stack.stopInstance('auth-ca-file');
  }, 120_000);

  it('takes the keys auth serves over https with its certificate, and refuses them from an impostor with a certificate of another CA', async () => {
    const stack = faults!.stack;
    const authCertificate = issueServerCertificate(folder, 'auth', ca);
    const authTls = await stack.start('auth-tls', 'auth', {
      env: { TLS_CERT_FILE: authCertificate.certFile, TLS_KEY_FILE: authCertificate.keyFile },
      waitUntilReady: false,
    });
    const trusting = new Agent({ connect: { ca: readFileSync(ca.certFile, 'utf8') } });
    const authUrl = `https://127.0.0.1:${authTls.port}`;
    const jwks = await waitFor(async () => (await fetchWith(`${authUrl}/internal/jwks`, { dispatcher: trusting })).text(), {
      timeoutMs: 60_000,
      intervalMs: 200,
      what: 'auth to serve https',
    }).catch((error: Error) => {
      throw new Error(`${error.message}\n${authTls.output().split('\n').slice(-10).join('\n')}`);
    });
    await trusting.close();

    const impostorCertificate = issueServerCertificate(folder, 'impostor', impostorCa);
    let impostorRequests = 0;
    const impostor: Server = createServer(
      { cert: readFileSync(impostorCertificate.certFile), key: readFileSync(impostorCertificate.keyFile) },
      (_request, response) => {
        impostorRequests += 1;
        response.writeHead(200, { 'content-type': 'application/json' }).end(jwks);
      },
    );
    await new Promise<void>((resolve) => impostor.listen(0, '127.0.0.1', resolve));
    const impostorPort = (impostor.address() as { port: number }).port;
    try {
      const gateway = async (name: string, jwksUrl: string) => stack.start(name, 'gateway', { env: { AUTH_JWKS_URL: jwksUrl } });
      const search = async (gatewayUrl: string) =>
        (
          await fetch(`${gatewayUrl}/api/v2/fhir/Task?based-on=${encodeURIComponent('urn:uuid:00000000-0000-4000-8000-000000000001')}`, {
            headers: { authorization: `Bearer ${faults!.referrer.token}` },
          })
        ).status;
      const trusted = await gateway('gateway-auth-tls', `${authUrl}/internal/jwks`);
      const deceived = await gateway('gateway-impostor', `https://127.0.0.1:${impostorPort}/internal/jwks`);
      expect({ trusted: await search(trusted.url), impostor: await search(deceived.url) }).toEqual({ trusted: 200, impostor: 503 });
      // Refused in the handshake: the impostor never saw a request.
      expect(impostorRequests).toBe(0);
    } finally {
      await new Promise((resolve) => impostor.close(resolve));
    }
  }, 180_000);
});
