// The clinic inbox in real Chromium (Debian's `chromium`, driven by playwright-core) against the
// whole stack started in-process (startE2eStack): a referrer, clinics with one user each, and
// helpers to send requests through the API and to log a browser page in.
import { existsSync } from 'node:fs';
import axe from 'axe-core';
import { randomUUID } from 'node:crypto';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Bundle } from '@medplum/fhirtypes';
import { Redis } from 'ioredis';
import { WebhookReceiver, testEnvironment, waitFor } from '@bedrequest/testing';
import { admissionRequestBundle, type AdmissionRequestFixtureOptions } from '@bedrequest/fhir-model/testing';
import { SessionStore, type SessionRecord } from '../../../apps/web/src/session/session-store';
import { passwordOf, startE2eStack, type E2eStack } from '../e2e-stack';
import { CHROMIUM } from './chromium-path';

export { CHROMIUM };

/** The page's serious and critical axe-core violations as it is now, each with where it is: what the inbox's pages must not have (docs/inbox.md). */
export async function seriousViolations(target: Page): Promise<string[]> {
  await target.evaluate(axe.source);
  const results = await target.evaluate(() => (window as unknown as { axe: typeof axe }).axe.run(document, { resultTypes: ['violations'] }));
  return results.violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => `${violation.id}: ${violation.nodes.map((node) => node.target.join(' ')).join(', ')}`);
}

/**
 * `describe`, or `describe.skip` with the reason printed once, where Chromium is not installed
 * (`.ci/run` installs Debian's package when it is missing).
 */
export function describeInChromium(name: string, body: () => void): void {
  if (existsSync(CHROMIUM)) {
    describe(name, body);
    return;
  }
  console.warn(`skipping "${name}": ${CHROMIUM} is missing (apt-get install -y chromium; .ci/run does it)`);
  // eslint-disable-next-line jest/no-disabled-tests -- skipped on purpose, and said so above: no browser on this machine
  describe.skip(name, body);
}

export const FHIR_BASE = 'https://inbox-hospital.example/fhir';
export const REFERRER_IK = '261300001';
/** The referrer party's name and contact, which the request page's summary shows. */
export const REFERRER_PARTY = { name: 'Akutklinik Mitte, Sozialdienst', contactName: 'Frau Kaiser', contactPhone: '+49 30 1234-567' };

export interface InboxClinic {
  ik: string;
  name: string;
  username: string;
}

export interface InboxHarness {
  stack: E2eStack;
  browser: Browser;
  /** `http://127.0.0.1:<port>`: the web app, which serves the inbox at /inbox/. */
  baseUrl: string;
  /** The referrer's username (its password is `passwordOf(username)`). */
  referrer: string;
  referrerToken: string;
  clinics: InboxClinic[];
  /** The referrer's webhook endpoint, subscribed to AdmissionResponse. */
  webhooks: WebhookReceiver;
  /** Posts an AdmissionRequestBundle as the referrer (202 expected) and returns its identifier and bundle. */
  sendRequest(options?: AdmissionRequestFixtureOptions): Promise<{ identifier: string; bundle: Bundle }>;
  /** The Task of a request for a clinic, as the referrer sees it. */
  taskOf(identifier: string, clinicIk: string): Promise<{ id: string; status: string; businessStatus?: string }>;
  /** A new browser context (its own cookies and localStorage) with one page. */
  newPage(options?: { width?: number; height?: number }): Promise<Page>;
  /** Logs the page in through the login form. */
  logIn(page: Page, clinic: InboxClinic): Promise<void>;
  /** Fills and sends the hospital workspace's login form (docs/workspace.md); where it leads is the caller's to check. */
  logInToWorkspace(page: Page, username: string, password?: string): Promise<void>;
  /** What the web app keeps of the page's session in Redis (its tokens), read with the page's session cookie. */
  sessionOf(page: Page): Promise<SessionRecord | undefined>;
  stop(): Promise<void>;
}

