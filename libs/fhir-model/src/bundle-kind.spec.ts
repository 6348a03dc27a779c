import { bundleKind } from './bundle-kind';
import { fhirSystems } from './systems';
import { admissionRequestBundle, documentBundle } from './testing';

const profileBase = 'https://bedrequest.example.org';
const { admissionRequestBundleProfile, documentBundleProfile } = fhirSystems(profileBase);
const withProfiles = (...profile: unknown[]) => ({ resourceType: 'Bundle', meta: { profile } });

describe('bundleKind', () => {
  it.each([
    ['an admission request', admissionRequestBundle(), 'admission-request'],
    ['a document', documentBundle(), 'document'],
    ['a versioned admission request profile', withProfiles(`${admissionRequestBundleProfile}|1.0`), 'admission-request'],
    ['the profile among others', withProfiles('http://hl7.org/fhir/StructureDefinition/Bundle', documentBundleProfile), 'document'],
    ['both profiles', withProfiles(admissionRequestBundleProfile, documentBundleProfile), 'unknown'],
    ['no profile', withProfiles(), 'unknown'],
    ['a profile of another profile base', withProfiles('https://other.example/fhir/StructureDefinition/AdmissionRequestBundle'), 'unknown'],
    ['a profile prefix only', withProfiles(`${admissionRequestBundleProfile}Extra`), 'unknown'],
    ['a profile that is not a list', { meta: { profile: admissionRequestBundleProfile } }, 'unknown'],
    ['no meta', { resourceType: 'Bundle' }, 'unknown'],
    ['null', null, 'unknown'],
    ['an array', [withProfiles(documentBundleProfile)], 'unknown'],
  ])('tells %s apart by meta.profile', (_, input, kind) => {
    expect(bundleKind(input, profileBase)).toBe(kind);
  });

  it('uses the configured profile base', () => {
    const bundle = admissionRequestBundle({ profileBase: 'https://profiles.example.net' });
    expect(bundleKind(bundle, 'https://profiles.example.net')).toBe('admission-request');
    expect(bundleKind(bundle, profileBase)).toBe('unknown');
  });
});
