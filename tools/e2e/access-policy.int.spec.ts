import { randomUUID } from 'node:crypto';
import type { Page } from 'playwright-core';
import { waitFor } from '@bedrequest/testing';
import { documentBundle } from '@bedrequest/fhir-model/testing';
import { passwordOf } from './e2e-stack';
import { describeInChromium, REFERRER_IK, startInboxHarness, type InboxClinic, type InboxHarness } from './inbox/inbox-harness';

/**
 * Who may see what (docs/decisions.md, "Parties and credentials" and "Errors"; intake's
 * access/access-policy.ts): every caller against every resource of one request, through the public
 * API and the clinic inbox, against the real stack. One request of the owner names clinics A and B;
 * A accepts and is selected, which cancels B's Task. Only the allowed cells answer with data.
 *
 * The callers, each by its relation to the request:
 * - owner: the referrer that sent it;
 * - other referrer: another referrer party;
 * - addressed clinic (A): its Task is open, and it was selected;
 * - cancelled clinic (B): its Task was cancelled by A's selection; it keeps what it was sent before
 *   (the first version, the first document), never the selection version with the patient's name
 *   nor the document sent after the cancellation;
 * - other clinic (C): never named, and it carries the owner's IK (a hospital with an acute and a
 *   rehabilitation part under one IK): sharing an IK makes it no party to the request;
 * - disabled user: a second user of clinic A, disabled after it logged in (docs/parties.md,
 *   "Disabling": its access tokens are refused within about a second, refreshing at once). Its token
 *   reads nothing (401); its inbox session ends at its next page, and a new login is 401;
 * - service: a service token of the stack, which the public API never takes (401).
 */
const A = { ik: '516100001', name: 'Reha-Klinik A' };
const B = { ik: '516100002', name: 'Reha-Klinik B' };
// The owner's IK (the inbox harness's referrer's).
const C = { ik: REFERRER_IK, name: 'Reha-Klinik C' };

type CallerName = 'owner' | 'other referrer' | 'addressed clinic' | 'cancelled clinic' | 'other clinic' | 'disabled user' | 'service';
const CALLERS: readonly CallerName[] = ['owner', 'other referrer', 'addressed clinic', 'cancelled clinic', 'other clinic', 'disabled user', 'service'];

interface Searchset {
  entry?: { resource: Record<string, unknown> }[];
}
interface AuditEventShape {
  agent: { role?: { text?: string }[]; who?: { identifier?: { value?: string } }; altId?: string }[];
}

/**
 * What each caller gets of each resource, one line per cell: the status and a summary of the data
 * (which Tasks, which version, which documents, whose audit entries). `a` is A's Task, `b` B's.
 */
const EXPECTED: Record<CallerName, Record<string, string>> = {
  owner: {
    'Task search': '200 a,b',
    'Task read a': '200',
    'Task read b': '200',
    'clinic list': '403',
    'bundle a': '403',
    'bundle b': '403',
    'versions a': '403',
    'versions b': '403',
    'documents a': '403',
    'documents b': '403',
    'document 1 of b': '403',
    'AuditEvent search': '200 A,B,referrer',
  },
  'other referrer': {
    'Task search': '200 none',
    'Task read a': '404',
    'Task read b': '404',
    'clinic list': '403',
    'bundle a': '403',
    'bundle b': '403',
    'versions a': '403',
    'versions b': '403',
    'documents a': '403',
    'documents b': '403',
    'document 1 of b': '403',
    'AuditEvent search': '200 none',
  },
  'addressed clinic': {
    'Task search': '200 a',
    'Task read a': '200',
    'Task read b': '404',
    'clinic list': '200 a',
    'bundle a': '200 selection',
    'bundle b': '404',
    'versions a': '200 1,2',
    'versions b': '404',
    'documents a': '200 before,after',
    'documents b': '404',
    'document 1 of b': '404',
    'AuditEvent search': '200 A',
  },
  'cancelled clinic': {
    'Task search': '200 b',
    'Task read a': '404',
    'Task read b': '200',
    'clinic list': '200 b',
    'bundle a': '404',
    'bundle b': '200 proposal',
    'versions a': '404',
    'versions b': '200 1',
    'documents a': '404',
    'documents b': '200 before',
    'document 1 of b': '404',
    'AuditEvent search': '200 B',
  },
  'other clinic': {
    'Task search': '200 none',
    'Task read a': '404',
    'Task read b': '404',
    'clinic list': '200 none',
    'bundle a': '404',
    'bundle b': '404',
    'versions a': '404',
    'versions b': '404',
    'documents a': '404',
    'documents b': '404',
    'document 1 of b': '404',
    'AuditEvent search': '200 none',
  },
  'disabled user': {
    'Task search': '401',
    'Task read a': '401',
    'Task read b': '401',
    'clinic list': '401',
    'bundle a': '401',
    'bundle b': '401',
    'versions a': '401',
    'versions b': '401',
    'documents a': '401',
    'documents b': '401',
    'document 1 of b': '401',
    'AuditEvent search': '401',
  },
  service: {
    'Task search': '401',
    'Task read a': '401',
    'Task read b': '401',
    'clinic list': '401',
    'bundle a': '401',
    'bundle b': '401',
    'versions a': '401',
    'versions b': '401',
    'documents a': '401',
    'documents b': '401',
    'document 1 of b': '401',
    'AuditEvent search': '401',
  },
};

