// The audit trail end to end (docs/api.md and docs/data-protection.md, "Audit trail"): a referrer
// posts a request and documents, a clinic finds its Task, reads the request and the documents and
// answers, another clinic reads its Task, an administrator exports the request;
// `GET /api/v2/fhir/AuditEvent` then shows the referrer all of it, each clinic only its own access
// and another referrer nothing, and the chain verifies. Every AuditEvent answered passes the outside
// FHIR validator (stack.api checks every FHIR JSON answer). End-to-end tests live outside the apps,
// so no app imports another.
import { userInfo } from 'node:os';
import { Client } from 'pg';
import { randomUUID } from 'node:crypto';
import type { AuditEvent, Bundle, OperationOutcome, Task } from '@medplum/fhirtypes';
import { loadConfig } from '@bedrequest/config';
import { admissionRequestBundle, documentBundle, FIXTURE_FHIR_BASE, FIXTURE_PERFORMER_IKS, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { AUDIT_CLI, REQUEST_CLI, openIntakeServices } from '../../apps/intake/src/cli';
import { IntakeCliConfig } from '../../apps/intake/src/config';
import { startE2eStack, type E2eStack } from './e2e-stack';

const [A, B] = FIXTURE_PERFORMER_IKS as unknown as [string, string];
const IK_SYSTEM = 'http://fhir.de/sid/arge-ik/iknr';

/** The `sub` of an access token: the user id the trail records as agent.altId. */
const subOf = (token: string) => (JSON.parse(Buffer.from(token.split('.')[1] ?? '', 'base64url').toString('utf8')) as { sub: string }).sub;

/** What the tests compare of an AuditEvent: what was done, by whom, to what. */
const summaryOf = (event: AuditEvent) => ({
  action: event.action,
  subtype: event.subtype?.[0]?.code,
  role: event.agent[0]?.role?.[0]?.text,
  ik: event.agent[0]?.who?.identifier?.system === IK_SYSTEM ? event.agent[0].who.identifier.value : undefined,
  user: event.agent[0]?.altId,
  address: event.agent[0]?.network?.address,
  what: (event.entity ?? []).slice(1).map((entity) => entity.what?.reference ?? entity.what?.type ?? entity.role?.display),
});

describe('the audit trail through the gateway', () => {
  let stack: E2eStack;
  let referrer: string;
  let otherReferrer: string;
  let clinic: Record<string, string>;
  const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${randomUUID()}`;
  const taskOf: Record<string, string> = {};

  const auditEvents = (query: string, token: string) => stack.api<Bundle<AuditEvent>>('GET', `/api/v2/fhir/AuditEvent?${query}`, { token });
  const eventsOf = async (query: string, token: string) => {
    const answer = await auditEvents(query, token);
    expect(answer.status).toBe(200);
    expect(answer.headers.get('cache-control')).toBe('no-store');
    return (answer.body.entry ?? []).map((entry) => entry.resource as AuditEvent);
  };
  /** The user of the newest entry about the request, as the trail stores it. */
  const lastOperator = async () => {
    const client = new Client({ connectionString: stack.env.DATABASE_URL });
    await client.connect();
    try {
      const { rows } = await client.query<{ agent_user: string }>(
        `SELECT agent_user FROM "${stack.env.INTAKE_DB_SCHEMA}".audit_events WHERE request_identifier = $1 ORDER BY recorded DESC, seq DESC LIMIT 1`,
        [identifier],
      );
      return rows[0]?.agent_user;
    } finally {
      await client.end();
    }
  };
  const cli = async (argv: string[], env: Record<string, string> = {}) => {
    const out: string[] = [];
    const err: string[] = [];
    const group = argv[0] === 'request' ? REQUEST_CLI : AUDIT_CLI;
    const code = await group.run(argv, {
      open: () => openIntakeServices(loadConfig(IntakeCliConfig, { ...stack.env, ...env })),
      out: (line) => out.push(line),
      err: (line) => err.push(line),
    });
    return { code, out: out.join('\n'), err: err.join('\n') };
  };

  beforeAll(async () => {
    stack = await startE2eStack();
    for (const ik of [A, B]) await stack.registerClinic(ik, `Rehaklinik ${ik}`, ['2300']);
    await stack.createReferrer('audit-hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    await stack.createReferrer('audit-other-hospital', ['260000009'], 'https://other-hospital.example/fhir');
    await stack.createClinicUser('audit-clinic-a', A);
    await stack.createClinicUser('audit-clinic-b', B);
    referrer = await stack.login('audit-hospital');
    otherReferrer = await stack.login('audit-other-hospital');
    clinic = { [A]: await stack.login('audit-clinic-a'), [B]: await stack.login('audit-clinic-b') };

    // The flow: post, documents, each clinic finds its Task, A reads the request and the documents and answers, B reads its Task.
    expect(
      (
        await stack.api('POST', '/api/v2/fhir/Bundle', {
          token: referrer,
          body: admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A, B] }),
        })
      ).status,
    ).toBe(202);
    await waitFor(
      async () =>
        ((await stack.api<Bundle<Task>>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: referrer })).body.total ?? 0) === 2,
      {
        what: 'the Tasks of the posted request',
      },
    );
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: documentBundle({ requestIdentifier: identifier }) })).status).toBe(202);
    for (const ik of [A, B]) {
      const found = await stack.api<Bundle<Task>>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: clinic[ik]! });
      taskOf[ik] = found.body.entry?.[0]?.resource?.id ?? '';
    }
    expect((await stack.api('GET', `/api/v1/clinic/tasks/${taskOf[A]}/bundle`, { token: clinic[A] })).status).toBe(200);
    const documents = await waitFor(
      async () => {
        const answer = await stack.api<{ items: unknown[] }>('GET', `/api/v1/clinic/tasks/${taskOf[A]}/documents`, { token: clinic[A] });
        return answer.body.items.length > 0 ? answer.body.items : undefined;
      },
      { what: 'the documents of the request' },
    );
    expect(documents).toHaveLength(1);
    expect(
      (
        await stack.api('POST', `/api/v1/clinic/tasks/${taskOf[A]}/answer`, {
          token: clinic[A],
          body: { businessStatus: 'accepted', note: 'Aufnahme am Montag' },
        })
      ).status,
    ).toBe(200);
    expect((await stack.api('GET', `/api/v2/fhir/Task/${taskOf[B]}`, { token: clinic[B] })).status).toBe(200);
  }, 180_000);

  afterAll(async () => {
    await stack?.stop();
  });

  it("shows the referrer every change and every party's read of its request, with what, which party, and who and from where only of its own people", async () => {
    const events = await eventsOf(`entity=${encodeURIComponent(identifier)}&_count=100`, referrer);
    const summaries = events.map(summaryOf);
    const [userA, userB, referrerUser] = [subOf(clinic[A]!), subOf(clinic[B]!), subOf(referrer)];
    const json = JSON.stringify(events);
    for (const clinicUser of [userA, userB]) expect(json).not.toContain(clinicUser);
    const loopback = expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$|^::1$/);

    // The changes, in the order they were made (each recorded with its batch), with who made them
    // from where: the gateway sends both with the message. A clinic's people (their user ids and
    // addresses) are shown only to that clinic (docs/data-protection.md, "Audit trail"): the
    // referrer sees which clinic acted.
    expect(summaries.filter((event) => event.action === 'C' || event.action === 'U')).toEqual([
      { action: 'C', subtype: 'create', role: 'referrer', ik: FIXTURE_REQUESTER_IK, user: referrerUser, address: loopback, what: [] },
      { action: 'C', subtype: 'create', role: 'referrer', ik: FIXTURE_REQUESTER_IK, user: referrerUser, address: loopback, what: ['Bundle'] },
      { action: 'U', subtype: 'update', role: 'clinic', ik: A, user: undefined, address: undefined, what: [`Task/${taskOf[A]}`] },
    ]);
    // Clinic A's reads: its Task search, the request version it was sent, the documents.
    expect(summaries).toEqual(
      expect.arrayContaining([
        { action: 'E', subtype: 'search-type', role: 'clinic', ik: A, user: undefined, address: undefined, what: [`Task/${taskOf[A]}`, 'Query'] },
        { action: 'R', subtype: 'vread', role: 'clinic', ik: A, user: undefined, address: undefined, what: [`Task/${taskOf[A]}`] },
        { action: 'R', subtype: 'read', role: 'clinic', ik: A, user: undefined, address: undefined, what: [`Task/${taskOf[A]}`, 'Bundle'] },
        { action: 'R', subtype: 'read', role: 'clinic', ik: B, user: undefined, address: undefined, what: [`Task/${taskOf[B]}`] },
        // The referrer's own polling is read access too.
        expect.objectContaining({ action: 'E', subtype: 'search-type', role: 'referrer', ik: FIXTURE_REQUESTER_IK, user: referrerUser }),
      ]),
    );
    // Identifiers only: nothing of the patient or the note.
    for (const text of ['Musterfrau', 'Aufnahme am Montag', 'Hüft']) expect(json).not.toContain(text);
  });

  it("records the clinic's list rows and request versions (what the clinic inbox reads) like the FHIR reads", async () => {
    const ownAccess = async () => (await eventsOf(`entity=${encodeURIComponent(identifier)}&agent=${A}&_count=100`, clinic[A]!)).map(summaryOf);
    const before = await ownAccess();
    expect((await stack.api('GET', '/api/v1/clinic/tasks?state=answered', { token: clinic[A] })).status).toBe(200);
    expect((await stack.api('GET', `/api/v1/clinic/tasks/${taskOf[A]}/versions`, { token: clinic[A] })).status).toBe(200);
    const added = (await ownAccess()).slice(before.length);
    const loopback = expect.stringMatching(/^(::ffff:)?127\.0\.0\.1$|^::1$/);
    expect(added).toEqual([
      { action: 'E', subtype: 'search-type', role: 'clinic', ik: A, user: subOf(clinic[A]!), address: loopback, what: [`Task/${taskOf[A]}`, 'Query'] },
      { action: 'R', subtype: 'vread', role: 'clinic', ik: A, user: subOf(clinic[A]!), address: loopback, what: [`Task/${taskOf[A]}`] },
    ]);
  });

  it('shows each clinic only the entries of its own access', async () => {
    for (const [ik, other] of [
      [A, B],
      [B, A],
    ] as const) {
      const events = await eventsOf(`entity=${encodeURIComponent(identifier)}&_count=100`, clinic[ik]!);
      expect(events.length).toBeGreaterThan(0);
      expect(events.map((event) => event.agent[0]?.who?.identifier?.value)).toEqual(events.map(() => ik));
      expect(JSON.stringify(events)).not.toContain(`Task/${taskOf[other]}`);
    }
  });

  it('shows another referrer nothing of it, whatever it searches', async () => {
    expect(await eventsOf(`entity=${encodeURIComponent(identifier)}`, otherReferrer)).toEqual([]);
    expect(await eventsOf(`agent=${A}`, otherReferrer)).toEqual([]);
    expect(await eventsOf('', otherReferrer)).toEqual([]);
  });

  it('filters by agent and date, pages with _count and next links, and refuses an unknown parameter with 400', async () => {
    const all = await auditEvents(`entity=${encodeURIComponent(identifier)}&_count=100&_total=accurate`, referrer);
    const total = all.body.total ?? 0;
    const byB = await eventsOf(`entity=${encodeURIComponent(identifier)}&agent=${B}`, referrer);
    expect(byB.map(summaryOf)).toEqual([expect.objectContaining({ action: 'E', ik: B }), expect.objectContaining({ action: 'R', ik: B })]);
    expect(await eventsOf(`entity=${encodeURIComponent(identifier)}&agent=${subOf(clinic[B]!)}`, referrer)).toEqual(byB);
    const day = all.body.entry?.[0]?.resource?.recorded?.slice(0, 10) ?? '';
    expect((await auditEvents(`entity=${encodeURIComponent(identifier)}&date=ge${day}&_total=accurate`, referrer)).body.total).toBe(total);
    expect((await auditEvents(`entity=${encodeURIComponent(identifier)}&date=lt${day}&_total=accurate`, referrer)).body.total).toBe(0);

    const seen: string[] = [];
    let page = await auditEvents(`entity=${encodeURIComponent(identifier)}&_count=3`, referrer);
    for (;;) {
      seen.push(...(page.body.entry ?? []).map((entry) => entry.resource?.id ?? ''));
      const next = page.body.link?.find((link) => link.relation === 'next')?.url;
      if (!next) break;
      expect(next.startsWith(`${stack.gatewayUrl}/api/v2/fhir/AuditEvent?`)).toBe(true);
      page = await stack.api<Bundle<AuditEvent>>('GET', next.slice(stack.gatewayUrl.length), { token: referrer });
    }
    expect(seen).toEqual((all.body.entry ?? []).map((entry) => entry.resource?.id));

    const refused = await stack.api<OperationOutcome>('GET', '/api/v2/fhir/AuditEvent?patient=Patient/1', { token: referrer });
    expect(refused.status).toBe(400);
    expect(refused.body.issue?.[0]?.expression).toEqual(['patient']);
    expect((await stack.api('GET', '/api/v2/fhir/AuditEvent')).status).toBe(401);
  });

  it("records an administrator's export, which the referrer then sees, and the chain verifies", async () => {
    const exported = await cli(['request', 'export', '--identifier', identifier]);
    expect(exported).toMatchObject({ code: 0, err: '' });
    expect(JSON.parse(exported.out)).toMatchObject({ resourceType: 'Bundle' });
    const events = await eventsOf(`entity=${encodeURIComponent(identifier)}&_count=100`, referrer);
    // The referrer sees that an administrator read it, not which operator (that is in the trail).
    expect(summaryOf(events.at(-1)!)).toMatchObject({ action: 'R', subtype: 'vread', role: 'administrator', user: undefined });
    expect(await lastOperator()).toBe(userInfo().username);

    // ADMIN_OPERATOR names the operator where the process's login cannot (kubectl exec in a pod); the login stays beside it.
    expect(await cli(['request', 'export', '--identifier', identifier], { ADMIN_OPERATOR: 'ops-alice' })).toMatchObject({ code: 0 });
    expect(await lastOperator()).toMatch(/^ops-alice \(os user [^)]+\)$/);

    expect(await cli(['audit', 'verify'])).toMatchObject({
      code: 0,
      out: expect.stringMatching(/^the audit trail is intact: \d+ entries of \d+ days? checked$/),
    });
  });

  it('lists the AuditEvent search in the CapabilityStatement', async () => {
    const statement = await stack.api<{ rest: { resource: { type: string; searchParam?: { name: string }[] }[] }[] }>('GET', '/api/v2/fhir/metadata');
    const auditEvent = statement.body.rest[0]?.resource.find((resource) => resource.type === 'AuditEvent');
    expect(auditEvent?.searchParam?.map((parameter) => parameter.name)).toEqual(['entity', 'date', 'agent', '_count', '_total']);
  });
});
