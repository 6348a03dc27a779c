import { createHash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Redis } from 'ioredis';
import type { Page } from 'playwright-core';
import { testEnvironment, waitFor } from '@bedrequest/testing';
import { documentBundle } from '@bedrequest/fhir-model/testing';
import { passwordOf } from '../e2e-stack';
import { describeInChromium, startInboxHarness, type InboxHarness } from './inbox-harness';

/**
 * What the inbox refuses: another clinic's requests (listed, opened, answered or downloaded by a
 * guessed URL), state-changing requests without the session's CSRF token or from another origin,
 * requests without a session; and what every answer carries (CSP, no-store, cookie flags).
 */
const WALDSEE = { ik: '513200001', name: 'Reha-Klinik Am Waldsee' };
const BERGBLICK = { ik: '513200002', name: 'Fachklinik Bergblick' };

const CSP =
  "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

describeInChromium('the clinic inbox refuses what it must', () => {
  let inbox: InboxHarness;
  let waldsee: Page;
  let bergblick: Page;
  let waldseeOnly: { taskId: string; identifier: string };

  beforeAll(async () => {
    inbox = await startInboxHarness([WALDSEE, BERGBLICK]);
    const { identifier } = await inbox.sendRequest({ performerIks: [WALDSEE.ik] });
    await inbox.stack.api('POST', '/api/v2/fhir/Bundle', {
      token: inbox.referrerToken,
      body: documentBundle({ requestIdentifier: identifier }),
    });
    waldseeOnly = { identifier, taskId: (await inbox.taskOf(identifier, WALDSEE.ik)).id };
    waldsee = await inbox.newPage();
    await inbox.logIn(waldsee, inbox.clinics[0]!);
    bergblick = await inbox.newPage();
    await inbox.logIn(bergblick, inbox.clinics[1]!);
  }, 180_000);

  afterAll(async () => {
    await inbox?.stop();
  });

  const csrfOf = async (page: Page) => page.locator('input[name="_csrf"]').first().getAttribute('value');
  /**
   * Whether the family of a refresh token is still valid, read in auth's Redis (apps/auth/src/token/
   * refresh-token.repository.ts): from outside, a family whose newest token nobody holds looks
   * like a revoked one, but it is not.
   */
  const familyIsLive = async (refreshToken: string) => {
    const redis = new Redis(testEnvironment().redisUrl, { keyPrefix: inbox.stack.env.REDIS_KEY_PREFIX!, lazyConnect: true });
    try {
      await redis.connect();
      const familyId = await redis.hget(`auth:refresh:token:${createHash('sha256').update(refreshToken).digest('hex')}`, 'familyId');
      if (!familyId) throw new Error("no such refresh token in auth's Redis");
      return (await redis.exists(`auth:refresh:family:${familyId}`)) === 1;
    } finally {
      redis.disconnect();
    }
  };
  const taskStatus = async () => inbox.taskOf(waldseeOnly.identifier, WALDSEE.ik);

  it("never shows a clinic another clinic's request, also not by guessing its URLs", async () => {
    await waldsee.goto(`${inbox.baseUrl}/inbox/tasks`);
    await expect(waldsee.locator(`tr[data-task-id="${waldseeOnly.taskId}"]`).count()).resolves.toBe(1);
    await bergblick.goto(`${inbox.baseUrl}/inbox/tasks`);
    await expect(bergblick.locator('tr.task-row').count()).resolves.toBe(0);
    await expect(bergblick.locator('[data-count="all"]').textContent()).resolves.toBe('0');

    for (const path of [
      `/inbox/tasks/${waldseeOnly.taskId}`,
      `/inbox/tasks/${waldseeOnly.taskId}/documents/0/attachments/0`,
      `/inbox/tasks/${waldseeOnly.taskId}/documents/0/attachments/0?download=1`,
    ]) {
      const response = await bergblick.goto(`${inbox.baseUrl}${path}`);
      expect(response?.status()).toBe(404);
      expect(await bergblick.locator('main').innerText()).toContain('Diese Seite gibt es nicht, oder sie ist nicht für Ihre Klinik bestimmt.');
    }
    const updates = await bergblick.request.get(`${inbox.baseUrl}/inbox/tasks/updates?since=2000-01-01T00:00:00Z`);
    expect((await updates.json()).rows).toEqual([]);

    // Answering it with Bergblick's own valid session and token: not found, nothing changes.
    await bergblick.goto(`${inbox.baseUrl}/inbox/tasks`);
    const answer = await bergblick.request.post(`${inbox.baseUrl}/inbox/tasks/${waldseeOnly.taskId}/answer`, {
      form: { _csrf: (await csrfOf(bergblick))!, businessStatus: 'accepted', note: '', step: 'confirm' },
      headers: { origin: inbox.baseUrl },
    });
    expect(answer.status()).toBe(404);
    expect(await taskStatus()).toEqual({ id: waldseeOnly.taskId, status: 'requested' });
  });

  it('refuses a state-changing request without the CSRF token, with a wrong one, or from another origin', async () => {
    await waldsee.goto(`${inbox.baseUrl}/inbox/tasks/${waldseeOnly.taskId}`);
    const token = (await csrfOf(waldsee))!;
    const bergblickToken = (await csrfOf(bergblick))!;
    const post = (form: Record<string, string>, headers: Record<string, string> = { origin: inbox.baseUrl }) =>
      waldsee.request.post(`${inbox.baseUrl}/inbox/tasks/${waldseeOnly.taskId}/answer`, {
        form: { businessStatus: 'accepted', note: '', step: 'confirm', ...form },
        headers,
        maxRedirects: 0,
      });

    for (const [form, headers] of [
      [{}, { origin: inbox.baseUrl }],
      [{ _csrf: 'forged' }, { origin: inbox.baseUrl }],
      [{ _csrf: bergblickToken }, { origin: inbox.baseUrl }],
      [{ _csrf: token }, { origin: 'https://attacker.example' }],
      [{ _csrf: token }, { 'sec-fetch-site': 'cross-site' }],
    ] as [Record<string, string>, Record<string, string>][]) {
      const refused = await post(form, headers);
      expect(refused.status()).toBe(403);
      expect(await refused.text()).toContain('Sicherheitsprüfung fehlgeschlagen');
    }
    expect(await taskStatus()).toEqual({ id: waldseeOnly.taskId, status: 'requested' });

    // The same request with the session's token from this origin goes through (the checks above refused only what they must).
    const accepted = await post({ _csrf: token });
    expect(accepted.status()).toBe(303);
    await waitFor(async () => (await taskStatus()).businessStatus === 'accepted', { what: 'the answer' });
  });

  it("refuses a cross-site form in the browser: another site's page cannot answer for the clinic", async () => {
    const { identifier } = await inbox.sendRequest({ performerIks: [WALDSEE.ik] });
    const taskId = (await inbox.taskOf(identifier, WALDSEE.ik)).id;
    // localhost is another site than 127.0.0.1: the inbox's SameSite=Strict cookies stay home.
    const attacker = await serve(
      (port) =>
        `<!doctype html><html lang="en"><body><form id="f" method="post" action="${inbox.baseUrl}/inbox/tasks/${taskId}/answer"><input name="businessStatus" value="declined"><input name="note" value="x"><input name="step" value="confirm"></form><script>document.getElementById('f').submit()</script><p>port ${port}</p></body></html>`,
    );
    try {
      await waldsee.goto(attacker.url);
      await waldsee.waitForURL((url) => url.pathname.startsWith('/inbox/'));
      expect(await waldsee.locator('main').innerText()).not.toContain('wurde gesendet');
      expect((await inbox.taskOf(identifier, WALDSEE.ik)).status).toBe('requested');
    } finally {
      await attacker.close();
    }
  });

  it('refuses every request without a session: pages go to the login, the live list answers 401', async () => {
    const anonymous = await inbox.newPage();
    for (const path of ['/inbox/tasks', `/inbox/tasks/${waldseeOnly.taskId}`, '/inbox/beds']) {
      const response = await anonymous.request.get(`${inbox.baseUrl}${path}`, { maxRedirects: 0 });
      expect(response.status()).toBe(303);
      expect(response.headers().location).toBe('/inbox/login');
    }
    const updates = await anonymous.request.get(`${inbox.baseUrl}/inbox/tasks/updates?since=2000-01-01T00:00:00Z`);
    expect(updates.status()).toBe(401);
    expect(await updates.json()).toEqual({ error: 'unauthorized', message: expect.any(String) });
    const answer = await anonymous.request.post(`${inbox.baseUrl}/inbox/tasks/${waldseeOnly.taskId}/answer`, {
      form: { businessStatus: 'declined', note: 'x', step: 'confirm' },
      maxRedirects: 0,
    });
    expect(answer.status()).toBe(303);
    expect(answer.headers().location).toBe('/inbox/login');
    expect((await taskStatus()).businessStatus).toBe('accepted');
  });

  it('sends a strict CSP and no-store with every page, and keeps the session in one httpOnly SameSite=Strict cookie', async () => {
    const fresh = await inbox.newPage();
    const login = await fresh.goto(`${inbox.baseUrl}/inbox/login`);
    expect(login?.headers()['content-security-policy']).toBe(CSP);
    expect(login?.headers()['cache-control']).toBe('no-store');
    const urls: string[] = [];
    fresh.on('request', (request) => urls.push(request.url()));
    await inbox.logIn(fresh, inbox.clinics[0]!);
    const cookies = await fresh.context().cookies();
    // The session's id, and beside it where the person left the list (sealed under a key of the session: docs/inbox.md).
    expect(cookies.map((cookie) => cookie.name).sort()).toEqual(['inbox_list', 'inbox_session']);
    for (const cookie of cookies) expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Strict', path: '/inbox', secure: false, expires: -1 });
    // The tokens stay with the web app: the browser holds a random id, never a token.
    const session = (await inbox.sessionOf(fresh))!;
    expect(cookies.find((cookie) => cookie.name === 'inbox_session')!.value).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(await fresh.content()).not.toContain(session.accessToken);

    for (const path of ['/inbox/tasks', `/inbox/tasks/${waldseeOnly.taskId}`, '/inbox/beds', `/inbox/tasks/${waldseeOnly.taskId}/documents/0/attachments/0`]) {
      const response = await fresh.request.get(`${inbox.baseUrl}${path}`);
      expect(response.status()).toBe(200);
      expect(response.headers()['cache-control']).toBe('no-store');
      if (!path.includes('attachments')) expect(response.headers()['content-security-policy']).toBe(CSP);
      else expect(response.headers()['content-security-policy']).toContain("default-src 'none'");
    }
    const updates = await fresh.request.get(`${inbox.baseUrl}/inbox/tasks/updates?since=2000-01-01T00:00:00Z`);
    expect(updates.headers()['cache-control']).toBe('no-store');
    const style = (await fresh.locator('link[rel="stylesheet"]').getAttribute('href'))!;
    expect((await fresh.request.get(`${inbox.baseUrl}${style}`)).headers()['cache-control']).toBe('public, max-age=31536000, immutable');

    // The pages' addresses carry ids, never patient data.
    await fresh.goto(`${inbox.baseUrl}/inbox/tasks/${waldseeOnly.taskId}`);
    for (const url of urls) expect(url).not.toMatch(/S72|Schenkelhals|Musterfrau|Erika|1956|Akutklinik|10115/);
  });

  it('logs out: the session is gone from the store, its refresh token and whole family are revoked, and the pages need a login again', async () => {
    const page = await inbox.newPage();
    await inbox.logIn(page, inbox.clinics[0]!);
    const { refreshToken } = (await inbox.sessionOf(page))!;
    const sessionId = (await page.context().cookies()).find((cookie) => cookie.name === 'inbox_session')!.value;
    expect(await familyIsLive(refreshToken)).toBe(true);
    await Promise.all([page.waitForURL(`${inbox.baseUrl}/inbox/login?loggedOut=1`), page.getByRole('button', { name: 'Abmelden' }).click()]);
    expect(await page.getByRole('status').innerText()).toContain('Sie wurden abgemeldet.');
    expect(await page.context().cookies()).toEqual([expect.objectContaining({ name: 'inbox_login' })]);
    // Revoked, not merely rotated away: no token of the session's family is left that could renew
    // (asked before the refresh below, which would end a live family as reuse anyway).
    expect(await familyIsLive(refreshToken)).toBe(false);
    expect((await inbox.stack.api('POST', '/api/v1/token/refresh', { body: { refreshToken } })).status).toBe(401);
    // The old session id opens nothing, also when a browser brings it back.
    await page.context().addCookies([{ name: 'inbox_session', value: sessionId, url: `${inbox.baseUrl}/inbox/` }]);
    await page.goto(`${inbox.baseUrl}/inbox/tasks`);
    expect(page.url()).toBe(`${inbox.baseUrl}/inbox/login?expired=1`);
  });

  it('refuses a login with a referrer account', async () => {
    const page = await inbox.newPage();
    await page.goto(`${inbox.baseUrl}/inbox/login`);
    await page.getByLabel('Benutzername').fill(inbox.referrer);
    await page.getByLabel('Passwort').fill(passwordOf(inbox.referrer));
    await page.getByRole('button', { name: 'Anmelden' }).click();
    expect(await page.getByRole('alert').innerText()).toContain('Dieser Zugang gehört keiner Klinik.');
    expect((await page.context().cookies()).map((cookie) => cookie.name)).toEqual(['inbox_login']);
  });
});

/** A page of another site (http://localhost:<port>, while the inbox is at 127.0.0.1). */
async function serve(page: (port: number) => string): Promise<{ url: string; close(): Promise<void> }> {
  const server: Server = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'text/html' }).end(page((server.address() as AddressInfo).port));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://localhost:${port}/`, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
