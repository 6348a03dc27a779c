import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { declareTopology } from '@bedrequest/contracts';
import { deleteBrokerTopology, serveClinicRegistry, testEnvironment, uniqueName } from '@bedrequest/testing';
import { TestAuthority } from '@bedrequest/tokens/testing';
import { GatewayConfig } from './config';
import { startGateway, type RunningGateway } from './start';

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

interface Answer {
  status: number;
  retryAfter: string | undefined;
  contentType: string | undefined;
  body: string;
}

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
    expect(probes.refused).toMatchObject({ status: 429, retryAfter: expect.stringMatching(/^[1-9]\d*$/) });
    expect(probes.refused.contentType).toMatch(/^application\/fhir\+json/);
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
});

/** Requests by `next` until one is refused; never more than a few budgets. */
async function spend(next: () => Promise<Answer>): Promise<Answer> {
  for (let sent = 0; sent < 10 * PER_SECOND; sent++) {
    const answer = await next();
    if (answer.status === 429) return answer;
  }
  throw new Error(`no 429 after ${10 * PER_SECOND} requests`);
}

/**
 * Spends a budget, probes, and checks that the budget was still spent after the probes: then the
 * probes ran within the window of the refusal. A busy machine can take longer than the window's
 * second between the refusal and a probe, and such a run proves nothing either way; it is repeated
 * in a window of its own, at most five times.
 */
async function withinOneWindow<T>(
  spent: () => Promise<Answer>,
  probes: () => Promise<T>,
  stillSpent: () => Promise<boolean>,
): Promise<{ refused: Answer; after: T }> {
  for (let run = 1; run <= 5; run++) {
    const refused = await spent();
    const after = await probes();
    if (await stillSpent()) return { refused, after };
    await new Promise((resolve) => setTimeout(resolve, 1_100));
  }
  throw new Error('five runs, each slower than the window of a second');
}

const statuses = <T extends Record<string, Answer>>(answers: T) =>
  Object.fromEntries(Object.entries(answers).map(([name, answer]) => [name, answer.status])) as Record<keyof T, number>;

/** A request on a connection of its own, from the local address `from` (any of 127.0.0.0/8). */
function send(base: string, from: string, path: string, options: { method: string; headers: Record<string, string>; body?: string }): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      `${base}${path}`,
      { method: options.method, agent: false, localAddress: from, headers: { connection: 'close', ...options.headers } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            retryAfter: res.headers['retry-after'],
            contentType: res.headers['content-type'],
            body: Buffer.concat(chunks).toString('utf8'),
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(options.body);
  });
}

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
