// The sandbox's demo parties and demo clinics (docs/sandbox.md) against a real stack: the referrer,
// its SMART client and the clinics registered once through the admin command line, and the clinics
// answering through the public API by a rules file of this test's own, with short delays: each kind
// of rule the shipped file uses, a change of the file taking effect without a restart (a new clinic
// registered on the way), and a file with a problem leaving the rules in force with one line.
import { createPrivateKey, createPublicKey, randomUUID } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { admissionRequestBundle, documentBundle } from '@bedrequest/fhir-model/testing';
import { ClinicAgents, registerClinics, registerReferrer, root, SANDBOX_REFERRER, type SandboxClinic } from '@bedrequest/stack';
import { waitFor } from '@bedrequest/testing';
import { clientAssertion, clientTokenForm, type TestClientKey } from './client-assertion';
import { startE2eStack, type E2eStack } from './e2e-stack';

const PROFILE_BASE = 'https://bedrequest.example.org';
const [ORTHOPAEDICS, QUERY, DECLINE, MORE_DATA, LATE, ADDED] = ['510000901', '510000902', '510000903', '510000904', '510000905', '510000906'];

interface FhirTask {
  id: string;
  status: string;
  authoredOn: string;
  owner: { identifier: { value: string } };
  businessStatus?: { coding: { code: string }[] };
  note?: { text: string; time: string }[];
  restriction?: { period: { end: string } };
}

const clinic = (ik: string, username: string, rules: unknown[]) => ({ ik, name: `Testklinik ${username}`, departments: ['2300', '0300'], username, rules });
/** The shipped file's kinds of rule, with delays a test can wait for. */
const RULES = {
  clinics: [
    clinic(ORTHOPAEDICS, 'test-orthopaedics', [
      { when: { department: '2300', minDaysAhead: 7 }, answer: { businessStatus: 'accepted', note: 'Aufnahme möglich.' } },
      { when: { department: '2300' }, answer: { businessStatus: 'declined', note: 'Erst ab 7 Tagen Vorlauf.' } },
      { answer: { businessStatus: 'declined', note: 'Nur Orthopädie.' } },
    ]),
    clinic(QUERY, 'test-query', [
      { when: { asked: 'first' }, answer: { businessStatus: 'query', note: 'Mobil?' } },
      { when: { asked: 'again' }, answer: { businessStatus: 'accepted' } },
    ]),
    clinic(DECLINE, 'test-decline', [{ answer: { businessStatus: 'declined', note: 'Kein Bett.', afterSeconds: 2 } }]),
    clinic(MORE_DATA, 'test-more-data', [
      { when: { asked: 'first' }, answer: { businessStatus: 'more-data-required', note: 'Bitte Arztbrief.' } },
      { when: { asked: 'again' }, answer: { businessStatus: 'accepted' } },
    ]),
    clinic(LATE, 'test-late', [{ answer: { businessStatus: 'accepted', note: 'Spät, aber ja.', afterDeadline: true } }]),
  ],
};

const daysAhead = (days: number) => new Date(Date.now() + days * 86_400_000).toISOString().slice(0, 10);

