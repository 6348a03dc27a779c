// `NODE_ENV=` (set, but blank) counts as unset everywhere: a service reads it as production, as it
// reads an unset one (docs/operations.md, "Production by default"), and `npm run admin` as
// development, as it sets an unset one itself. A blank value is what `NODE_ENV= npm run …`, an empty
// line of an env file or `env: [{name: NODE_ENV, value: ""}]` give; it must not stop anything with
// "Invalid option". (`npm run seed:demo` with a blank NODE_ENV: inbox/seed-demo.int.spec.ts.)
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { Client } from 'pg';
import { loadConfig } from '@bedrequest/config';
import { testEnvironment, uniqueName } from '@bedrequest/testing';
import { AuthConfig } from '../../apps/auth/src/config';
import { GatewayConfig } from '../../apps/gateway/src/config';
import { IntakeConfig } from '../../apps/intake/src/config';
import { NotifierConfig } from '../../apps/notifier/src/config';
import { RoutingConfig } from '../../apps/routing/src/config';
import { WebConfig } from '../../apps/web/src/config';

const root = join(__dirname, '..', '..');
const CONFIGS = { auth: AuthConfig, routing: RoutingConfig, intake: IntakeConfig, notifier: NotifierConfig, gateway: GatewayConfig, web: WebConfig };

/** The lines a service's start stops with for `env` (its config, as main.ts loads it), or none. */
function problemsOf(service: keyof typeof CONFIGS, env: Record<string, string>): string[] {
  try {
    loadConfig(CONFIGS[service], env);
    return [];
  } catch (error) {
    return (error as Error).message.split('\n').slice(1);
  }
}

describe('a blank NODE_ENV', () => {
  it.each(Object.keys(CONFIGS) as (keyof typeof CONFIGS)[])('is production for %s, as an unset one: the same lines, none about NODE_ENV', (service) => {
    const unset = problemsOf(service, {});
    expect(unset.length).toBeGreaterThan(0);
    expect(unset.every((line) => line.includes('required'))).toBe(true);
    expect(problemsOf(service, { NODE_ENV: '' })).toEqual(unset);
    expect(problemsOf(service, { NODE_ENV: '  ' })).toEqual(unset);
  });

  describe('in npm run admin', () => {
    const schema = uniqueName('auth_blank_node_env');
    const { databaseUrl } = testEnvironment();

    afterAll(async () => {
      const client = new Client({ connectionString: databaseUrl });
      await client.connect();
      await client.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      await client.end();
    });

    /** `npm run admin -- …argv` (tools/admin.mjs) with exactly `env` beside PATH. */
    const admin = (argv: string[], env: Record<string, string>) =>
      new Promise<{ code: number; stdout: string; stderr: string }>((resolve) => {
        execFile(
          process.execPath,
          [join(root, 'tools', 'admin.mjs'), ...argv],
          { cwd: root, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 120_000 },
          (error, stdout, stderr) => resolve({ code: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
        );
      });

    it.each([
      ['blank', ''],
      ['spaces', '  '],
    ])(
      'is development, as an unset one (%s): the command runs without the production keys',
      async (_case, NODE_ENV) => {
        const env = { DATABASE_URL: databaseUrl, AUTH_DB_SCHEMA: schema };
        expect(await admin(['user', 'list'], { ...env, NODE_ENV })).toEqual({ code: 0, stdout: '', stderr: '' });
        // Production would ask for auth's signing key, which the command needs to ask routing about a clinic.
        expect(await admin(['user', 'list'], { ...env, NODE_ENV: 'production' })).toMatchObject({
          code: 1,
          stderr: expect.stringContaining('AUTH_SIGNING_KEY: required in production'),
        });
      },
      240_000,
    );
  });
});
