// The whole service started in-process for end-to-end tests: the real services on free ports,
// against the run's PostgreSQL, Redis and RabbitMQ, each in a schema, key space and broker
// namespace of its own. Parties are created with the real admin command line modules.
// (End-to-end tests live outside the apps, so no app imports another.)
import { loadConfig } from '@bedrequest/config';
import { declareTopology } from '@bedrequest/contracts';
import { deleteBrokerTopology, testEnvironment, uniqueName } from '@bedrequest/testing';
import { callApi, type ApiCallOptions, type ApiResponse } from './api-client';
import { stackEnvironment } from './stack-environment';
import { USER_CLI, openUserAdministration } from '../../apps/auth/src/cli';
import { AuthCliConfig, AuthConfig } from '../../apps/auth/src/config';
import { startAuth, type RunningAuth } from '../../apps/auth/src/start';
import { GatewayConfig } from '../../apps/gateway/src/config';
import { startGateway, type RunningGateway } from '../../apps/gateway/src/start';
import { IntakeConfig } from '../../apps/intake/src/config';
import { startIntake, type RunningIntake } from '../../apps/intake/src/start';
import { NotifierConfig } from '../../apps/notifier/src/config';
import { startNotifier } from '../../apps/notifier/src/start';
import { RoutingCliConfig, RoutingConfig } from '../../apps/routing/src/config';
import { CLINIC_CLI, openRoutingServices } from '../../apps/routing/src/cli';
import { startRouting, type RunningRouting } from '../../apps/routing/src/start';

export type { ApiResponse };

export interface TestStack {
  readonly gatewayUrl: string;
  readonly env: Record<string, string>;
  readonly intake: RunningIntake;
  readonly routing: RunningRouting;
  readonly auth: RunningAuth;
  readonly gateway: RunningGateway;
  /** `npm run admin -- clinic ...` / `user ...` in-process; throws with the CLI's message on failure. */
  admin(...argv: string[]): Promise<string>;
  registerClinic(ik: string, name: string, departments: readonly string[]): Promise<void>;
  createReferrer(username: string, iks: readonly string[], fhirBase: string): Promise<void>;
  createClinicUser(username: string, ik: string): Promise<void>;
  /** Logs in through the gateway and returns the access token. */
  login(username: string, password?: string): Promise<string>;
  /** A call to the gateway, its FHIR answers checked by an outside validator (`callApi`). */
  api<T = unknown>(method: string, path: string, options?: ApiCallOptions): Promise<ApiResponse<T>>;
  stop(): Promise<void>;
}

/** Every test user's password: `<username>-secret-pw`. */
export const passwordOf = (username: string) => `${username}-secret-pw`;

export async function startTestStack(overrides: Record<string, string> = {}): Promise<TestStack> {
  const run = testEnvironment();
  const namespace = uniqueName('e2e');
  const env: Record<string, string> = {
    ...(process.env as Record<string, string>),
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    ...stackEnvironment(namespace),
    DATABASE_POOL_SIZE: '4',
    PORT: '0',
    INTERNAL_PORT: '0',
    AUTH_PORT: '0',
    INTAKE_PORT: '0',
    ROUTING_PORT: '0',
    NOTIFIER_PORT: '0',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    ...overrides,
  };
  const stoppers: (() => Promise<void>)[] = [];
  const stopAll = async () => {
    for (const stop of stoppers.reverse()) await stop().catch(() => undefined);
    await deleteBrokerTopology(run.amqpUrl, declareTopology(namespace)).catch(() => undefined);
  };
  try {
    // Auth first: every other service verifies tokens with its keys, and intake and the gateway
    // fetch their service tokens from it to read routing's clinic registry at start.
    const auth = await startAuth(loadConfig(AuthConfig, env));
    stoppers.push(() => auth.stop());
    env.AUTH_URL = auth.url;
    const routing = await startRouting(loadConfig(RoutingConfig, env));
    stoppers.push(() => routing.stop());
    env.ROUTING_URL = routing.url;
    const intake = await startIntake(loadConfig(IntakeConfig, env));
    stoppers.push(() => intake.stop());
    env.INTAKE_URL = intake.url;
    const notifier = await startNotifier(loadConfig(NotifierConfig, env));
    stoppers.push(() => notifier.stop());
    env.NOTIFIER_URL = notifier.url;
    const gateway = await startGateway(loadConfig(GatewayConfig, env));
    stoppers.push(() => gateway.stop());
    const gatewayUrl = gateway.url;

    const admin = async (...argv: string[]) => {
      const out: string[] = [];
      const err: string[] = [];
      const io = { out: (line: string) => out.push(line), err: (line: string) => err.push(line) };
      const code =
        argv[0] === 'clinic'
          ? await CLINIC_CLI.run(argv, { open: () => openRoutingServices(loadConfig(RoutingCliConfig, env)), ...io })
          : await USER_CLI.run(argv, { open: () => openUserAdministration({ config: loadConfig(AuthCliConfig, env) }), ...io });
      if (code !== 0) throw new Error(`admin ${argv.slice(0, 2).join(' ')} failed: ${err.join(' ')}`);
      return out.join('\n');
    };
    const api = <T>(method: string, path: string, options?: ApiCallOptions) => callApi<T>(gatewayUrl, method, path, options);

    return {
      gatewayUrl,
      env,
      intake,
      routing,
      auth,
      gateway,
      admin,
      api,
      registerClinic: async (ik, name, departments) => {
        await admin('clinic', 'upsert', '--ik', ik, '--name', name, '--departments', departments.join(','));
      },
      createReferrer: async (username, iks, fhirBase) => {
        await admin('user', 'create', '--role', 'referrer', '--username', username, '--password', passwordOf(username), '--ik', iks.join(','), '--fhir-base', fhirBase);
      },
      createClinicUser: async (username, ik) => {
        await admin('user', 'create', '--role', 'clinic', '--username', username, '--password', passwordOf(username), '--ik', ik);
      },
      login: async (username, password = passwordOf(username)) => {
        const response = await api<{ accessToken: string }>('POST', '/api/v1/token/login', { body: { username, password } });
        if (response.status !== 200) throw new Error(`login of ${username} failed with ${response.status}`);
        return response.body.accessToken;
      },
      stop: stopAll,
    };
  } catch (error) {
    await stopAll();
    throw error;
  }
}
