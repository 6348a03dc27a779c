import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { validateAdmissionRequestBundle } from '@bedrequest/fhir-model';

const root = join(__dirname, '..');

/** The README's walk-through sends docs/examples/admission-request.json as the demo referrer (`npm run seed:demo`). */
describe('docs/examples', () => {
  const seed = readFileSync(join(root, 'tools', 'seed-demo.mjs'), 'utf8');

  it('admission-request.json is a valid AdmissionRequestBundle the demo referrer may send to demo clinics', () => {
    const result = validateAdmissionRequestBundle(JSON.parse(readFileSync(join(root, 'docs', 'examples', 'admission-request.json'), 'utf8')), {
      profileBase: 'https://bedrequest.example.org',
    });
    if (!result.ok) throw new Error(JSON.stringify(result.issues));
    expect(seed).toContain(`ik: '${result.bundle.requesterIk}'`);
    expect(result.bundle.requestIdentifier.startsWith('https://demo-hospital.example/fhir/')).toBe(true);
    expect(seed).toContain(`fhirBase: 'https://demo-hospital.example/fhir'`);
    for (const ik of result.bundle.performerIks) expect(seed).toContain(`ik: '${ik}'`);
  });
});
