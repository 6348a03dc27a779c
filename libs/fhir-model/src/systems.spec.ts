import { ADMISSION_RESPONSE_STATUS_CODES, ADMISSION_RESPONSE_STATUSES } from './codes';
import { DEFAULT_PROFILE_BASE, fhirSystems } from './systems';

describe('fhirSystems', () => {
  it('builds the service-owned URIs from the default profile base', () => {
    expect(fhirSystems()).toEqual({
      profileBase: DEFAULT_PROFILE_BASE,
      admissionRequestBundleProfile: 'https://bedrequest.example.org/fhir/StructureDefinition/AdmissionRequestBundle',
      documentBundleProfile: 'https://bedrequest.example.org/fhir/StructureDefinition/DocumentBundle',
      admissionRequestNamingSystem: 'https://bedrequest.example.org/fhir/NamingSystem/admission-request',
      serviceTypeSystem: 'https://bedrequest.example.org/fhir/CodeSystem/bedrequest-service-type',
      specialtySystem: 'https://bedrequest.example.org/fhir/CodeSystem/specialty',
      orderDetailSystem: 'https://bedrequest.example.org/fhir/CodeSystem/order-detail-type',
      admissionResponseStatusSystem: 'https://bedrequest.example.org/fhir/CodeSystem/admission-response-status',
      performerDeepLinkSystem: 'https://bedrequest.example.org/fhir/sid/performer-deep-link',
      userSystem: 'https://bedrequest.example.org/fhir/sid/user',
      answerDeadlineExtension: 'https://bedrequest.example.org/fhir/StructureDefinition/answer-deadline',
      answerOverdueExtension: 'https://bedrequest.example.org/fhir/StructureDefinition/answer-overdue',
      askedByRuleExtension: 'https://bedrequest.example.org/fhir/StructureDefinition/asked-by-rule',
    });
  });

  it('takes a configured profile base, with or without a trailing slash', () => {
    expect(fhirSystems('https://profiles.example.net/').specialtySystem).toBe('https://profiles.example.net/fhir/CodeSystem/specialty');
    expect(fhirSystems('https://profiles.example.net').specialtySystem).toBe('https://profiles.example.net/fhir/CodeSystem/specialty');
  });
});

describe('admission response statuses', () => {
  it('are the four codes of docs/decisions.md, each with a display', () => {
    expect(ADMISSION_RESPONSE_STATUS_CODES).toEqual(['accepted', 'declined', 'query', 'more-data-required']);
    expect(Object.values(ADMISSION_RESPONSE_STATUSES).every((display) => display.length > 0)).toBe(true);
  });
});
