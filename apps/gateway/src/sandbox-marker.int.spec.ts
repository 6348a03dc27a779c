import { declareTopology } from '@bedrequest/contracts';
import { declareBrokerTopology } from '@bedrequest/messaging';
import { deleteBrokerTopology, serveClinicRegistry, testEnvironment, uniqueName } from '@bedrequest/testing';
import { TestAuthority } from '@bedrequest/tokens/testing';
import { GatewayConfig } from './config';
import { startGateway, type RunningGateway } from './start';

/**
 * A sandbox's gateway (SANDBOX=true, docs/sandbox.md) marks every answer of its public port with
 * `Bedrequest-Environment: sandbox`, whatever answers it: a FHIR route, an /api/v1 route, a
 * refusal, an unknown path. A gateway without SANDBOX marks none. Both run against the real Redis
 * and RabbitMQ, with a stand-in for auth's keys and routing's registry.
 */
const env = testEnvironment();
const CLINIC = '510000001';

describe("the gateway's sandbox header", () => {
  const namespace = uniqueName('sandbox_marker');
  let authority: TestAuthority;
  let registry: Awaited<ReturnType<typeof serveClinicRegistry>>;
  const gateways: RunningGateway[] = [];

  const start = async (sandbox: string | undefined) => {
    const gateway = await startGateway(
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
        ROUTING_URL: registry.url,
        RATE_LIMIT_EXEMPT_ADDRESSES: 'loopback',
        ...(sandbox === undefined ? {} : { SANDBOX: sandbox }),
      }),
    );
    gateways.push(gateway);
    return gateway;
  };

  beforeAll(async () => {
    authority = await TestAuthority.start();
    registry = await serveClinicRegistry([{ ik: CLINIC, departments: ['2300'] }]);
    await declareBrokerTopology(env.amqpUrl, declareTopology(namespace), 5);
  });

  afterAll(async () => {
    for (const gateway of gateways) await gateway.stop();
    await registry?.stop();
    await authority?.stop();
    await deleteBrokerTopology(env.amqpUrl, declareTopology(namespace)).catch(() => undefined);
  });

  /** The header of each kind of answer: status and `Bedrequest-Environment` (null: absent). */
  async function answersOf(gateway: RunningGateway) {
    const token = await authority.clinic('clinic-party', CLINIC);
    const call = async (path: string, init: RequestInit = {}) => {
      const response = await fetch(`${gateway.url}${path}`, init);
      await response.arrayBuffer();
      return { status: response.status, environment: response.headers.get('bedrequest-environment') };
    };
    return {
      fhirMetadata: await call('/api/v2/fhir/metadata'),
      fhirWithoutToken: await call('/api/v2/fhir/Task'),
      clinicList: await call('/api/v1/kliniken', { headers: { authorization: `Bearer ${token}` } }),
      clinicApiWrongRole: await call('/api/v1/referrer/settings', { headers: { authorization: `Bearer ${token}` } }),
      wrongMethod: await call('/api/v1/kliniken', { method: 'DELETE' }),
      unknownPath: await call('/no/such/path'),
      index: await call('/'),
    };
  }

  it('marks every answer of the public port when SANDBOX is true', async () => {
    const gateway = await start('true');
    const marked = { environment: 'sandbox' };
    expect(await answersOf(gateway)).toEqual({
      fhirMetadata: { status: 200, ...marked },
      fhirWithoutToken: { status: 401, ...marked },
      clinicList: { status: 200, ...marked },
      clinicApiWrongRole: { status: 403, ...marked },
      wrongMethod: { status: 405, ...marked },
      unknownPath: { status: 404, ...marked },
      index: { status: 200, ...marked },
    });
  });

  it('marks none without SANDBOX, or with SANDBOX=false', async () => {
    for (const sandbox of [undefined, 'false']) {
      const answers = await answersOf(await start(sandbox));
      expect(Object.values(answers).map((answer) => answer.environment)).toEqual(Object.values(answers).map(() => null));
      expect(answers.clinicList.status).toBe(200);
      expect(answers.unknownPath.status).toBe(404);
    }
  });
});
