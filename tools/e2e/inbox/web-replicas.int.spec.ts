import { randomUUID } from 'node:crypto';
import { buildServices, launchStack, type Stack } from '@bedrequest/stack';
import { TcpProxy, waitFor } from '@bedrequest/testing';
import { HttpBrowser, csrfOf } from './http-browser';

/**
 * Two web processes behind one address, as a deployment runs its replicas behind a load balancer
 * that takes turns per connection. Every request of the test's browser opens a new connection, so
 * its requests alternate between the two processes; with WEB_SESSION_REFRESH_MARGIN_SECONDS above
 * the access token's lifetime (3600 s), every request renews the session's tokens. A session kept
 * in one process's memory, or renewed twice with one refresh token (which auth takes as reuse and
 * answers by revoking the whole family), would end here; the session must survive all of it.
 */
const CLINIC = { ik: '513700001', name: 'Reha-Klinik Zwei Türme', username: `replicas-${randomUUID().slice(0, 8)}` };
const PASSWORD = `${CLINIC.username}-password`;

describe('the clinic inbox on two web processes behind one address', () => {
  let stack: Stack;
  let balancer: TcpProxy;
  let address: string;

  beforeAll(async () => {
    buildServices();
    stack = await launchStack({
      mode: 'processes',
      isolate: 'replicas',
      output: 'capture',
      env: { LOG_LEVEL: 'info', NODE_ENV: 'test', WEB_SESSION_REFRESH_MARGIN_SECONDS: '3601' },
    });
    await stack.start('web-2', 'web');
    balancer = new TcpProxy([stack.instance('web'), stack.instance('web-2')].map((web) => ({ host: '127.0.0.1', port: web.port })));
    address = `http://127.0.0.1:${await balancer.start()}`;
    await stack.admin('clinic', 'upsert', '--ik', CLINIC.ik, '--name', CLINIC.name, '--departments', '2300');
    await stack.admin('user', 'create', '--role', 'clinic', '--username', CLINIC.username, '--password', PASSWORD, '--ik', CLINIC.ik);
    // The gateway learns of the clinic from routing's broadcast, a moment after the upsert; a page
    // asked for before then would name the clinic by its IK alone (the web app keeps the list a minute).
    const { accessToken } = await stack.login(CLINIC.username, PASSWORD);
    const listed = async () => {
      const answer = await fetch(`${stack.gatewayUrl}/api/v1/kliniken`, { headers: { authorization: `Bearer ${accessToken}` } });
      const { items } = (await answer.json()) as { items: { ik: string }[] };
      return items.some((clinic) => clinic.ik === CLINIC.ik);
    };
    await waitFor(listed, { what: 'the clinic in the gateway’s directory', timeoutMs: 10_000 });
  }, 300_000);

  afterAll(async () => {
    await balancer?.stop();
    await stack?.stop();
  });

  /** How many page requests (not assets) each web process answered, from its access log. */
  const pagesServed = () =>
    Object.fromEntries(
      ['web', 'web-2'].map((name) => [
        name,
        stack
          .instance(name)
          .output()
          .split('\n')
          .filter((line) => line.includes('"url":"/inbox/tasks"')).length,
      ]),
    );

  it('logs in through one process and renews one session through both, one request after another and many at once, without ending it', async () => {
    const browser = new HttpBrowser(address);
    // The form from one process, its post to the other: both know the CSRF key (kept in Redis).
    const form = await browser.get('/inbox/login');
    expect(form.status).toBe(200);
    const loggedIn = await browser.postForm('/inbox/login', { username: CLINIC.username, password: PASSWORD, _csrf: csrfOf(form.text) });
    expect(loggedIn).toMatchObject({ status: 303, headers: { location: '/inbox/tasks' } });
    const session = browser.cookie('inbox_session');

    // One after another: each request renews, on the other process than the one before.
    for (let turn = 0; turn < 6; turn += 1) {
      const page = await browser.get('/inbox/tasks');
      expect({ turn, status: page.status, location: page.headers.location }).toEqual({ turn, status: 200, location: undefined });
      expect(page.text).toContain(CLINIC.name);
    }
    // Many at once, half on each process, all finding the same token about to expire.
    const together = await Promise.all(Array.from({ length: 8 }, () => browser.get('/inbox/tasks')));
    expect(together.map((page) => page.status)).toEqual(Array(8).fill(200));

    // Still the same session, still alive, and both processes did their share.
    const after = await browser.get('/inbox/tasks');
    expect(after.status).toBe(200);
    expect(browser.cookie('inbox_session')).toBe(session);
    const total = () => Object.values(pagesServed()).reduce((sum, count) => sum + count, 0);
    await waitFor(() => total() === 15, { what: 'both processes to log the 15 pages', timeoutMs: 5_000 });
    expect(Object.values(pagesServed()).every((count) => count >= 7)).toBe(true);
  });
});
