// Asking by rule through the whole stack (docs/api.md, "Asking by rule"), with two intake instances
// sweeping every second: the party's rule set through the gateway, clinics located with the real
// admin command line, a request whose short deadline passes unanswered, and the next clinics asked
// once each (the party's listed clinic with the department, then the registry's nearest), with the
// asked-by-rule extension on their Tasks, in their clinics' lists, and no new version of the request.
import { Pool } from 'pg';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_REQUESTER_IK } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { startE2eStack, type E2eStack } from './e2e-stack';

interface FhirTask {
  id: string;
  owner: { identifier: { value: string } };
  extension?: { url: string; valueCode?: string; valueDateTime?: string }[];
}
type Searchset = { entry?: { resource: FhirTask }[] };

const PROFILE_BASE = 'https://bedrequest.example.org';
const ASKED_BY_RULE = `${PROFILE_BASE}/fhir/StructureDefinition/asked-by-rule`;
/** The clinic the request names; it does not answer. */
const NAMED = '514400006';
// The others, by IK against where they are (the rule's origin is Berlin Mitte).
const LISTED_MUNICH = '514400001';
const LEIPZIG = '514400002';
const NO_COORDINATES = '514400003';
const POTSDAM = '514400004';
const NEUROLOGY_BERLIN = '514400005';

describe('asking further clinics by rule, two intake instances', () => {
  let stack: E2eStack;
  let referrer: string;
  let pool: Pool;

  beforeAll(async () => {
    stack = await startE2eStack({ OVERDUE_SWEEP_SECONDS: '1' });
    // A second intake on the same database and broker: both sweep, both look at every request.
    await stack.stack.start('intake-2', 'intake');
    const located = async (ik: string, name: string, department: string, point?: [string, string, string]) => {
      const where = point ? ['--postal-code', point[0], '--latitude', point[1], '--longitude', point[2]] : [];
      await stack.admin('clinic', 'upsert', '--ik', ik, '--name', name, '--departments', department, ...where);
    };
    await located(NAMED, 'Reha Angefragt', '2300');
    await located(LISTED_MUNICH, 'Reha München', '2300', ['80331', '48.137', '11.575']);
    await located(LEIPZIG, 'Reha Leipzig', '2300', ['04109', '51.340', '12.375']);
    await located(NO_COORDINATES, 'Reha Irgendwo', '2300');
    await located(POTSDAM, 'Reha Potsdam', '2300', ['14467', '52.390', '13.065']);
    await located(NEUROLOGY_BERLIN, 'Neuro Berlin', '2800', ['10117', '52.520', '13.390']);
    await stack.createReferrer('escalation-hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    await stack.createClinicUser('potsdam', POTSDAM);
    referrer = await stack.login('escalation-hospital');
    pool = new Pool({ connectionString: stack.env['DATABASE_URL'], max: 1 });
  }, 180_000);

  afterAll(async () => {
    await pool?.end();
    await stack?.stop();
  });

  it('asks the listed clinic with the department and then the nearest, each once, marked on its Task, in its list, without a new version', async () => {
    const rule = {
      whenOpenBelow: 1,
      askNext: 2,
      clinics: [NEUROLOGY_BERLIN, LISTED_MUNICH],
      origin: { postalCode: '10115', latitude: 52.532, longitude: 13.384 },
    };
    const set = await stack.api('PUT', '/api/v1/referrer/settings', {
      token: referrer,
      body: { answerDeadline: { workingDays: 2, holidays: 'DE' }, escalation: rule },
    });
    expect([set.status, set.body]).toEqual([200, { answerDeadline: { workingDays: 2, holidays: 'DE' }, escalation: rule }]);

    const identifier = `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
    const deadline = new Date(Date.now() + 5000);
    deadline.setUTCMilliseconds(0);
    const bundle = admissionRequestBundle({ requestIdentifier: identifier, performerIks: [NAMED] });
    const serviceRequest = bundle.entry?.find((entry) => entry.resource?.resourceType === 'ServiceRequest')?.resource as { extension?: unknown[] };
    serviceRequest.extension = [
      { url: `${PROFILE_BASE}/fhir/StructureDefinition/answer-deadline`, valueDateTime: deadline.toISOString().replace('.000Z', '+00:00') },
    ];
    expect((await stack.api('POST', '/api/v2/fhir/Bundle', { token: referrer, body: bundle })).status).toBe(202);

    const tasks = async () =>
      (await stack.api<Searchset>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token: referrer })).body.entry?.map(
        (entry) => entry.resource,
      ) ?? [];
    await waitFor(async () => ((await tasks()).length >= 3 ? true : undefined), { what: 'the clinics asked by rule', timeoutMs: 30_000 });
    // Both instances sweep every second: a few more rounds ask nobody else.
    await new Promise((resolve) => setTimeout(resolve, 4000));
    const asked = (await tasks()).filter((task) => task.extension?.some((extension) => extension.url === ASKED_BY_RULE));
    expect(asked.map((task) => [task.owner.identifier.value, task.extension?.find((extension) => extension.url === ASKED_BY_RULE)?.valueCode]).sort()).toEqual([
      [LISTED_MUNICH, 'list'],
      [POTSDAM, 'registry'],
    ]);
    expect((await tasks()).map((task) => task.owner.identifier.value).sort()).toEqual([LISTED_MUNICH, POTSDAM, NAMED].sort());

    // Routing told each clinic once.
    for (const ik of [LISTED_MUNICH, POTSDAM]) {
      const notified = await waitFor(async () => (await stack.admin('clinic', 'notifications', '--ik', ik)).trim() || undefined, { what: `${ik} notified` });
      expect(notified?.split('\n')).toEqual([expect.stringMatching(/ v1 supplemented\/answer-requested /)]);
    }
    // The clinic finds it in its list.
    const potsdam = await stack.login('potsdam');
    const list = await stack.api<{ items: { id: string }[] }>('GET', '/api/v1/clinic/tasks', { token: potsdam });
    expect(list.body.items.map((item) => item.id)).toContain(asked.find((task) => task.owner.identifier.value === POTSDAM)?.id);
    // The request keeps its one version.
    const versions = await pool.query(
      `SELECT count(*)::int AS n FROM "${stack.env['INTAKE_DB_SCHEMA']}".request_version v JOIN "${stack.env['INTAKE_DB_SCHEMA']}".admission_request r ON r.id = v.request_id WHERE r.identifier = $1`,
      [identifier],
    );
    expect(versions.rows[0]).toEqual({ n: 1 });
  });
});
