import type { CodeSystem } from '@medplum/fhirtypes';
import { BusinessStatus } from '@bedrequest/contracts';
import { expectValidFhir } from '@bedrequest/testing';
import { validateAdmissionRequestBundle } from '../admission-request-bundle';
import { ADMISSION_RESPONSE_STATUSES, ORDER_DETAIL_CODES, SERVICE_TYPE_CODES } from '../codes';
import { resolveDepartment, SPECIALTIES } from '../specialties';
import { DEFAULT_PROFILE_BASE, DEPARTMENT_KEY_SYSTEM, fhirSystems } from '../systems';
import { admissionRequestBundle, resourceOf } from '../testing';
import { codeSystems } from './code-systems';

const options = { profileBase: DEFAULT_PROFILE_BASE, version: '1.2.3', date: '2026-11-22T10:00:00.000Z' };
const systems = fhirSystems(DEFAULT_PROFILE_BASE);
const served = codeSystems(options);
const byUrl = (url: string): CodeSystem => {
  const found = served.find((codeSystem) => codeSystem.url === url);
  if (!found) throw new Error(`no CodeSystem ${url}`);
  return found;
};
const codesOf = (codeSystem: CodeSystem) => (codeSystem.concept ?? []).map((concept) => concept.code);

/** A valid bundle asking for `code` as its service type. */
const askingFor = (code: string) => {
  const bundle = admissionRequestBundle();
  const coding = resourceOf(bundle, 'ServiceRequest').code?.coding?.find((candidate) => candidate.system === systems.serviceTypeSystem);
  if (!coding) throw new Error('the fixture has no service type coding');
  coding.code = code;
  return bundle;
};

describe('the code systems of the interface', () => {
  it('are valid FHIR R4 CodeSystems, for a validator outside the project', () => {
    for (const codeSystem of served) expectValidFhir(codeSystem, codeSystem.url);
  });

  it('are one for each code system URI of fhirSystems, with the last segment of the URL as id', () => {
    const codeSystemUris = Object.values(fhirSystems(DEFAULT_PROFILE_BASE)).filter((uri) => uri.includes('/fhir/CodeSystem/'));
    expect(served.map((codeSystem) => codeSystem.url).sort()).toEqual(codeSystemUris.sort());
    expect(served.map((codeSystem) => codeSystem.id)).toEqual(['bedrequest-service-type', 'specialty', 'order-detail-type', 'admission-response-status']);
  });

  it('are complete and active, every code once with a display, in the version and date given', () => {
    for (const codeSystem of served) {
      expect(codeSystem).toMatchObject({ status: 'active', content: 'complete', version: '1.2.3', date: options.date, count: codeSystem.concept?.length });
      expect(new Set(codesOf(codeSystem)).size).toBe(codeSystem.concept?.length);
      for (const concept of codeSystem.concept ?? []) expect(concept.display).toMatch(/\S/);
    }
  });

  it('list exactly the codes the validators and contracts accept', () => {
    expect(codesOf(byUrl(systems.serviceTypeSystem))).toEqual([...SERVICE_TYPE_CODES]);
    expect(codesOf(byUrl(systems.specialtySystem))).toEqual(SPECIALTIES.map((specialty) => specialty.code));
    expect(codesOf(byUrl(systems.orderDetailSystem))).toEqual([...ORDER_DETAIL_CODES]);
    expect(codesOf(byUrl(systems.admissionResponseStatusSystem))).toEqual([...BusinessStatus.options]);
  });

  it('every service type code is accepted in a bundle, and a code the system lacks is not', () => {
    const validate = (code: string) => validateAdmissionRequestBundle(askingFor(code), { profileBase: DEFAULT_PROFILE_BASE }).ok;
    for (const code of codesOf(byUrl(systems.serviceTypeSystem))) expect(validate(code ?? '')).toBe(true);
    expect(validate('outpatient-physiotherapy')).toBe(false);
  });

  it('each specialty names the department key its requests are routed to', () => {
    for (const concept of byUrl(systems.specialtySystem).concept ?? []) {
      const department = concept.property?.find((property) => property.code === 'department')?.valueCoding;
      expect(department?.system).toBe(DEPARTMENT_KEY_SYSTEM);
      const resolved = resolveDepartment({ coding: [{ system: systems.specialtySystem, code: concept.code }] });
      expect(resolved?.departmentCode).toBe(department?.code);
    }
  });

  it("the answers carry the displays the Tasks' businessStatus carries", () => {
    const concepts = byUrl(systems.admissionResponseStatusSystem).concept ?? [];
    expect(Object.fromEntries(concepts.map((concept) => [concept.code, concept.display]))).toEqual(ADMISSION_RESPONSE_STATUSES);
  });

  it('follow the profile base', () => {
    const urls = codeSystems({ ...options, profileBase: 'https://codes.example' }).map((codeSystem) => codeSystem.url);
    expect(urls).toEqual([
      'https://codes.example/fhir/CodeSystem/bedrequest-service-type',
      'https://codes.example/fhir/CodeSystem/specialty',
      'https://codes.example/fhir/CodeSystem/order-detail-type',
      'https://codes.example/fhir/CodeSystem/admission-response-status',
    ]);
  });
});
