// Strict FHIR R4 at the bundle endpoint, end to end (docs/api.md, "Sending a bundle" and "Errors"):
// unknown or misspelt elements and missing R4-required elements are refused with 400 and one
// OperationOutcome issue each, nothing is stored, and an error body stays small whatever the input.
// End-to-end tests live outside the apps, so no app imports another.
import type { Bundle } from '@medplum/fhirtypes';
import { admissionRequestBundle, documentBundle, FIXTURE_FHIR_BASE, FIXTURE_PERFORMER_IKS, FIXTURE_REQUESTER_IK, setAt } from '@bedrequest/fhir-model/testing';
import { waitFor } from '@bedrequest/testing';
import { startE2eStack, type E2eStack } from './e2e-stack';

interface OperationOutcome {
  resourceType: 'OperationOutcome';
  issue: { severity: string; code: string; diagnostics: string; expression?: string[] }[];
}
interface SearchSet {
  total?: number;
  entry?: { resource: { id: string } }[];
}

/** "Under a few kB": a hundred times smaller than the input it answers. */
const SMALL_BODY_BYTES = 4096;
const THREE_MB = 3 * 1024 * 1024;

describe('the bundle endpoint refuses what FHIR R4 does not define', () => {
  let stack: E2eStack;
  let referrer: string;
  let clinic: string;

  beforeAll(async () => {
    stack = await startE2eStack();
    for (const ik of FIXTURE_PERFORMER_IKS) await stack.registerClinic(ik, `Rehaklinik ${ik}`, ['2300']);
    await stack.createReferrer('strict-hospital', [FIXTURE_REQUESTER_IK], FIXTURE_FHIR_BASE);
    await stack.createClinicUser('strict-clinic', FIXTURE_PERFORMER_IKS[0]);
    referrer = await stack.login('strict-hospital');
    clinic = await stack.login('strict-clinic');
  }, 120_000);

  afterAll(async () => {
    await stack?.stop();
  });

  const newIdentifier = () => `${FIXTURE_FHIR_BASE}/ServiceRequest/${crypto.randomUUID()}`;
  const post = (bundle: unknown) => stack.api<OperationOutcome>('POST', '/api/v2/fhir/Bundle', { token: referrer, body: bundle });
  const tasksOf = async (identifier: string, token = referrer) => {
    const response = await stack.api<SearchSet>('GET', `/api/v2/fhir/Task?based-on=${encodeURIComponent(identifier)}`, { token });
    expect(response.status).toBe(200);
    return response.body.entry ?? [];
  };
  const bytesOf = (body: unknown) => Buffer.byteLength(JSON.stringify(body));

  describe('an AdmissionRequestBundle with elements R4 does not define: 400, one structure issue each, no Task', () => {
    it.each<[string, (bundle: Bundle) => unknown, string, string]>([
      [
        'ServiceRequest.occurenceDateTime (a typo)',
        (b) => setAt(setAt(b, 'entry[0].resource.occurrenceDateTime', undefined), 'entry[0].resource.occurenceDateTime', '2026-12-01'),
        'Bundle.entry[0].resource.occurenceDateTime',
        "did you mean 'occurrenceDateTime'?",
      ],
      [
        'ServiceRequest.notes instead of note',
        (b) => setAt(setAt(b, 'entry[0].resource.notes', [{ text: 'Einzelzimmer erwünscht' }]), 'entry[0].resource.note', undefined),
        'Bundle.entry[0].resource.notes',
        "did you mean 'note'?",
      ],
      [
        'Patient.favouriteColour',
        (b) => setAt(b, 'entry[1].resource.favouriteColour', 'blau'),
        'Bundle.entry[1].resource.favouriteColour',
        "unknown element 'favouriteColour'",
      ],
      ['a top-level foo', (b) => setAt(b, 'foo', 'bar'), 'Bundle.foo', "unknown element 'foo'"],
      [
        'an unknown key beside the extensions of _family',
        (b) => setAt(b, 'entry[1].resource.name[0]._family.colour', 'blau'),
        'Bundle.entry[1].resource.name[0].family.colour',
        "unknown element 'colour'",
      ],
      [
        'Coding.sytem inside a datatype',
        (b) => setAt(b, 'entry[4].resource.code.coding[0].sytem', 'urn:x'),
        'Bundle.entry[4].resource.code.coding[0].sytem',
        "did you mean 'system'?",
      ],
    ])('%s', async (_, damage, expression, diagnostics) => {
      const identifier = newIdentifier();
      const response = await post(damage(admissionRequestBundle({ requestIdentifier: identifier })));
      expect(response.status).toBe(400);
      expect(response.body.resourceType).toBe('OperationOutcome');
      expect(response.body.issue).toEqual([
        { severity: 'error', code: 'structure', diagnostics: expect.stringContaining(diagnostics), expression: [expression] },
      ]);
      expect(await tasksOf(identifier)).toEqual([]);
    });

    it('reports every unknown element of one bundle, and the same bundle without them is accepted', async () => {
      const identifier = newIdentifier();
      const valid = admissionRequestBundle({ requestIdentifier: identifier });
      const damaged = setAt(setAt(structuredClone(valid), 'entry[0].resource.occurenceDateTime', '2026-12-01'), 'entry[1].resource.favouriteColour', 'blau');
      const refused = await post(setAt(damaged, 'foo', 'bar'));
      expect(refused.status).toBe(400);
      expect(refused.body.issue.map((issue) => [issue.code, issue.expression?.[0]])).toEqual([
        ['structure', 'Bundle.entry[0].resource.occurenceDateTime'],
        ['structure', 'Bundle.entry[1].resource.favouriteColour'],
        ['structure', 'Bundle.foo'],
      ]);
      expect(await tasksOf(identifier)).toEqual([]);

      // The check above could fail: the bundle without the unknown elements makes its Tasks.
      expect((await post(valid)).status).toBe(202);
      await waitFor(async () => ((await tasksOf(identifier)).length === FIXTURE_PERFORMER_IKS.length ? true : undefined), {
        what: 'the Tasks of the valid bundle',
      });
    });
  });

  describe('a DocumentBundle', () => {
    it('whose Composition has only an id is refused with the R4-required elements named, and no document is stored', async () => {
      const identifier = newIdentifier();
      expect((await post(admissionRequestBundle({ requestIdentifier: identifier }))).status).toBe(202);
      const [task] = await waitFor(
        async () => {
          const tasks = await tasksOf(identifier, clinic);
          return tasks.length > 0 ? tasks : undefined;
        },
        { what: "the clinic's Task of the request" },
      );
      const documents = () => stack.api<{ items: unknown[] }>('GET', `/api/v1/clinic/tasks/${task!.resource.id}/documents`, { token: clinic });

      const bundle = documentBundle({ requestIdentifier: identifier });
      const compositionOnlyId = setAt(structuredClone(bundle), 'entry[0].resource', { resourceType: 'Composition', id: 'c1' });
      const refused = await post(compositionOnlyId);
      expect(refused.status).toBe(400);
      expect(refused.body.issue).toEqual(
        ['status', 'type', 'date', 'author', 'title'].map((element) =>
          expect.objectContaining({ code: 'required', expression: [`Bundle.entry[0].resource.${element}`] }),
        ),
      );
      expect((await documents()).body.items).toEqual([]);

      const unknown = await post(setAt(structuredClone(bundle), 'entry[1].resource.content[0].attachment.titel', 'Arztbrief'));
      expect(unknown.status).toBe(400);
      expect(unknown.body.issue).toEqual([
        expect.objectContaining({ code: 'structure', expression: ['Bundle.entry[1].resource.content[0].attachment.titel'] }),
      ]);

      // The valid bundle is stored, so the empty list above was no accident.
      expect((await post(bundle)).status).toBe(202);
      await waitFor(async () => ((await documents()).body.items.length === 1 ? true : undefined), { what: 'the stored DocumentBundle' });
    });
  });

  describe('error bodies stay small whatever the input (point 2)', () => {
    it.each<[string, (bundle: Bundle) => unknown, string]>([
      ['a 3 MB resourceType of an entry', (b) => setAt(b, 'entry[2].resource.resourceType', 'C'.repeat(THREE_MB)), 'Bundle.entry[2].resource.resourceType'],
      ['a 3 MB resourceType of the Bundle', (b) => setAt(b, 'resourceType', 'B'.repeat(THREE_MB)), 'Bundle.resourceType'],
      [
        'a 3 MB unknown element name',
        (b) => setAt(b, `entry[0].resource.${'x'.repeat(THREE_MB)}`, 1),
        `Bundle.entry[0].resource.\`${'x'.repeat(64)}…(${THREE_MB} characters)\``,
      ],
    ])('%s', async (_, damage, expression) => {
      const response = await post(damage(admissionRequestBundle({ requestIdentifier: newIdentifier() })));
      expect(response.status).toBe(400);
      expect(response.body.issue.map((issue) => issue.expression?.[0])).toContain(expression);
      expect(bytesOf(response.body)).toBeLessThan(SMALL_BODY_BYTES);
    });
  });
});
