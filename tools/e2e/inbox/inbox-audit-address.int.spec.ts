import { randomUUID } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import type { AuditEvent, Bundle } from '@medplum/fhirtypes';
import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { passwordOf, startTestStack, type TestStack } from '../stack-harness';
import { FHIR_BASE, REFERRER_IK } from './inbox-harness';

/**
 * The clinic inbox reads and answers through the gateway's own API over loopback; the audit trail
 * (issue 14) must still name the address of the person's browser, not the gateway's own. The
 * browser here connects from 127.0.0.2 (all of 127.0.0.0/8 is the loopback on Linux) while the
 * inbox's own calls come from 127.0.0.1, so the two can be told apart. A plain HTTP client stands
 * in for the browser: Chromium cannot choose the address it connects from.
 */
const BROWSER_ADDRESS = '127.0.0.2';
const WALDSEE = { ik: '513400001', name: 'Reha-Klinik Am Waldsee' };

/** The `sub` of an access token: the user id the trail records as agent.altId. */
const subOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub: string }).sub;

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

/** A browser's requests from BROWSER_ADDRESS: one connection each, the cookies the inbox sets kept. */
class BrowserAt {
  private readonly cookies = new Map<string, string>();

  constructor(private readonly baseUrl: string) {}

  get(path: string, headers: Record<string, string> = {}): Promise<Answer> {
    return this.send('GET', path, headers);
  }

  /** A form post as the browser sends it from one of the inbox's own pages. */
  postForm(path: string, fields: Record<string, string>): Promise<Answer> {
    return this.send('POST', path, { 'content-type': 'application/x-www-form-urlencoded', origin: this.baseUrl }, new URLSearchParams(fields).toString());
  }

  private send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
    const cookie = [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
    return new Promise((resolve, reject) => {
      const req = httpRequest(`${this.baseUrl}${path}`, { method, localAddress: BROWSER_ADDRESS, headers: { connection: 'close', ...(cookie ? { cookie } : {}), ...headers } }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          for (const line of res.headers['set-cookie'] ?? []) {
            const [pair = ''] = line.split(';');
            const separator = pair.indexOf('=');
            const [name, value] = [pair.slice(0, separator).trim(), pair.slice(separator + 1).trim()];
            if (value) this.cookies.set(name, value);
            else this.cookies.delete(name);
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') });
        });
        res.on('error', reject);
      });
      req.on('error', reject);
      req.end(body);
    });
  }
}

const csrfOf = (page: string) => /name="_csrf" value="([^"]+)"/.exec(page)?.[1] ?? '';

describe("the audit trail of the clinic inbox: the person's address, not the gateway's", () => {
  let stack: TestStack;
  let referrerToken: string;
  let clinicUser: string;
  let identifier: string;
  let taskId: string;

  beforeAll(async () => {
    stack = await startTestStack({ NODE_ENV: 'test' });
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
      async () => (await stack.api<Bundle>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: referrerToken })).body.entry?.[0]?.resource?.id,
      { what: 'the Task of the request' },
    );
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const clinicEvents = async () => {
    const answer = await stack.api<Bundle<AuditEvent>>('GET', `/api/v2/fhir/AuditEvent?entity=${encodeURIComponent(identifier)}&_count=100`, { token: referrerToken });
    expect(answer.status).toBe(200);
    return (answer.body.entry ?? [])
      .map((entry) => entry.resource as AuditEvent)
      .filter((event) => event.agent[0]?.role?.[0]?.text === 'clinic')
      .map((event) => ({ action: event.action, subtype: event.subtype?.[0]?.code, user: event.agent[0]?.altId, address: event.agent[0]?.network?.address }));
  };

  it("records the inbox's reads and its answer with the browser's address and the person's user", async () => {
    const browser = new BrowserAt(stack.gatewayUrl);
    const login = await browser.get('/inbox/login');
    expect(login.status).toBe(200);
    const loggedIn = await browser.postForm('/inbox/login', { username: clinicUser, password: passwordOf(clinicUser), _csrf: csrfOf(login.text) });
    expect(loggedIn).toMatchObject({ status: 303, headers: { location: '/inbox/tasks' } });

    const view = await browser.get(`/inbox/tasks/${taskId}`);
    expect(view.status).toBe(200);
    const answered = await browser.postForm(`/inbox/tasks/${taskId}/answer`, { businessStatus: 'accepted', step: 'confirm', _csrf: csrfOf(view.text) });
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
    // Every access of the person, none with the gateway's own loopback address.
    expect(events.filter((event) => event.address !== BROWSER_ADDRESS)).toEqual([]);
  });

  it("does not believe an address a caller of the API claims, nor a made-up inbox secret: the connection's counts", async () => {
    const token = await stack.login(clinicUser);
    const before = (await clinicEvents()).length;
    const read = await new BrowserAt(stack.gatewayUrl).get(`/api/v2/fhir/Task/${taskId}`, {
      authorization: `Bearer ${token}`,
      'x-forwarded-for': '198.51.100.7',
      'x-bedrequest-inbox': Buffer.alloc(32, 1).toString('base64url'),
    });
    expect(read.status).toBe(200);
    expect((await clinicEvents()).slice(before)).toEqual([{ action: 'R', subtype: 'read', user: subOf(token), address: BROWSER_ADDRESS }]);
  });
});
