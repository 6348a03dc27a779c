// What the end-to-end tests do with a stack: the one launcher (@bedrequest/stack) in-process by
// default, parties made with the real admin command line, and calls to the gateway checked against
// its OpenAPI document and an outside FHIR validator (api-client.ts).
import { isolatedEnvironment, launchStack, type OutputHandling, type Stack, type StackMode } from '@bedrequest/stack';
import { uniqueName } from '@bedrequest/testing';
import { callApi, type ApiCallOptions, type ApiResponse } from './api-client';

export type { ApiResponse };

export interface E2eStack {
  /** The launched stack: its instances, their addresses and processes. */
  readonly stack: Stack;
  readonly gatewayUrl: string;
  /** The clinic inbox's web app. */
  readonly webUrl: string;
  readonly env: Record<string, string>;
  /** `npm run admin -- clinic ...` / `user ...`; throws with the command's message on failure. */
  admin(...argv: string[]): Promise<string>;
  registerClinic(ik: string, name: string, departments: readonly string[]): Promise<void>;
  createReferrer(username: string, iks: readonly string[], fhirBase: string): Promise<void>;
  createClinicUser(username: string, ik: string): Promise<void>;
  /** `party create` (docs/parties.md): a party without people yet; returns its id. */
  createParty(role: 'referrer' | 'clinic', name: string, iks: readonly string[], fhirBase?: string): Promise<string>;
  /** `user create --party`: a person of the party, with the test password; returns the person's user id. */
  createPerson(partyId: string, username: string, displayName?: string): Promise<string>;
  /** Logs in through the gateway and returns the access token. */
  login(username: string, password?: string): Promise<string>;
  /** A call to the gateway, its answer checked against the OpenAPI document and, for FHIR, an outside validator. */
  api<T = unknown>(method: string, path: string, options?: ApiCallOptions): Promise<ApiResponse<T>>;
  stop(): Promise<void>;
}

/** Every test user's password: `<username>-secret-pw`. */
export const passwordOf = (username: string) => `${username}-secret-pw`;

export interface E2eStackOptions {
  /**
   * Runs before the stack is provisioned and its services start, given the environment they will
   * get: its schemas, Redis key prefix and broker namespace, of its own as always, are named in it,
   * so that it can put there what an earlier release wrote (release-upgrade/restore.ts). The stack's
   * stop removes it with the rest (should `prepare` fail, the test run's teardown does).
   */
  prepare?: (env: Readonly<Record<string, string>>) => Promise<void>;
}

/**
 * The whole stack for a test file, with `overrides` on top of the defaults: silent logs, private
 * webhooks allowed, and the gateway waiting up to 10 s for intake's verdict (not 1 s), so that a
 * clinic's answer on a loaded CI machine is still answered 200 rather than 202 queued, which no
 * test here is about (tools/faults tests that).
 */
export async function startE2eStack(
  overrides: Record<string, string> = {},
  mode: StackMode = 'in-process',
  output?: OutputHandling,
  setup: E2eStackOptions = {},
): Promise<E2eStack> {
  // Named here rather than by the launcher when `prepare` must know them first; the same names either way.
  const isolation = setup.prepare ? isolatedEnvironment(uniqueName('e2e'), process.env.REDIS_KEY_PREFIX ?? '') : {};
  const env = {
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'silent',
    DATABASE_POOL_SIZE: '4',
    WEBHOOK_ALLOW_PRIVATE: 'true',
    INTAKE_VERDICT_TIMEOUT_MS: '10000',
    ...isolation,
    ...overrides,
  };
  if (setup.prepare) await setup.prepare({ ...definedOnly(process.env), ...env });
  const stack = await launchStack({ mode, ...(output ? { output } : {}), isolate: 'e2e', env });
  const admin = (...argv: string[]) => stack.admin(...argv);
  const api = <T>(method: string, path: string, options?: ApiCallOptions) => callApi<T>(stack.gatewayUrl, method, path, options);
  return {
    stack,
    gatewayUrl: stack.gatewayUrl,
    webUrl: stack.webUrl,
    env: stack.env,
    admin,
    api,
    registerClinic: async (ik, name, departments) => {
      await admin('clinic', 'upsert', '--ik', ik, '--name', name, '--departments', departments.join(','));
    },
    createReferrer: async (username, iks, fhirBase) => {
      await admin(
        'user',
        'create',
        '--role',
        'referrer',
        '--username',
        username,
        '--password',
        passwordOf(username),
        '--ik',
        iks.join(','),
        '--fhir-base',
        fhirBase,
      );
    },
    createClinicUser: async (username, ik) => {
      await admin('user', 'create', '--role', 'clinic', '--username', username, '--password', passwordOf(username), '--ik', ik);
    },
    createParty: async (role, name, iks, fhirBase) =>
      (await admin('party', 'create', '--role', role, '--name', name, '--ik', iks.join(','), ...(fhirBase ? ['--fhir-base', fhirBase] : []))).trim(),
    createPerson: async (partyId, username, displayName) => {
      const out = await admin(
        'user',
        'create',
        '--party',
        partyId,
        '--username',
        username,
        '--password',
        passwordOf(username),
        ...(displayName ? ['--display-name', displayName] : []),
      );
      const id = /\(id ([^)]+)\)/.exec(out)?.[1];
      if (!id) throw new Error(`user create --party printed no user id: ${out}`);
      return id;
    },
    login: async (username, password = passwordOf(username)) => (await stack.login(username, password)).accessToken,
    stop: () => stack.stop(),
  };
}

function definedOnly(env: NodeJS.ProcessEnv): Record<string, string> {
  return Object.fromEntries(Object.entries(env).filter((entry): entry is [string, string] => entry[1] !== undefined));
}