describe("the sandbox's demo parties and clinics", () => {
  // A fresh clone has no tmp/ until something makes it.
  mkdirSync(join(root, 'tmp'), { recursive: true });
  const directory = mkdtempSync(join(root, 'tmp', 'sandbox-clinics-'));
  const rulesFile = join(directory, 'clinics.json');
  const lines: string[] = [];
  let stack: E2eStack;
  let agents: ClinicAgents;
  let referrer: string;

  const writeRules = (rules: unknown) => writeFileSync(rulesFile, typeof rules === 'string' ? rules : JSON.stringify(rules, null, 2));
  /** Sends a request of the sandbox referrer; returns its identifier. */
  const send = async (performerIks: string[], options: Parameters<typeof admissionRequestBundle>[0] = {}) => {
    const requestIdentifier = options.requestIdentifier ?? `${SANDBOX_REFERRER.fhirBase}/ServiceRequest/${randomUUID()}`;
    const bundle = admissionRequestBundle({ fhirBase: SANDBOX_REFERRER.fhirBase, occurrenceDate: daysAhead(10), ...options, requestIdentifier, performerIks });
    const answer = await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: bundle });
    expect(answer.status).toBe(202);
    return requestIdentifier;
  };
  const taskOf = async (identifier: string, ik: string) => {
    const search = await stack.api<{ entry?: { resource: FhirTask }[] }>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}&owner=${ik}`, {
      token: referrer,
    });
    return search.body.entry?.[0]?.resource;
  };
  /** The Task once its clinic's answer is `code`; what it answered and noted last. */
  const answered = async (identifier: string, ik: string, code: string, timeoutMs = 15_000) => {
    const task = await waitFor(
      async () => {
        const found = await taskOf(identifier, ik);
        return found?.businessStatus?.coding[0]?.code === code ? found : undefined;
      },
      { what: `${ik} to answer ${code}`, timeoutMs, intervalMs: 200 },
    );
    return { status: task.status, note: task.note?.at(-1)?.text, task };
  };

  beforeAll(async () => {
    writeRules(RULES);
    stack = await startE2eStack({ OVERDUE_SWEEP_SECONDS: '1' });
    const sandboxReferrer = await registerReferrer(stack.stack, directory);
    referrer = await stack.login(sandboxReferrer.username, sandboxReferrer.password);
    agents = await ClinicAgents.start({
      gatewayUrl: stack.gatewayUrl,
      rulesFile,
      register: (clinics: SandboxClinic[]) => registerClinics(stack.stack, clinics),
      log: (line) => lines.push(line),
      pollMs: 200,
    });
  }, 120_000);

  afterAll(async () => {
    await agents?.stop();
    await stack?.stop();
    rmSync(directory, { recursive: true, force: true });
  });

  it('registers the referrer and its SMART client once, with an RS384 key pair kept in its directory', async () => {
    const first = await registerReferrer(stack.stack, directory);
    const keyBefore = readFileSync(first.client.privateKeyFile, 'utf8');
    const again = await registerReferrer(stack.stack, directory);
    expect(again).toEqual(first);
    expect(readFileSync(first.client.privateKeyFile, 'utf8')).toBe(keyBefore);
    expect(statSync(first.client.privateKeyFile).mode & 0o077).toBe(0);
    expect((await stack.admin('client', 'list')).split('\n').filter((line) => line.startsWith('client '))).toHaveLength(1);

    // The client gets a token with the key file, as an integrator's software would.
    const privateKey = createPrivateKey(keyBefore);
    const jwks = JSON.parse(readFileSync(first.client.jwksFile, 'utf8')) as { keys: Record<string, unknown>[] };
    expect(jwks.keys).toEqual([expect.objectContaining({ kty: 'RSA', alg: 'RS384', use: 'sig', kid: first.client.kid })]);
    expect(createPublicKey(privateKey).asymmetricKeyDetails?.modulusLength).toBeGreaterThanOrEqual(2048);
    const key: TestClientKey = { alg: 'RS384', kid: first.client.kid, privateKey, publicKey: createPublicKey(privateKey), jwk: jwks.keys[0]! };
    const discovery = await stack.api<{ token_endpoint: string }>('GET', '/api/v2/fhir/.well-known/smart-configuration');
    const token = await fetch(`${stack.gatewayUrl}/api/v1/token/oauth2`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: clientTokenForm(clientAssertion(first.client.id, discovery.body.token_endpoint, key), 'system/Task.rs'),
    });
    expect([token.status, ((await token.json()) as { scope?: string }).scope]).toEqual([200, 'system/Task.rs']);
  });

  it('registers the clinics of the file with their users, and finds them registered the second time', async () => {
    expect((await stack.admin('clinic', 'list')).split('\n').filter(Boolean)).toHaveLength(5);
    const before = await stack.admin('user', 'list');
    await registerClinics(stack.stack, RULES.clinics as SandboxClinic[]);
    expect(await stack.admin('user', 'list')).toBe(before);
  });

  it('accepts orthopaedics at least 7 days ahead and declines sooner or another department, saying why', async () => {
    const [ahead, soon, cardiology] = await Promise.all([
      send([ORTHOPAEDICS], { occurrenceDate: daysAhead(10) }),
      send([ORTHOPAEDICS], { occurrenceDate: daysAhead(3) }),
      send([ORTHOPAEDICS], { specialty: 'cardiology', departmentCode: '0300' }),
    ]);
    const answers = await Promise.all([
      answered(ahead, ORTHOPAEDICS, 'accepted'),
      answered(soon, ORTHOPAEDICS, 'declined'),
      answered(cardiology, ORTHOPAEDICS, 'declined'),
    ]);
    expect(answers.map(({ status, note }) => [status, note])).toEqual([
      ['accepted', 'Aufnahme möglich.'],
      ['rejected', 'Erst ab 7 Tagen Vorlauf.'],
      ['rejected', 'Nur Orthopädie.'],
    ]);
  });

  it('asks a query first and accepts the supplement', async () => {
    const identifier = await send([QUERY]);
    expect((await answered(identifier, QUERY, 'query')).status).toBe('on-hold');
    await send([QUERY], { requestIdentifier: identifier, notes: ['Mobil an Unterarmgehstützen'], transmissionNumber: 'T-supplement' });
    expect((await answered(identifier, QUERY, 'accepted')).status).toBe('accepted');
  });

  it('asks for more data and accepts once the documents come', async () => {
    const identifier = await send([MORE_DATA]);
    expect((await answered(identifier, MORE_DATA, 'more-data-required')).note).toBe('Bitte Arztbrief.');
    const documents = await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: documentBundle({ requestIdentifier: identifier }) });
    expect(documents.status).toBe(202);
    expect((await answered(identifier, MORE_DATA, 'accepted')).status).toBe('accepted');
  });

  it('declines only after the seconds its rule waits', async () => {
    const identifier = await send([DECLINE]);
    await new Promise((resolve) => setTimeout(resolve, 1_000));
    expect((await taskOf(identifier, DECLINE))?.status).toBe('requested');
    const { task, note } = await answered(identifier, DECLINE, 'declined');
    expect(note).toBe('Kein Bett.');
    expect(Date.parse(task.note!.at(-1)!.time) - Date.parse(task.authoredOn)).toBeGreaterThanOrEqual(2_000);
  });

  it('answers after the deadline has passed, not before', async () => {
    const deadline = new Date(Date.now() + 6_000);
    deadline.setUTCMilliseconds(0);
    const bundle = admissionRequestBundle({
      fhirBase: SANDBOX_REFERRER.fhirBase,
      requestIdentifier: `${SANDBOX_REFERRER.fhirBase}/ServiceRequest/${randomUUID()}`,
      performerIks: [LATE],
    });
    const serviceRequest = bundle.entry?.find((entry) => entry.resource?.resourceType === 'ServiceRequest')?.resource as { extension?: unknown[] };
    serviceRequest.extension = [
      { url: `${PROFILE_BASE}/fhir/StructureDefinition/answer-deadline`, valueDateTime: deadline.toISOString().replace('.000Z', '+00:00') },
    ];
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: bundle })).status).toBe(202);
    const identifier = (serviceRequest as { identifier: { value: string }[] }).identifier[0]!.value;
    const { task } = await answered(identifier, LATE, 'accepted', 20_000);
    expect(task.restriction?.period.end).toBe(deadline.toISOString());
    expect(Date.parse(task.note!.at(-1)!.time)).toBeGreaterThanOrEqual(deadline.getTime());
  });

  it('takes a changed file without a restart, registering a clinic new to it', async () => {
    const changed = structuredClone(RULES);
    changed.clinics[2]!.rules = [{ answer: { businessStatus: 'accepted', note: 'Doch ein Bett frei.' } }];
    changed.clinics.push(clinic(ADDED, 'test-added', [{ answer: { businessStatus: 'declined', note: 'Neu und voll.' } }]));
    writeRules(changed);
    await waitFor(() => lines.some((line) => line.endsWith('reloaded: 6 clinics, 10 rules')), { what: 'the reload', timeoutMs: 30_000 });
    const [identifier, added] = await Promise.all([send([DECLINE]), send([ADDED])]);
    expect((await answered(identifier, DECLINE, 'accepted')).note).toBe('Doch ein Bett frei.');
    expect((await answered(added, ADDED, 'declined')).note).toBe('Neu und voll.');
  });

  it('keeps the rules in force when the file has a problem, and says where in one line', async () => {
    const broken = JSON.parse(readFileSync(rulesFile, 'utf8')) as typeof RULES;
    broken.clinics[2]!.rules = [{ answer: { businessStatus: 'maybe' } }];
    writeRules(broken);
    const problem = await waitFor(() => lines.find((line) => line.includes('the rules before stay in force')), { what: 'the problem', timeoutMs: 10_000 });
    expect(problem).toMatch(/clinics\.json: clinic "test-decline" rules\[0\]\.answer\.businessStatus: .*; the rules before stay in force$/);
    writeRules('{"clinics": [');
    await waitFor(() => lines.some((line) => / not JSON: .*; the rules before stay in force$/.test(line)), { what: 'the second problem' });
    expect((await answered(await send([DECLINE]), DECLINE, 'accepted')).note).toBe('Doch ein Bett frei.');
  });

  it('logs one line per answer, with ids and codes only', () => {
    const answers = lines.filter((line) => line.includes(' answered '));
    expect(answers.length).toBeGreaterThanOrEqual(12);
    for (const line of answers) expect(line).toMatch(/^\d{9} test-[a-z-]+: Task [0-9a-f-]{36} \(version \d+\) answered [a-z-]+ by rule \d+$/);
    // One answer per Task and waiting period: no Task answered twice for the same version.
    const keys = answers.map((line) => /Task (\S+) \(version (\d+)\)/.exec(line)?.slice(1).join(':'));
    const reopenedByDocuments = answers.filter((line) => line.startsWith(`${MORE_DATA} `)).length - 1;
    expect(new Set(keys).size).toBe(keys.length - reopenedByDocuments);
  });
});
