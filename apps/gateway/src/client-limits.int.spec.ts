import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { declareTopology } from '@bedrequest/contracts';
import { declareBrokerTopology } from '@bedrequest/messaging';
import { deleteBrokerTopology, serveClinicRegistry, testEnvironment, uniqueName } from '@bedrequest/testing';
import { TestAuthority, accessToken, newSigningKey } from '@bedrequest/tokens/testing';
import { GatewayConfig } from './config';
import { startGateway, type RunningGateway } from './start';
import { send, spend as spendUntilRefused, statuses, withinOneWindow, type Answer } from './testing/client-calls';

/**
 * The gateway's limits per client address, as started (start.ts) against the real Redis and
 * RabbitMQ: clients on 127.0.0.2 and 127.0.0.3 connect from their own address (`localAddress`),
 * and through a trusted proxy (this test, from 127.0.0.1, the gateway's TRUSTED_PROXIES) that names
 * them in X-Forwarded-For. Each address is counted apart, and each group of routes without a token
 * has its own budget per address: the token endpoints are not starved by the documents (the
 * CapabilityStatement, the OpenAPI document). Nothing is exempt here, and refusals are answered at
 * once (no hold), so that a test needs only a few requests a second.
 */
const env = testEnvironment();
const PER_SECOND = 3;
const PROXY = '127.0.0.1';
const [A, B] = ['127.0.0.2', '127.0.0.3'];

/** Requests by `next` until one is refused; never more than a few budgets. */
const spend = (next: () => Promise<Answer>) => spendUntilRefused(next, 10 * PER_SECOND);

