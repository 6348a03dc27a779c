import * as fs from 'node:fs';
import * as path from 'node:path';
import type { Bundle } from '@medplum/fhirtypes';
import { validateAdmissionRequestBundle } from './admission-request-bundle';
import type { Issue, IssueCode } from './outcome';
import { DEFAULT_PROFILE_BASE, fhirSystems, IK_NUMBER_SYSTEM } from './systems';
import { admissionRequestBundle, entryIndexOf, resourceOf, setAt } from './testing';

/** The specification's two example bundles, copied unchanged (see testing/fixtures/README.md). */
const EXAMPLES = path.join(__dirname, 'testing', 'fixtures');
const REQUEST = 'https://referrer.example/fhir/ServiceRequest/0b8e6c58-0d2b-4c4e-9d0c-6a1f7f5e2a10';
const systems = fhirSystems(DEFAULT_PROFILE_BASE);

const validate = (bundle: unknown) => validateAdmissionRequestBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE });
const issuesOf = (bundle: unknown): Issue[] => {
  const result = validate(bundle);
  return result.ok ? [] : result.issues;
};
const proposal = () => admissionRequestBundle({ requestIdentifier: REQUEST });
const fullUrlOf = (bundle: Bundle, resourceType: Parameters<typeof entryIndexOf>[1], nth = 0) =>
  bundle.entry?.[entryIndexOf(bundle, resourceType, nth)]?.fullUrl ?? '';
const UNKNOWN_URN = 'urn:uuid:00000000-0000-4000-8000-000000000000';

