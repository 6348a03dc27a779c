import { randomUUID } from 'node:crypto';
import type { AuditEvent, Bundle } from '@medplum/fhirtypes';
import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { passwordOf, startE2eStack, type E2eStack } from '../e2e-stack';
import { HttpBrowser, csrfOf } from './http-browser';
import { FHIR_BASE, REFERRER_IK } from './inbox-harness';

/**
 * The clinic inbox (the web app) reads and answers through the gateway's public API; the audit
 * trail must still name the address of the person's browser, not the web app's. The stack's
 * services trust one proxy, 127.0.0.1, the address they call each other from (TRUSTED_PROXIES);
 * the browser here connects from 127.0.0.2 (all of 127.0.0.0/8 is the loopback on Linux), so the
 * two can be told apart, and whatever X-Forwarded-For the browser claims counts for nothing. A
 * plain HTTP client stands in for the browser: Chromium cannot choose the address it connects from.
 */
const BROWSER_ADDRESS = '127.0.0.2';
/** What a client claims in X-Forwarded-For from an address that is not a trusted proxy. */
const FORGED_ADDRESS = '198.51.100.7';
const WALDSEE = { ik: '513400001', name: 'Reha-Klinik Am Waldsee' };

/** The `sub` of an access token: the user id the trail records as agent.altId. */
const subOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub: string }).sub;

describe("the audit trail of the clinic inbox: the person's address, not the web app's", () => {
  let stack: E2eStack;
  let referrerToken: string;
  let clinicUser: string;
  let identifier: string;
  let taskId: string;

  beforeAll(async () => {
    stack = await startE2eStack({ NODE_ENV: 'test' });
    const suffix = randomUUID().slice(0, 8);
    await stack.registerClinic(WALDSEE.ik, WALDSEE.name, ['2300']);
    clinicUser = `inbox-audit-${suffix}`;
    await stack.createClinicUser(clinicUser, WALDSEE.ik);
    await stack.createReferrer(`inbox-audit-referrer-${suffix}`, [REFERRER_IK], FHIR_BASE);
    referrerToken = await stack.login(`inbox-audit-referrer-${suffix}`);
    identifier = `${FHIR_BASE}/ServiceRequest/${randomUUID()}`;
    const bundle = admissionRequestBundle({ fhirBase: FHIR_BASE, requesterIk: REFERRER_IK, performerIks: [WALDSEE.ik], requestIdentifier: identifier });
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrerToken, body: bundle })).status).toBe(202);
    taskId = await waitFor(
      async () =>
        (await stack.api<Bundle>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: referrerToken })).body.entry?.[0]?.resource
          ?.id,
      { what: 'the Task of the request' },
    );
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const clinicEvents = async () => {
    // The clinic's own view: only its own party sees who of it acted, from where.
    const answer = await stack.api<Bundle<AuditEvent>>('GET', `/api/v2/fhir/AuditEvent?entity=${encodeURIComponent(identifier)}&_count=100`, {
      token: await stack.login(clinicUser),
    });
    expect(answer.status).toBe(200);
    return (answer.body.entry ?? [])
      .map((entry) => entry.resource as AuditEvent)
      .filter((event) => event.agent[0]?.role?.[0]?.text === 'clinic')
      .map((event) => ({ action: event.action, subtype: event.subtype?.[0]?.code, user: event.agent[0]?.altId, address: event.agent[0]?.network?.address }));
  };

  it("records the inbox's reads and its answer with the browser's address and the person's user", async () => {
    const browser = new HttpBrowser(stack.webUrl, BROWSER_ADDRESS);
    const login = await browser.get('/inbox/login');
    expect(login.status).toBe(200);
    const loggedIn = await browser.postForm(
      '/inbox/login',
      { username: clinicUser, password: passwordOf(clinicUser), _csrf: csrfOf(login.text) },
      { 'x-forwarded-for': FORGED_ADDRESS },
    );
    expect(loggedIn).toMatchObject({ status: 303, headers: { location: '/inbox/tasks' } });

    const view = await browser.get(`/inbox/tasks/${taskId}`, { 'x-forwarded-for': FORGED_ADDRESS });
    expect(view.status).toBe(200);
    const answered = await browser.postForm(
      `/inbox/tasks/${taskId}/answer`,
      { businessStatus: 'accepted', step: 'confirm', _csrf: csrfOf(view.text) },
      { 'x-forwarded-for': FORGED_ADDRESS },
    );
    expect(answered.status).toBe(303);

    const user = subOf(await stack.login(clinicUser));
    const events = await clinicEvents();
    expect(events).toEqual(
      expect.arrayContaining([
        { action: 'R', subtype: 'read', user, address: BROWSER_ADDRESS },
        { action: 'R', subtype: 'vread', user, address: BROWSER_ADDRESS },
        { action: 'U', subtype: 'update', user, address: BROWSER_ADDRESS },
      ]),
    );
    // Every access of the person, none with the web app's loopback address or the one the browser claimed.
    expect(events.filter((event) => event.address !== BROWSER_ADDRESS)).toEqual([]);
  });

  it("does not believe an address a caller of the API claims from a peer that is not a trusted proxy: the connection's counts", async () => {
    const token = await stack.login(clinicUser);
    const before = (await clinicEvents()).length;
    const read = await new HttpBrowser(stack.gatewayUrl, BROWSER_ADDRESS).get(`/api/v2/fhir/Task/${taskId}`, {
      authorization: `Bearer ${token}`,
      'x-forwarded-for': FORGED_ADDRESS,
    });
    expect(read.status).toBe(200);
    expect((await clinicEvents()).slice(before)).toEqual([{ action: 'R', subtype: 'read', user: subOf(token), address: BROWSER_ADDRESS }]);
  });
});
