import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { startE2eStack, type E2eStack } from '../e2e-stack';

/**
 * `npm run seed:demo` against a running stack, as the README's inbox walk-through uses it: the demo
 * parties, and three requests that the demo clinic's inbox lists; run again, it changes nothing.
 * The demo hospital and Reha-Klinik Am Waldsee are parties of two people each (docs/parties.md).
 */
describe('npm run seed:demo', () => {
  let stack: E2eStack;

  beforeAll(async () => {
    stack = await startE2eStack({ NODE_ENV: 'test' });
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  // Not spawnSync: the stack runs in this process and must answer the seed's calls meanwhile.
  const seed = (env: Record<string, string> = {}) =>
    new Promise<{ status: number | null; stdout: string; stderr: string }>((resolve) => {
      execFile(
        process.execPath,
        [join(__dirname, '..', '..', 'seed-demo.mjs')],
        { env: { ...stack.env, GATEWAY_URL: stack.gatewayUrl, ...env }, encoding: 'utf8', timeout: 240_000 },
        (error, stdout, stderr) => resolve({ status: error ? (typeof error.code === 'number' ? error.code : 1) : 0, stdout, stderr }),
      );
    });

  // The first run's answer, for both tests: a run takes half a minute (a dozen admin commands),
  // and the credentials it prints are those of every run. Made by whichever test comes first.
  let firstRun: ReturnType<typeof seed> | undefined;
  const seededOnce = () => (firstRun ??= seed());

  it('creates the demo parties and three requests for the demo clinic, and again changes nothing', async () => {
    const first = await seededOnce();
    expect(first.stderr).toBe('');
    expect(first.status).toBe(0);
    expect(first.stdout).toContain(`Clinic inbox: ${stack.webUrl}/inbox/  (log in as demo-waldsee / demo-waldsee-password; 3 demo requests waiting)`);

    const token = await stack.login('demo-waldsee', 'demo-waldsee-password');
    const list = async () =>
      (
        await stack.api<{ items: { id: string; status: string; version: number; mainDiagnosis?: { code: string } }[] }>('GET', '/api/v1/clinic/tasks', {
          token,
        })
      ).body.items;
    const before = await list();
    expect(before.map((item) => item.mainDiagnosis?.code).sort()).toEqual(['I21.0', 'M17.1', 'S72.01']);
    expect(before.every((item) => item.status === 'requested' && item.version === 1)).toBe(true);
    const bergblick = await stack.login('demo-bergblick', 'demo-bergblick-password');
    const declined = (await stack.api<{ items: { status: string; businessStatus?: string }[] }>('GET', '/api/v1/clinic/tasks', { token: bergblick })).body
      .items;
    expect(declined).toEqual([expect.objectContaining({ status: 'rejected', businessStatus: 'declined' })]);
    // Whom Waldsee calls about the demo hospital's requests.
    const contact = await stack.api('GET', `/api/v1/clinic/tasks/${before[0]!.id}/referrer`, { token });
    expect(contact.body).toEqual({ name: 'demo-referrer', contactName: 'Sozialdienst, Max Demo', contactPhone: '+49 30 1234-5678' });
    await expectTeams();

    // Again with a blank NODE_ENV (`NODE_ENV= npm run seed:demo`), which counts as unset: development.
    const again = await seed({ NODE_ENV: '' });
    expect(again.stderr).toBe('');
    expect(again.status).toBe(0);
    expect(await list()).toEqual(before);
    // Run twice, each party still has its two people, who log in as themselves.
    await expectTeams();
  }, 300_000);

  interface Claims {
    sub: string;
    act?: { sub: string; name?: string };
  }
  const claimsOf = (token: string) => JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as Claims;

  /** Both people of the demo hospital, and of Reha-Klinik Am Waldsee, log in to the same party, each as themselves. */
  async function expectTeams() {
    for (const [first, second] of [
      ['demo-referrer', 'demo-referrer-2'],
      ['demo-waldsee', 'demo-waldsee-2'],
    ] as const) {
      const [one, two] = [claimsOf(await stack.login(first, `${first}-password`)), claimsOf(await stack.login(second, `${second}-password`))];
      expect(two.sub).toBe(one.sub);
      expect(two.act?.sub).toBeDefined();
      expect(two.act?.sub).not.toBe(one.act?.sub);
    }
  }

  it('prints the credentials of the second person of the demo hospital and of the demo clinic', async () => {
    const { stdout, status } = await seededOnce();
    expect(status).toBe(0);
    expect(stdout).toMatch(/\n {2}referrer +demo-referrer-2 +demo-referrer-2-password +260000001 /);
    expect(stdout).toMatch(/\n {2}clinic +demo-waldsee-2 +demo-waldsee-2-password +510000001 /);
    await expectTeams();
  }, 300_000);
});