describe('validateAdmissionRequestBundle', () => {
  describe('accepts', () => {
    it.each(['admission-request-masked.json', 'admission-request-selection.json'])('the spec example %s', (file) => {
      const example: unknown = JSON.parse(fs.readFileSync(path.join(EXAMPLES, file), 'utf8'));
      expect(issuesOf(example)).toEqual([]);
    });

    it.each([
      ['a proposal with a masked patient', {}],
      ['a proposal with a complete patient', { patient: 'complete' as const }],
      ['a provider selection', { intent: 'order' as const }],
      ['a withdrawal of the selection', { orderDetail: 'selected-provider-cancelled' as const }],
      ['a cancellation', { status: 'revoked' as const }],
      ['a department key without specialty', { specialty: null }],
      ['a specialty without department key', { departmentCode: null }],
      ['another profile base', { profileBase: 'https://profiles.example.net/' }],
    ])('the fixture: %s', (_, options) => {
      const profileBase = 'profileBase' in options ? options.profileBase : DEFAULT_PROFILE_BASE;
      expect(validateAdmissionRequestBundle(admissionRequestBundle(options), { profileBase })).toMatchObject({ ok: true });
    });

    it('a bundle without Coverage, Encounter, Conditions and Observations', () => {
      const bundle = proposal();
      bundle.entry = bundle.entry?.filter((entry) => ['ServiceRequest', 'Patient', 'Organization'].includes(entry.resource?.resourceType ?? ''));
      delete resourceOf(bundle, 'ServiceRequest').encounter;
      expect(issuesOf(bundle)).toEqual([]);
    });

    it.each([
      ['a timestamp with a numeric offset', 'timestamp', '2026-11-22T00:49:05+01:00'],
      ['a versioned profile canonical', 'meta.profile', [`${systems.admissionRequestBundleProfile}|1.0.0`]],
      ['unknown extra properties', 'entry[0].resource.extension', [{ url: 'https://x.example/ext', valueString: 'x' }]],
      ['a request without occurrenceDateTime', 'entry[0].resource.occurrenceDateTime', undefined],
      ['a request without notes', 'entry[0].resource.note', undefined],
      ['a Condition without encounter', 'entry[4].resource.encounter', undefined],
      ['a recordedDate with time and offset', 'entry[4].resource.recordedDate', '2026-11-18T10:15:00+01:00'],
    ])('%s', (_, at, value) => {
      expect(issuesOf(setAt(proposal(), at, value))).toEqual([]);
    });
  });

  describe('the summary', () => {
    it('gives what later stages need without walking the JSON again', () => {
      const bundle = admissionRequestBundle({
        requestIdentifier: REQUEST,
        requesterIk: '260000009',
        performerIks: ['510000007', '510000008'],
        performerDeepLinks: { '510000008': 'https://referrer.example/app/requests/42' },
        specialty: 'cardiology',
        departmentCode: null,
        serviceType: 'follow-up-rehabilitation',
        occurrenceDate: '2027-01-15',
        transmissionNumber: 'T-1',
      });
      const result = validate(bundle);
      expect(result).toEqual({
        ok: true,
        bundle: {
          requestIdentifier: REQUEST,
          transmissionNumber: 'T-1',
          timestamp: bundle.timestamp,
          status: 'active',
          intent: 'proposal',
          orderDetail: undefined,
          serviceType: 'follow-up-rehabilitation',
          requesterIk: '260000009',
          performers: [
            { ik: '510000007', deepLink: undefined },
            { ik: '510000008', deepLink: 'https://referrer.example/app/requests/42' },
          ],
          performerIks: ['510000007', '510000008'],
          patient: 'masked',
          patientIdentifier: resourceOf(bundle, 'Patient').identifier?.[0]?.value,
          departmentCode: '0300',
          specialty: 'cardiology',
          occurrenceDate: '2027-01-15',
          bundle,
        },
      });
      expect(result.ok && result.bundle.bundle).toBe(bundle);
    });

    it('names the orderDetail and the complete patient of a selection', () => {
      const result = validate(admissionRequestBundle({ intent: 'order', performerIks: ['510000002'] }));
      expect(result).toMatchObject({
        ok: true,
        bundle: { intent: 'order', orderDetail: 'selected-provider', patient: 'complete', performerIks: ['510000002'] },
      });
    });

    it('resolves the department from a department key given alone', () => {
      const result = validate(admissionRequestBundle({ specialty: null, departmentCode: '3100' }));
      expect(result).toMatchObject({ ok: true, bundle: { departmentCode: '3100', specialty: 'psychosomatic' } });
    });

    it('lets the specialty win over a contradicting department key', () => {
      const result = validate(admissionRequestBundle({ specialty: 'urology', departmentCode: '2300' }));
      expect(result).toMatchObject({ ok: true, bundle: { departmentCode: '2200', specialty: 'urology' } });
    });
  });

  it('reports every problem of a bundle, not just the first', () => {
    const bundle = proposal();
    setAt(bundle, 'timestamp', 'yesterday');
    setAt(bundle, 'entry[0].resource.status', 'draft');
    setAt(bundle, 'entry[1].resource.gender', 'f');
    setAt(bundle, 'entry[9].resource.identifier[0].value', '123');
    expect(issuesOf(bundle).map((issue) => issue.expression)).toEqual([
      'Bundle.timestamp',
      'Bundle.entry[0].resource.status',
      'Bundle.entry[1].resource.gender',
      'Bundle.entry[9].resource.identifier[0].value',
    ]);
  });

  it('gives every issue severity, code, diagnostics and expression', () => {
    const [issue] = issuesOf(setAt(proposal(), 'entry[0].resource.identifier[0].value', 'not a uri'));
    expect(issue).toEqual({
      severity: 'error',
      code: 'value',
      diagnostics: 'value must be an absolute URI',
      expression: 'Bundle.entry[0].resource.identifier[0].value',
    });
  });

  it.each([
    ['entry[1].resource.birthDate', '1956', 'birthDate must be a date YYYY-MM-DD'],
    ['entry[1].resource.gender', 'f', "gender must be one of 'male', 'female', 'other', 'unknown'"],
    ['entry[1].resource.gender', undefined, 'gender is required'],
    ['entry[0].resource.performer', [], 'performer must have at least 1 item(s)'],
  ])('names the element in the diagnostics of %s', (at, value, diagnostics) => {
    expect(issuesOf(setAt(proposal(), at, value))).toEqual([expect.objectContaining({ diagnostics })]);
  });

  describe('rejects a Bundle envelope', () => {
    it.each<[string, string, unknown, IssueCode, string]>([
      ['of another resourceType', 'resourceType', 'Parameters', 'code-invalid', 'Bundle.resourceType'],
      ['without id', 'id', undefined, 'required', 'Bundle.id'],
      ['with a malformed id', 'id', 'an id', 'value', 'Bundle.id'],
      ['of type transaction', 'type', 'transaction', 'code-invalid', 'Bundle.type'],
      ['without meta', 'meta', undefined, 'required', 'Bundle.meta'],
      ['without the AdmissionRequestBundle profile', 'meta.profile', [systems.documentBundleProfile], 'value', 'Bundle.meta.profile'],
      [
        'with a profile of another profile base',
        'meta.profile',
        ['https://other.example/fhir/StructureDefinition/AdmissionRequestBundle'],
        'value',
        'Bundle.meta.profile',
      ],
      ['without identifier', 'identifier', undefined, 'required', 'Bundle.identifier'],
      ['with another identifier system', 'identifier.system', 'urn:ietf:rfc:3986', 'code-invalid', 'Bundle.identifier.system'],
      ['without identifier value', 'identifier.value', undefined, 'required', 'Bundle.identifier.value'],
      ['without timestamp', 'timestamp', undefined, 'required', 'Bundle.timestamp'],
      ['with a timestamp without offset', 'timestamp', '2026-11-21T23:49:05', 'value', 'Bundle.timestamp'],
      ['with a date as timestamp', 'timestamp', '2026-11-21', 'value', 'Bundle.timestamp'],
      ['without entry', 'entry', undefined, 'required', 'Bundle.entry'],
      ['with entry as an object', 'entry', {}, 'structure', 'Bundle.entry'],
    ])('%s', (_, at, value, code, expression) => {
      expect(issuesOf(setAt(proposal(), at, value))).toEqual([expect.objectContaining({ code, expression })]);
    });
  });

  describe('rejects an entry', () => {
    it.each<[string, (bundle: Bundle) => unknown, IssueCode, string]>([
      ['without fullUrl', (b) => setAt(b, 'entry[4].fullUrl', undefined), 'required', 'Bundle.entry[4].fullUrl'],
      ['with a URL as fullUrl', (b) => setAt(b, 'entry[4].fullUrl', 'https://x.example/fhir/Condition/1'), 'value', 'Bundle.entry[4].fullUrl'],
      [
        'with an upper-case UUID',
        (b) => setAt(b, 'entry[4].fullUrl', `urn:uuid:${b.entry?.[4]?.fullUrl?.slice('urn:uuid:'.length).toUpperCase()}`),
        'value',
        'Bundle.entry[4].fullUrl',
      ],
      ['with the fullUrl of another entry', (b) => setAt(b, 'entry[5].fullUrl', b.entry?.[4]?.fullUrl), 'invalid', 'Bundle.entry[5].fullUrl'],
      ['without resource', (b) => setAt(b, 'entry[4].resource', undefined), 'required', 'Bundle.entry[4].resource'],
      [
        'with a resource of another type',
        (b) => setAt(b, 'entry[4].resource.resourceType', 'Procedure'),
        'code-invalid',
        'Bundle.entry[4].resource.resourceType',
      ],
      [
        'with a resource without resourceType',
        (b) => setAt(b, 'entry[4].resource.resourceType', undefined),
        'required',
        'Bundle.entry[4].resource.resourceType',
      ],
    ])('%s', (_, breakIt, code, expression) => {
      const bundle = proposal();
      breakIt(bundle);
      expect(issuesOf(bundle)).toEqual([expect.objectContaining({ code, expression })]);
    });
  });

  describe('counts the resources', () => {
    const withCopyOf = (resourceType: 'ServiceRequest' | 'Patient' | 'Coverage' | 'Encounter') => {
      const bundle = proposal();
      const copy = structuredClone(resourceOf(bundle, resourceType));
      copy.id = '7c9e6679-7425-40de-944b-e07fc1f90ae7';
      bundle.entry?.push({ fullUrl: `urn:uuid:${copy.id}`, resource: copy });
      return bundle;
    };

    it.each(['ServiceRequest', 'Patient', 'Coverage', 'Encounter'] as const)('refuses a second %s on the surplus entry', (resourceType) => {
      expect(issuesOf(withCopyOf(resourceType))).toEqual([expect.objectContaining({ code: 'structure', expression: 'Bundle.entry[12]' })]);
    });

    it.each([
      ['ServiceRequest', 'exactly 1 ServiceRequest required, found 0'],
      ['Patient', 'exactly 1 Patient required, found 0'],
      ['Organization', 'at least 1 Organization required, found 0'],
    ] as const)('requires a %s', (resourceType, diagnostics) => {
      const bundle = proposal();
      bundle.entry = bundle.entry?.filter((entry) => entry.resource?.resourceType !== resourceType);
      expect(issuesOf(bundle)).toContainEqual(expect.objectContaining({ code: 'required', diagnostics, expression: 'Bundle.entry' }));
    });
  });

  describe('resolves references', () => {
    it.each<[string, (bundle: Bundle) => [string, unknown], IssueCode, string]>([
      ['in relative form', () => ['entry[0].resource.subject.reference', 'Patient/123'], 'value', 'Bundle.entry[0].resource.subject.reference'],
      ['to no entry of the bundle', () => ['entry[0].resource.subject.reference', UNKNOWN_URN], 'invalid', 'Bundle.entry[0].resource.subject.reference'],
      [
        'of subject to an Organization',
        (b) => ['entry[0].resource.subject.reference', fullUrlOf(b, 'Organization')],
        'invalid',
        'Bundle.entry[0].resource.subject.reference',
      ],
      [
        'of requester to the Patient',
        (b) => ['entry[0].resource.requester.reference', fullUrlOf(b, 'Patient')],
        'invalid',
        'Bundle.entry[0].resource.requester.reference',
      ],
      [
        'of performer to the Encounter',
        (b) => ['entry[0].resource.performer[1].reference', fullUrlOf(b, 'Encounter')],
        'invalid',
        'Bundle.entry[0].resource.performer[1].reference',
      ],
      [
        'of encounter to a Condition',
        (b) => ['entry[0].resource.encounter.reference', fullUrlOf(b, 'Condition')],
        'invalid',
        'Bundle.entry[0].resource.encounter.reference',
      ],
      [
        'of beneficiary to an Organization',
        (b) => ['entry[2].resource.beneficiary.reference', fullUrlOf(b, 'Organization')],
        'invalid',
        'Bundle.entry[2].resource.beneficiary.reference',
      ],
      [
        'of serviceProvider to the Patient',
        (b) => ['entry[3].resource.serviceProvider.reference', fullUrlOf(b, 'Patient')],
        'invalid',
        'Bundle.entry[3].resource.serviceProvider.reference',
      ],
      [
        'of a Condition encounter to the Patient',
        (b) => ['entry[4].resource.encounter.reference', fullUrlOf(b, 'Patient')],
        'invalid',
        'Bundle.entry[4].resource.encounter.reference',
      ],
      [
        'of an Observation subject to nothing',
        () => ['entry[7].resource.subject.reference', UNKNOWN_URN],
        'invalid',
        'Bundle.entry[7].resource.subject.reference',
      ],
      [
        'in an element the profile does not name',
        () => ['entry[4].resource.evidence', [{ detail: [{ reference: 'Observation/1' }] }]],
        'value',
        'Bundle.entry[4].resource.evidence[0].detail[0].reference',
      ],
    ])('%s', (_, change, code, expression) => {
      const bundle = proposal();
      const [at, value] = change(bundle);
      setAt(bundle, at, value);
      expect(issuesOf(bundle)).toEqual([expect.objectContaining({ code, expression })]);
    });

    it('refuses the same clinic named twice as performer', () => {
      const bundle = proposal();
      setAt(bundle, 'entry[0].resource.performer[1]', { reference: fullUrlOf(bundle, 'Organization', 1) });
      expect(issuesOf(bundle)).toEqual([expect.objectContaining({ code: 'invalid', expression: 'Bundle.entry[0].resource.performer[1]' })]);
    });

    it('refuses two performer Organizations with the same IK number', () => {
      const bundle = proposal();
      setAt(bundle, 'entry[11].resource.identifier[0]', { system: IK_NUMBER_SYSTEM, value: '510000001' });
      expect(issuesOf(bundle)).toEqual([expect.objectContaining({ code: 'invalid', expression: 'Bundle.entry[0].resource.performer[1]' })]);
    });
  });
});