/** `env`: settings of the stack beside the defaults (e.g. a higher rate limit for a test that seeds many requests). */
export async function startInboxHarness(
  clinics: readonly { ik: string; name: string; departments?: string[] }[],
  env: Record<string, string> = {},
): Promise<InboxHarness> {
  const stack = await startE2eStack({ NODE_ENV: 'test', ...env });
  const contexts: BrowserContext[] = [];
  const webhooks = new WebhookReceiver();
  let browser: Browser | undefined;
  try {
    const suffix = randomUUID().slice(0, 8);
    const referrer = `inbox-referrer-${suffix}`;
    await stack.createReferrer(referrer, [REFERRER_IK], FHIR_BASE);
    const registered: InboxClinic[] = [];
    for (const clinic of clinics) {
      await stack.registerClinic(clinic.ik, clinic.name, clinic.departments ?? ['2300', '0300']);
      const username = `inbox-${clinic.ik}-${suffix}`;
      await stack.createClinicUser(username, clinic.ik);
      registered.push({ ik: clinic.ik, name: clinic.name, username });
    }
    const referrerToken = await stack.login(referrer);
    // A hospital's social service as the clinics see it (docs/parties.md, "Contact"): its name and whom to call.
    const { sub } = JSON.parse(Buffer.from(referrerToken.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub: string };
    await stack.admin(
      'party',
      'update',
      '--id',
      sub,
      '--name',
      REFERRER_PARTY.name,
      '--contact-name',
      REFERRER_PARTY.contactName,
      '--contact-phone',
      REFERRER_PARTY.contactPhone,
    );
    const callbackUrl = await webhooks.start();
    const subscription = await stack.api<{ secret: string }>('POST', '/api/v1/subscriptions', {
      token: referrerToken,
      body: { eventType: 'AdmissionResponse', callbackUrl },
    });
    if (subscription.status !== 201) throw new Error(`subscription failed with ${subscription.status}`);
    webhooks.secret = subscription.body.secret;

    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: process.getuid?.() === 0 ? ['--no-sandbox'] : [] });
    const launched = browser;
    const baseUrl = stack.webUrl;

    return {
      stack,
      browser: launched,
      baseUrl,
      referrer,
      referrerToken,
      clinics: registered,
      webhooks,
      sendRequest: async (options = {}) => {
        const identifier = options.requestIdentifier ?? `${FHIR_BASE}/ServiceRequest/${randomUUID()}`;
        const bundle = admissionRequestBundle({
          fhirBase: FHIR_BASE,
          requesterIk: REFERRER_IK,
          performerIks: registered.map((clinic) => clinic.ik),
          ...options,
          requestIdentifier: identifier,
        });
        const answer = await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrerToken, body: bundle });
        if (answer.status !== 202) throw new Error(`the request was refused with ${answer.status}: ${JSON.stringify(answer.body)}`);
        return { identifier, bundle };
      },
      taskOf: async (identifier, clinicIk) =>
        waitFor(
          async () => {
            const search = await stack.api<{
              entry?: { resource: { id: string; status: string; owner: { identifier: { value: string } }; businessStatus?: { coding: { code: string }[] } } }[];
            }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: referrerToken });
            const task = search.body.entry?.find((entry) => entry.resource.owner.identifier.value === clinicIk)?.resource;
            return task && { id: task.id, status: task.status, ...(task.businessStatus ? { businessStatus: task.businessStatus.coding[0]?.code } : {}) };
          },
          { what: `the Task of ${clinicIk}` },
        ),
      newPage: async (size = {}) => {
        const context = await launched.newContext({
          viewport: { width: size.width ?? 1280, height: size.height ?? 900 },
          locale: 'de-DE',
          timezoneId: 'Europe/Berlin',
        });
        contexts.push(context);
        return context.newPage();
      },
      logIn: async (page, clinic) => {
        await page.goto(`${baseUrl}/inbox/login`);
        await page.getByLabel('Benutzername').fill(clinic.username);
        await page.getByLabel('Passwort').fill(passwordOf(clinic.username));
        await Promise.all([page.waitForURL(`${baseUrl}/inbox/tasks`), page.getByRole('button', { name: 'Anmelden' }).click()]);
      },
      logInToWorkspace: async (page, username, password = passwordOf(username)) => {
        await page.goto(`${baseUrl}/workspace/login`);
        await page.getByLabel('Benutzername').fill(username);
        await page.getByLabel('Passwort').fill(password);
        await page.getByRole('button', { name: 'Anmelden' }).click();
      },
      sessionOf: async (page) => {
        const id = (await page.context().cookies()).find((cookie) => cookie.name === 'inbox_session')?.value;
        if (!id) return undefined;
        const redis = new Redis(testEnvironment().redisUrl, { keyPrefix: stack.env.REDIS_KEY_PREFIX, lazyConnect: true });
        try {
          await redis.connect();
          return await new SessionStore(redis).load(id);
        } finally {
          redis.disconnect();
        }
      },
      stop: async () => {
        for (const context of contexts) await context.close().catch(() => undefined);
        await launched.close().catch(() => undefined);
        await webhooks.stop();
        await stack.stop();
      },
    };
  } catch (error) {
    await browser?.close().catch(() => undefined);
    await webhooks.stop();
    await stack.stop();
    throw error;
  }
}