/** The inbox, for the clinics' users: the list row, the request's page, and each document's attachment. */
const EXPECTED_INBOX: Record<'addressed clinic' | 'cancelled clinic' | 'other clinic', Record<string, string>> = {
  'addressed clinic': {
    'list row a': 'shown',
    'list row b': 'absent',
    'page a': '200 with the name',
    'page b': '404',
    'document 0 of a': '200 before',
    'document 1 of a': '200 after',
    'document 0 of b': '404',
    'document 1 of b': '404',
  },
  'cancelled clinic': {
    'list row a': 'absent',
    'list row b': 'shown',
    'page a': '404',
    'page b': '200 masked',
    'document 0 of a': '404',
    'document 1 of a': '404',
    'document 0 of b': '200 before',
    'document 1 of b': '404',
  },
  'other clinic': {
    'list row a': 'absent',
    'list row b': 'absent',
    'page a': '404',
    'page b': '404',
    'document 0 of a': '404',
    'document 1 of a': '404',
    'document 0 of b': '404',
    'document 1 of b': '404',
  },
};

const BEFORE = `Befund vor der Auswahl (${randomUUID()})`;
const AFTER = `Befund nach der Auswahl (${randomUUID()})`;

describeInChromium('who may see what: every caller against every resource of a request, through the API and the inbox', () => {
  let inbox: InboxHarness;
  let identifier: string;
  const tasks = { a: '', b: '' };
  const tokens = {} as Record<CallerName, string>;
  const users = {} as Record<'addressed clinic' | 'cancelled clinic' | 'other clinic' | 'disabled user', InboxClinic>;
  const pages = {} as Record<'addressed clinic' | 'cancelled clinic' | 'other clinic' | 'disabled user', Page>;
  const suffix = randomUUID().slice(0, 8);
  let startedAt = 0;

  beforeAll(async () => {
    startedAt = Date.now();
    inbox = await startInboxHarness([A, B, C], { WEB_SESSION_REFRESH_MARGIN_SECONDS: '3600' });
    const { stack } = inbox;
    [users['addressed clinic'], users['cancelled clinic'], users['other clinic']] = inbox.clinics as [InboxClinic, InboxClinic, InboxClinic];
    users['disabled user'] = { ...A, username: `access-disabled-${suffix}` };
    await stack.createClinicUser(users['disabled user'].username, A.ik);
    await stack.createReferrer(`access-other-${suffix}`, ['261300009'], 'https://other-hospital.example/fhir');
    tokens.owner = inbox.referrerToken;
    tokens['other referrer'] = await stack.login(`access-other-${suffix}`);
    for (const caller of ['addressed clinic', 'cancelled clinic', 'other clinic', 'disabled user'] as const) {
      tokens[caller] = await stack.login(users[caller].username);
      pages[caller] = await inbox.newPage();
      await inbox.logIn(pages[caller], users[caller]);
    }
    // The disabled user's page leaves the list, whose live updates would otherwise renew its session meanwhile.
    await pages['disabled user'].goto('about:blank');
    const serviceToken = await fetch(new URL('/internal/service-tokens', stack.env.AUTH_URL), {
      method: 'POST',
      headers: { authorization: `Basic ${Buffer.from(`intake:${stack.env.SERVICE_CLIENT_SECRET}`).toString('base64')}` },
    });
    tokens.service = ((await serviceToken.json()) as { accessToken: string }).accessToken;

    // The request to A and B, a document, both answer, A is selected (B's Task is cancelled), another document.
    ({ identifier } = await inbox.sendRequest({ performerIks: [A.ik, B.ik] }));
    tasks.a = (await inbox.taskOf(identifier, A.ik)).id;
    tasks.b = (await inbox.taskOf(identifier, B.ik)).id;
    await sendDocument(BEFORE);
    await documentsReach(tasks.b, tokens['cancelled clinic'], 1);
    for (const [task, caller] of [
      [tasks.a, 'addressed clinic'],
      [tasks.b, 'cancelled clinic'],
    ] as const) {
      const answer = await stack.api('POST', `/api/v1/clinic/tasks/${task}/answer`, { token: tokens[caller], body: { businessStatus: 'accepted' } });
      expect(answer.status).toBe(200);
    }
    await inbox.sendRequest({ requestIdentifier: identifier, performerIks: [A.ik], orderDetail: 'selected-provider', patient: 'complete' });
    await waitFor(
      async () => (await inbox.taskOf(identifier, B.ik)).status === 'cancelled' && (await inbox.taskOf(identifier, A.ik)).status === 'in-progress',
      {
        what: "A's selection",
      },
    );
    await sendDocument(AFTER);
    await documentsReach(tasks.a, tokens['addressed clinic'], 2);

    // The second user of A is disabled now, after its login: its token and its session were issued before.
    await stack.admin('user', 'disable', '--username', users['disabled user'].username);
    // The gateway reads auth's revocations every second; the bound only catches a hang.
    await waitFor(async () => (await stack.api('GET', `/api/v2/fhir/Task/${tasks.a}`, { token: tokens['disabled user'] })).status === 401, {
      what: "the disabled user's access token refused",
      intervalMs: 100,
    });
  }, 300_000);

  afterAll(async () => {
    await inbox?.stop();
    // The runtime of the whole file (one stack, one request, one pass over the cells), for the record.
    console.info(
      `access-policy: ${CALLERS.length} callers × ${Object.keys(EXPECTED.owner).length} API cells and the inbox in ${((Date.now() - startedAt) / 1000).toFixed(1)} s`,
    );
  });

  const sendDocument = async (text: string) => {
    const answer = await inbox.stack.api('POST', '/api/v2/fhir/Bundle', {
      token: inbox.referrerToken,
      body: documentBundle({ requestIdentifier: identifier, documents: [{ contentType: 'text/plain', text }] }),
    });
    expect(answer.status).toBe(202);
  };
  const documentsReach = (task: string, token: string, count: number) =>
    waitFor(async () => (await inbox.stack.api<{ total: number }>('GET', `/api/v1/clinic/tasks/${task}/documents`, { token })).body.total === count, {
      what: `${count} documents`,
    });

  /** A document's text, as the clinic API answers its DocumentBundle. */
  const labelOfDocument = (bundle: unknown) => {
    const entries = (bundle as { entry: { resource: { resourceType: string; content?: { attachment: { data: string } }[] } }[] }).entry;
    const data = entries.find((entry) => entry.resource.resourceType === 'DocumentReference')!.resource.content![0]!.attachment.data;
    return labelOfText(Buffer.from(data, 'base64').toString());
  };
  const labelOfText = (text: string) => (text.includes(BEFORE) ? 'before' : text.includes(AFTER) ? 'after' : `unknown ${text.slice(0, 40)}`);
  const labelOfTask = (id: unknown) => (id === tasks.a ? 'a' : id === tasks.b ? 'b' : `unknown ${String(id)}`);
  const listOf = (labels: string[]) => (labels.length ? [...new Set(labels)].sort().join(',') : 'none');

  /** One cell: the call, and the summary of its answer. */
  async function cell(token: string, resource: string): Promise<string> {
    const { stack } = inbox;
    const taskOf = (name: string) => (name.endsWith(' a') ? tasks.a : tasks.b);
    const get = <T>(path: string) => stack.api<T>('GET', path, { token });
    if (resource === 'Task search') {
      const { status, body } = await get<Searchset>(`/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`);
      return status === 200 ? `200 ${listOf((body.entry ?? []).map((entry) => labelOfTask(entry.resource.id)))}` : String(status);
    }
    if (resource.startsWith('Task read')) return String((await get(`/api/v2/fhir/Task/${taskOf(resource)}`)).status);
    if (resource === 'clinic list') {
      const { status, body } = await get<{ items: { id: string }[] }>('/api/v1/clinic/tasks?_count=1000');
      return status === 200
        ? `200 ${listOf(
            body.items
              .map((item) => item.id)
              .filter((id) => id === tasks.a || id === tasks.b)
              .map(labelOfTask),
          )}`
        : String(status);
    }
    if (resource.startsWith('bundle')) {
      const { status, body } = await get(`/api/v1/clinic/tasks/${taskOf(resource)}/bundle`);
      if (status !== 200) return String(status);
      // The selection version is the only one that names the patient.
      return JSON.stringify(body).includes('Musterfrau') ? '200 selection' : '200 proposal';
    }
    if (resource.startsWith('versions')) {
      const { status, body } = await get<{ items: { version: number }[] }>(`/api/v1/clinic/tasks/${taskOf(resource)}/versions`);
      return status === 200 ? `200 ${body.items.map((item) => item.version).join(',')}` : String(status);
    }
    if (resource.startsWith('documents')) {
      const { status, body } = await get<{ items: unknown[] }>(`/api/v1/clinic/tasks/${taskOf(resource)}/documents`);
      return status === 200 ? `200 ${body.items.map(labelOfDocument).join(',')}` : String(status);
    }
    if (resource === 'document 1 of b') {
      const { status, body } = await get(`/api/v1/clinic/tasks/${tasks.b}/documents/1`);
      return status === 200 ? `200 ${labelOfDocument(body)}` : String(status);
    }
    if (resource === 'AuditEvent search') {
      const { status, body } = await get<Searchset>(`/api/v2/fhir/AuditEvent?entity=${encodeURIComponent(identifier)}&_count=500`);
      if (status !== 200) return String(status);
      // Each entry's agent as a label: a clinic by its IK, the referrer by its role (its IK is C's).
      const agents = (body.entry ?? []).flatMap((entry) =>
        (entry.resource as unknown as AuditEventShape).agent.map((agent) => {
          const [role, ik] = [agent.role?.[0]?.text, agent.who?.identifier?.value];
          if (role === 'clinic') return ik === A.ik ? 'A' : ik === B.ik ? 'B' : `clinic ${ik}`;
          return role ?? 'unknown';
        }),
      );
      return `200 ${listOf(agents)}`;
    }
    throw new Error(`no such resource: ${resource}`);
  }

  it('answers each caller exactly the cells the access policy allows, through the public API', async () => {
    const seen = {} as Record<CallerName, Record<string, string>>;
    for (const caller of CALLERS) {
      seen[caller] = {};
      for (const resource of Object.keys(EXPECTED[caller])) seen[caller][resource] = await cell(tokens[caller], resource);
    }
    expect(seen).toEqual(EXPECTED);
  });

  it('shows each clinic in the inbox exactly what the API answers it', async () => {
    const seen = {} as Record<keyof typeof EXPECTED_INBOX, Record<string, string>>;
    for (const caller of Object.keys(EXPECTED_INBOX) as (keyof typeof EXPECTED_INBOX)[]) {
      const page = pages[caller];
      const url = (path: string) => `${inbox.baseUrl}/inbox${path}`;
      await page.goto(url('/tasks'));
      const row = async (task: string) => ((await page.locator(`tr[data-task-id="${task}"]`).count()) === 1 ? 'shown' : 'absent');
      const view = async (task: string) => {
        const response = await page.request.get(url(`/tasks/${task}`));
        if (response.status() !== 200) return String(response.status());
        return `200 ${(await response.text()).includes('Musterfrau') ? 'with the name' : 'masked'}`;
      };
      const attachment = async (task: string, position: number) => {
        const response = await page.request.get(url(`/tasks/${task}/documents/${position}/attachments/0`));
        return response.status() === 200 ? `200 ${labelOfText(await response.text())}` : String(response.status());
      };
      seen[caller] = {
        'list row a': await row(tasks.a),
        'list row b': await row(tasks.b),
        'page a': await view(tasks.a),
        'page b': await view(tasks.b),
        'document 0 of a': await attachment(tasks.a, 0),
        'document 1 of a': await attachment(tasks.a, 1),
        'document 0 of b': await attachment(tasks.b, 0),
        'document 1 of b': await attachment(tasks.b, 1),
      };
    }
    expect(seen).toEqual(EXPECTED_INBOX);
  });

  it("ends a disabled user's inbox session at its next page, and refuses its login and its access token", async () => {
    const page = pages['disabled user'];
    const list = await page.request.get(`${inbox.baseUrl}/inbox/tasks`, { maxRedirects: 0 });
    expect({ status: list.status(), location: list.headers().location }).toEqual({ status: 303, location: '/inbox/login?expired=1' });
    // The session is gone: the next page goes to the login as well.
    expect((await page.request.get(`${inbox.baseUrl}/inbox/tasks/${tasks.a}`, { maxRedirects: 0 })).headers().location).toMatch(/^\/inbox\/login/);
    const login = await inbox.stack.api('POST', '/api/v1/token/login', {
      body: { username: users['disabled user'].username, password: passwordOf(users['disabled user'].username) },
    });
    expect(login.status).toBe(401);
    // Its access token, issued before, is refused (the table above).
    expect((await inbox.stack.api('GET', `/api/v2/fhir/Task/${tasks.a}`, { token: tokens['disabled user'] })).status).toBe(401);
  });
});
