import { randomUUID } from 'node:crypto';
import type { Bundle, BundleEntry, ElementDefinition, StructureDefinition } from '@medplum/fhirtypes';
import { expectValidFhir } from '@bedrequest/testing';
import { validateAdmissionRequestBundle } from '../admission-request-bundle';
import { validateDocumentBundle } from '../document-bundle';
import { DEFAULT_PROFILE_BASE, fhirSystems } from '../systems';
import { admissionRequestBundle, documentBundle } from '../testing';
import { bundleProfiles } from './structure-definitions';

const options = { profileBase: DEFAULT_PROFILE_BASE, version: '1.2.3', date: '2026-11-22T10:00:00.000Z' };
const systems = fhirSystems(DEFAULT_PROFILE_BASE);
const [admissionProfile, documentProfile] = bundleProfiles(options) as [StructureDefinition, StructureDefinition];

const elements = (profile: StructureDefinition): ElementDefinition[] => profile.differential?.element ?? [];
const element = (profile: StructureDefinition, id: string) => elements(profile).find((candidate) => candidate.id === id);
const entrySlices = (profile: StructureDefinition) =>
  elements(profile)
    .filter((candidate) => candidate.path === 'Bundle.entry' && candidate.sliceName)
    .map((slice) => ({ resourceType: slice.sliceName ?? '', min: slice.min ?? 0, max: slice.max ?? '*' }));

/** The bundle validator each profile stands for, with a valid bundle of it. */
const cases = [
  {
    name: 'AdmissionRequestBundle',
    profile: admissionProfile,
    valid: () => admissionRequestBundle(),
    accepts: (bundle: unknown) => validateAdmissionRequestBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE }).ok,
  },
  {
    name: 'DocumentBundle',
    profile: documentProfile,
    valid: () => documentBundle(),
    accepts: (bundle: unknown) => validateDocumentBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE }).ok,
  },
];

/** A copy of an entry under a fresh fullUrl, so that only the count of its resource type changes. */
const copyOf = (entry: BundleEntry): BundleEntry => ({ ...structuredClone(entry), fullUrl: `urn:uuid:${randomUUID()}` });

describe('the Bundle profiles', () => {
  it('are valid FHIR R4 StructureDefinitions, for a validator outside the project', () => {
    for (const profile of bundleProfiles(options)) expectValidFhir(profile, profile.url);
  });

  it('sit at the canonical URLs the validators check meta.profile against, with the last segment as id', () => {
    expect(bundleProfiles(options).map(({ url, id }) => ({ url, id }))).toEqual([
      { url: systems.admissionRequestBundleProfile, id: 'AdmissionRequestBundle' },
      { url: systems.documentBundleProfile, id: 'DocumentBundle' },
    ]);
    const elsewhere = bundleProfiles({ ...options, profileBase: 'https://profiles.example/base/' });
    expect(elsewhere.map((profile) => profile.url)).toEqual([
      'https://profiles.example/base/fhir/StructureDefinition/AdmissionRequestBundle',
      'https://profiles.example/base/fhir/StructureDefinition/DocumentBundle',
    ]);
  });

  it('constrain the base Bundle and carry the version and date given', () => {
    for (const profile of bundleProfiles(options)) {
      expect(profile).toMatchObject({
        kind: 'resource',
        type: 'Bundle',
        baseDefinition: 'http://hl7.org/fhir/StructureDefinition/Bundle',
        derivation: 'constraint',
        fhirVersion: '4.0.1',
        status: 'active',
        version: '1.2.3',
        date: options.date,
      });
      const ids = elements(profile).map((candidate) => candidate.id);
      expect(new Set(ids).size).toBe(ids.length);
    }
  });

  it('fix the type, the profile claim and, for the admission request, the identifier system', () => {
    expect(element(admissionProfile, 'Bundle.type')?.fixedCode).toBe('collection');
    expect(element(documentProfile, 'Bundle.type')?.fixedCode).toBe('document');
    expect(element(admissionProfile, 'Bundle.meta.profile:admissionRequestBundle')).toMatchObject({
      min: 1,
      fixedCanonical: systems.admissionRequestBundleProfile,
    });
    expect(element(documentProfile, 'Bundle.meta.profile:documentBundle')).toMatchObject({ min: 1, fixedCanonical: systems.documentBundleProfile });
    expect(element(admissionProfile, 'Bundle.identifier.system')).toMatchObject({ min: 1, fixedUri: systems.admissionRequestNamingSystem });
    expect(element(admissionProfile, 'Bundle.timestamp')?.min).toBe(1);
    expect(element(admissionProfile, 'Bundle.entry')?.min).toBe(3);
    expect(element(documentProfile, 'Bundle.entry')?.min).toBe(2);
  });

  describe.each(cases)('$name: the validator enforces what the profile states', ({ profile, valid, accepts }) => {
    it('accepts the valid fixture, which claims the profile', () => {
      const bundle = valid();
      expect(bundle.meta?.profile).toContain(profile.url);
      expect(accepts(bundle)).toBe(true);
    });

    it.each(entrySlices(profile))('$resourceType entries: at least $min, at most $max', ({ resourceType, min, max }) => {
      const bundle = valid();
      const ofType = (bundle.entry ?? []).filter((entry) => entry.resource?.resourceType === resourceType);
      const others = (bundle.entry ?? []).filter((entry) => entry.resource?.resourceType !== resourceType);
      const withCount = (count: number): Bundle => {
        const first = ofType[0];
        if (!first) throw new Error(`the fixture has no ${resourceType}`);
        const copies = Array.from({ length: count }, (_, index) => (index < ofType.length ? ofType[index] : copyOf(first)));
        // The document's Composition stays first (bdl-11): only the count changes.
        return { ...bundle, entry: resourceType === 'Composition' ? [...(copies as BundleEntry[]), ...others] : [...others, ...(copies as BundleEntry[])] };
      };
      // Fewer than min or more than max is refused; more of an unbounded type is not. (Exactly min
      // may be refused for other reasons: a performer Organization is referenced by the request.)
      if (min > 0) expect(accepts(withCount(min - 1))).toBe(false);
      if (max === '*') expect(accepts(withCount(ofType.length + 2))).toBe(true);
      else expect(accepts(withCount(Number(max) + 1))).toBe(false);
    });

    it('refuses another bundle type than the fixed one', () => {
      const fixed = element(profile, 'Bundle.type')?.fixedCode;
      expect(accepts({ ...valid(), type: fixed === 'document' ? 'collection' : 'document' })).toBe(false);
    });
  });

  it('the admission request allows no other resource type (closed slicing), as its validator', () => {
    expect(element(admissionProfile, 'Bundle.entry')?.slicing?.rules).toBe('closed');
    const bundle = admissionRequestBundle();
    const basic = { fullUrl: `urn:uuid:${randomUUID()}`, resource: { resourceType: 'Basic', code: { text: 'x' } } } as BundleEntry;
    expect(validateAdmissionRequestBundle({ ...bundle, entry: [...(bundle.entry ?? []), basic] }, { profileBase: DEFAULT_PROFILE_BASE }).ok).toBe(false);
  });

  it('the admission request needs its identifier and timestamp, as its validator', () => {
    for (const required of ['identifier', 'timestamp'] as const) {
      const bundle = admissionRequestBundle();
      delete bundle[required];
      expect(validateAdmissionRequestBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE }).ok).toBe(false);
    }
  });
});
