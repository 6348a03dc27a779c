import { loadConfig } from '@bedrequest/config';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { AuthConfig } from '../config';
import { PasswordHasher } from '../passwords/password-hasher';
import { openAuthDatabase, type AuthDatabase } from '../persistence/database';
import { startAuth, type AuthDependencies, type RunningAuth } from '../start';
import type { NewParty, Party } from '../parties/party';
import { PartyRepository } from '../parties/party.repository';
import type { Member, Role } from '../users/user';
import { UserRepository } from '../users/user.repository';

/**
 * An auth service started in-process against the real PostgreSQL and Redis of the test run, on a
 * free port, in a schema and Redis key space of its own.
 */
export interface TestAuth {
  readonly auth: RunningAuth;
  readonly url: string;
  readonly config: AuthConfig;
  readonly prisma: AuthDatabase;
  /** A user with a party of its own, whose id it takes (`user create --role`). */
  addUser(user: TestUser): Promise<Member>;
  addParty(party: NewParty): Promise<Party>;
  /** A person of an existing party (`user create --party`). */
  addPartyUser(user: TestPartyUser): Promise<Member>;
  stop(): Promise<void>;
}

export interface TestUser {
  readonly username: string;
  readonly password: string;
  readonly role: Role;
  readonly ikNumbers: readonly string[];
  readonly fhirBase?: string;
}

export interface TestPartyUser {
  readonly partyId: string;
  readonly username: string;
  readonly password: string;
  readonly displayName: string;
  readonly administrator?: boolean;
}

/** The service client secret of test auth services: services in tests fetch their tokens with it. */
export const TEST_SERVICE_CLIENT_SECRET = 'test-service-client-secret-0123456789abcdef';

export function testAuthConfig(overrides: Record<string, string> = {}): AuthConfig {
  const env = testEnvironment();
  return loadConfig(AuthConfig, {
    ...process.env,
    AUTH_PORT: '0',
    AUTH_INTERNAL_PORT: '0',
    AUTH_DB_SCHEMA: uniqueName('auth'),
    REDIS_KEY_PREFIX: `${env.redisKeyPrefix}${uniqueName('auth')}:`,
    DATABASE_POOL_SIZE: '3',
    SERVICE_CLIENT_SECRET: TEST_SERVICE_CLIENT_SECRET,
    // The test stands where the gateway does: a proxy on loopback whose X-Forwarded-For is believed.
    TRUSTED_PROXIES: 'loopback',
    ...overrides,
  });
}

let hasher: Promise<PasswordHasher> | undefined;

export async function startTestAuth(overrides: Record<string, string> = {}, dependencies: AuthDependencies = {}): Promise<TestAuth> {
  const config = testAuthConfig(overrides);
  const auth = await startAuth(config, dependencies);
  const prisma = await openAuthDatabase({ databaseUrl: config.DATABASE_URL, schema: config.AUTH_DB_SCHEMA, poolSize: 1 });
  const users = new UserRepository(prisma);
  const parties = new PartyRepository(prisma);
  const hashOf = async (password: string) => {
    hasher ??= PasswordHasher.create();
    return (await hasher).hash(password);
  };
  return {
    auth,
    url: auth.url,
    config,
    prisma,
    async addUser(user) {
      return users.create({ ...user, passwordHash: await hashOf(user.password) });
    },
    addParty: (party) => parties.create(party),
    async addPartyUser({ password, ...user }) {
      return users.createInParty({ administrator: false, ...user, passwordHash: await hashOf(password) });
    },
    async stop() {
      await auth.stop();
      await prisma.$disconnect();
    },
  };
}

export const referrer = (username: string, password = 'referrer-password-1'): TestUser => ({
  username,
  password,
  role: 'referrer',
  ikNumbers: ['260000001', '260000002'],
  fhirBase: 'https://demo-hospital.example/fhir',
});

export const clinicUser = (username: string, password = 'clinic-password-1'): TestUser => ({
  username,
  password,
  role: 'clinic',
  ikNumbers: ['510000001'],
});

export interface JsonResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly body: Record<string, unknown>;
}

export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<JsonResponse> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, headers: response.headers, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
}

export async function login(url: string, username: string, password: string, headers: Record<string, string> = {}) {
  return postJson(`${url}/api/v1/token/login`, { username, password }, headers);
}

export async function refresh(url: string, refreshToken: unknown) {
  return postJson(`${url}/api/v1/token/refresh`, { refreshToken });
}