describe('the limits per client address of the gateway', () => {
  const namespace = uniqueName('gateway');
  let authority: TestAuthority;
  let auth: Server;
  let registry: Awaited<ReturnType<typeof serveClinicRegistry>>;
  let gateway: RunningGateway;

  beforeAll(async () => {
    authority = await TestAuthority.start();
    // Auth as the gateway sees it: the authority's keys and service tokens, and token endpoints
    // that answer every login (the limits under test are the gateway's, in front of them).
    auth = await serveAuth(authority);
    registry = await serveClinicRegistry([{ ik: '510000001', departments: ['2300'] }]);
    // Provisioning's step, as the local administrator: services declare no topology.
    await declareBrokerTopology(env.amqpUrl, declareTopology(namespace), 5);
    gateway = await startGateway(
      GatewayConfig.parse({
        NODE_ENV: 'test',
        LOG_LEVEL: 'silent',
        PORT: '0',
        INTERNAL_PORT: '0',
        AMQP_URL: env.amqpUrl,
        AMQP_NAMESPACE: namespace,
        REDIS_URL: env.redisUrl,
        REDIS_KEY_PREFIX: `${env.redisKeyPrefix}${namespace}:`,
        ...authority.env,
        AUTH_URL: `http://127.0.0.1:${(auth.address() as AddressInfo).port}`,
        ROUTING_URL: registry.url,
        TRUSTED_PROXIES: PROXY,
        RATE_LIMIT_EXEMPT_ADDRESSES: '',
        RATE_LIMIT_PER_ADDRESS_PER_SECOND: String(PER_SECOND),
        RATE_LIMIT_REFUSAL_HOLD_MS: '0',
      }),
    );
  });

  afterAll(async () => {
    await gateway?.stop();
    await registry?.stop();
    await new Promise((resolve) => auth?.close(resolve));
    await authority?.stop();
    await deleteBrokerTopology(env.amqpUrl, declareTopology(namespace));
  });

  // Every test starts in a window of its own: the budgets are per second.
  beforeEach(() => new Promise((resolve) => setTimeout(resolve, 1_100)));

  /** One request from `from`, on a connection of its own; `client` names a client behind the proxy. */
  const call = (from: string, path: string, options: { client?: string; token?: string; method?: string; body?: string } = {}) =>
    send(gateway.url, from, path, {
      method: options.method ?? (options.body ? 'POST' : 'GET'),
      headers: {
        ...(options.client ? { 'x-forwarded-for': options.client } : {}),
        ...(options.token ? { authorization: `Bearer ${options.token}` } : {}),
        ...(options.body ? { 'content-type': 'application/json' } : {}),
      },
      ...(options.body ? { body: options.body } : {}),
    });
  const login = (from: string, client?: string) =>
    call(from, '/api/v1/token/login', { body: '{"username":"someone","password":"whatever-it-is"}', ...(client ? { client } : {}) });
  const metadata = (from: string, client?: string) => call(from, '/api/v2/fhir/metadata', client ? { client } : {});

  it('counts clients on their own addresses apart, and a flood of the CapabilityStatement leaves the logins alone', async () => {
    const probes = await withinOneWindow(
      () => spend(() => metadata(A)),
      async () => ({ otherMetadata: await metadata(B), ownLogin: await login(A), otherLogin: await login(B), openApi: await call(B, '/api/openapi.json') }),
      async () => (await metadata(A)).status === 429,
    );
    const refused = probes.spent.at(-1);
    expect(refused).toMatchObject({ status: 429, retryAfter: expect.stringMatching(/^[1-9]\d*$/) });
    expect(refused?.contentType).toMatch(/^application\/fhir\+json/);
    expect(statuses(probes.after)).toEqual({ otherMetadata: 200, ownLogin: 200, otherLogin: 200, openApi: 200 });
  });

  it('counts the clients a trusted proxy names apart, and believes no one else', async () => {
    const probes = await withinOneWindow(
      () => spend(() => metadata(PROXY, A)),
      async () => ({
        otherMetadata: await metadata(PROXY, B),
        ownLogin: await login(PROXY, A),
        otherLogin: await login(PROXY, B),
        // A chain: the proxy appended the client it saw to what the client sent; the client is the right-most.
        chained: await metadata(PROXY, `${A}, ${B}`),
        // The flooding client's own header, straight to the gateway: it counts as its own address.
        forged: await call(A, '/api/v2/fhir/metadata', { client: B }),
      }),
      async () => (await metadata(PROXY, A)).status === 429,
    );
    expect(statuses(probes.after)).toEqual({ otherMetadata: 200, ownLogin: 200, otherLogin: 200, chained: 200, forged: 429 });
  });

  it('keeps the token endpoints of an address that spent them from starving its documents, the other way round', async () => {
    const probes = await withinOneWindow(
      () => spend(() => login(B)),
      async () => ({ ownMetadata: await metadata(B), ownIndex: await call(B, '/'), otherLogin: await login(A) }),
      async () => (await login(B)).status === 429,
    );
    expect(statuses(probes.after)).toEqual({ ownMetadata: 200, ownIndex: 200, otherLogin: 200 });
  });

  it("counts an address's invalid tokens before verifying them, and never limits a valid token by its address", async () => {
    const stranger = await newSigningKey(authority.key.kid);
    // The three kinds of invalid token: not a token, signed by another key, expired.
    const invalid = [
      async () => 'not.a.token',
      () => accessToken(stranger),
      () => accessToken(authority.key, { issuedAt: Math.floor(Date.now() / 1000) - 7_200, lifetimeSeconds: 3_600 }),
    ];
    let sent = 0;
    const nextInvalid = () => invalid[sent++ % invalid.length]!();
    const clinics = (from: string, token: string, client?: string) => call(from, '/api/v1/kliniken', { token, ...(client ? { client } : {}) });
    // A party of A's whose token the gateway has verified before A sends invalid ones.
    const known = await authority.referrer('known-at-a');
    expect((await clinics(A, known)).status).toBe(200);

    const probes = await withinOneWindow(
      async () => spend(async () => clinics(A, await nextInvalid())),
      async () => ({
        knownAtA: await clinics(A, known),
        // Not verified yet, from an address over its budget: refused before the verification.
        newAtA: await clinics(A, await authority.referrer(`new-at-a-${sent}`)),
        fhirAtA: await call(A, '/api/v2/fhir/Task', { token: await nextInvalid() }),
        invalidAtB: await clinics(B, await nextInvalid()),
        invalidAtBThroughProxy: await clinics(PROXY, await nextInvalid(), B),
        // Behind one address (a NAT), more parties with new tokens than the budget of invalid ones.
        ...Object.fromEntries(
          await Promise.all(
            Array.from({ length: 2 * PER_SECOND + 1 }, async (_, party) => [
              `party${party}AtB`,
              await clinics(B, await authority.referrer(`at-b-${party}-${sent}`)),
            ]),
          ),
        ),
      }),
      async () => (await clinics(A, await nextInvalid())).status === 429,
    );

    const refused = probes.spent.at(-1)!;
    expect(probes.spent.slice(0, -1).map((answer) => answer.status)).toEqual(Array(PER_SECOND).fill(401));
    expect(refused).toMatchObject({ status: 429, retryAfter: expect.stringMatching(/^[1-9]\d*$/) });
    expect(JSON.parse(probes.after.fhirAtA.body)).toMatchObject({ resourceType: 'OperationOutcome', issue: [{ code: 'throttled' }] });
    const parties = Object.fromEntries(Array.from({ length: 2 * PER_SECOND + 1 }, (_, party) => [`party${party}AtB`, 200]));
    expect(statuses(probes.after)).toEqual({ knownAtA: 200, newAtA: 429, fhirAtA: 429, invalidAtB: 401, invalidAtBThroughProxy: 401, ...parties });
  });
});

/** Auth for the gateway: the authority's endpoints, and a token endpoint that answers 200. */
async function serveAuth(authority: TestAuthority): Promise<Server> {
  const server = createServer((req, res) => {
    if (req.url?.startsWith('/api/v1/token/')) {
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json', 'cache-control': 'no-store' }).end('{"accessToken":"stand-in","tokenType":"Bearer"}');
      return;
    }
    void fetch(`${authority.url}${req.url}`, { method: req.method, headers: { authorization: req.headers.authorization ?? '' } }).then(
      async (answer) => res.writeHead(answer.status, { 'content-type': 'application/json' }).end(await answer.text()),
      () => res.writeHead(502).end(),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
