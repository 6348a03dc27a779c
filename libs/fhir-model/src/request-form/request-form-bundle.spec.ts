import type { Bundle, Encounter, Patient } from '@medplum/fhirtypes';
import { admissionRequestBundle, FIXTURE_FHIR_BASE, FIXTURE_TIMESTAMP, resourceOf } from '../testing';
import { validateAdmissionRequestBundle } from '../admission-request-bundle';
import { DEFAULT_PROFILE_BASE } from '../systems';
import { buildAdmissionRequestBundle, formOfBundle, requestFormSchema, type RequestForm } from './index';
import { NOW, proposalForm, selectionForm } from './testing/forms';

/**
 * The bundles built from the request form go through the same validation as a bundle POSTed to
 * the gateway (`validateAdmissionRequestBundle`, apps/gateway/src/fhir/bundle.router.ts).
 */

const OTHER_PROFILE_BASE = 'https://profiles.example.net/base';
const build = (form: RequestForm, profileBase = DEFAULT_PROFILE_BASE) => buildAdmissionRequestBundle(form, { profileBase, now: NOW });
const schema = requestFormSchema({ now: () => NOW });

function accepted(bundle: Bundle, profileBase = DEFAULT_PROFILE_BASE) {
  const result = validateAdmissionRequestBundle(bundle, { profileBase });
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.issues, null, 2)}`);
  return result.bundle;
}

const minimalForm: RequestForm = {
  requestIdentifier: proposalForm.requestIdentifier,
  transmissionNumber: 'T-0003',
  stage: 'proposal',
  requester: { ik: '260000001' },
  performers: [{ ik: '510000002' }],
  patient: { gender: 'unknown', birthDate: '1940-02-29', postalCode: '8010', city: 'Graz' },
  desiredAdmissionDate: '2027-01-04',
  serviceType: 'day-patient-rehabilitation',
  departmentKey: '2800',
  diagnoses: [{ code: 'I63.5', text: 'Hirninfarkt' }],
};

describe('buildAdmissionRequestBundle', () => {
  it('builds a proposal the gateway accepts, with the patient pseudonymised', () => {
    expect(schema.parse(proposalForm)).toEqual(proposalForm);
    const bundle = build(proposalForm);
    expect(accepted(bundle)).toMatchObject({
      requestIdentifier: proposalForm.requestIdentifier,
      transmissionNumber: 'T-0001',
      timestamp: NOW.toISOString(),
      status: 'active',
      intent: 'proposal',
      orderDetail: undefined,
      serviceType: 'follow-up-rehabilitation',
      requesterIk: '260000001',
      performers: [
        { ik: '510000001', deepLink: 'https://referrer.example/requests/42' },
        { ik: '510000002', deepLink: undefined },
      ],
      patient: 'masked',
      patientIdentifier: expect.stringMatching(/^https:\/\/referrer\.example\/fhir\/Patient\/[0-9a-f-]{36}$/),
      departmentCode: '2300',
      specialty: 'orthopedics',
      occurrenceDate: '2026-12-01',
    });
    expect(bundle.entry?.map((entry) => entry.resource?.resourceType)).toEqual([
      'ServiceRequest',
      'Patient',
      'Coverage',
      'Encounter',
      ...['Condition', 'Condition', 'Condition'],
      ...['Observation', 'Observation'],
      ...['Organization', 'Organization', 'Organization'],
    ]);
    const patient = resourceOf(bundle, 'Patient');
    expect(patient).toMatchObject({ gender: 'female', birthDate: '1956-03-14', address: [{ postalCode: '10115', city: 'Berlin' }] });
    expect(patient.telecom).toBeUndefined();
    expect(patient.address?.[0]?.line).toBeUndefined();
    expect(patient.name?.[0]?.family).toBeUndefined();
    expect(resourceOf(bundle, 'Encounter').identifier).toEqual([
      { type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'VN' }] }, value: 'F-2026-004711' },
    ]);
    // A diagnosis typed without a recorded date is recorded on the day the bundle is built (in Germany).
    expect(resourceOf(bundle, 'Condition', 1).recordedDate).toBe('2026-11-21');
    expect(resourceOf(bundle, 'ServiceRequest').note).toEqual([{ text: 'Einzelzimmer erwünscht' }, { text: 'Mobil am Rollator,\nTreppe mit Hilfe' }]);
  });

  it('builds the selection the gateway accepts: an order for the one selected clinic with the complete patient', () => {
    const bundle = build(selectionForm);
    expect(accepted(bundle)).toMatchObject({ intent: 'order', orderDetail: 'selected-provider', patient: 'complete', performerIks: ['510000001'] });
    expect(resourceOf(bundle, 'Patient')).toMatchObject({
      name: [{ family: 'Musterfrau', given: ['Erika', 'Maria'] }],
      address: [{ line: ['Invalidenstraße 117'], postalCode: '10115', city: 'Berlin' }],
      telecom: [{ system: 'phone', value: '+49 30 1234567' }],
    });
  });

  it('sends an answer deadline as the ServiceRequest extension, and reads it back', () => {
    const form = { ...proposalForm, answerDeadline: '2027-01-02T16:00:00+01:00' };
    expect(schema.parse(form)).toEqual(form);
    const bundle = build(form);
    expect(resourceOf(bundle, 'ServiceRequest').extension).toEqual([
      { url: `${DEFAULT_PROFILE_BASE}/fhir/StructureDefinition/answer-deadline`, valueDateTime: '2027-01-02T16:00:00+01:00' },
    ]);
    const result = validateAdmissionRequestBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE, now: () => NOW });
    expect(result.ok && result.bundle.answerDeadline).toBe('2027-01-02T16:00:00+01:00');
    expect(formOfBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE }).answerDeadline).toBe('2027-01-02T16:00:00+01:00');
    expect('answerDeadline' in formOfBundle(build(proposalForm), { profileBase: DEFAULT_PROFILE_BASE })).toBe(false);
    expect(schema.safeParse({ ...proposalForm, answerDeadline: '2027-01-02' }).success).toBe(false);
  });

  it('builds a form with only the required fields, and for another profile base', () => {
    const bundle = build(schema.parse(minimalForm), OTHER_PROFILE_BASE);
    expect(accepted(bundle, OTHER_PROFILE_BASE)).toMatchObject({ departmentCode: '2800', specialty: undefined, patient: 'masked' });
    expect(bundle.entry?.map((entry) => entry.resource?.resourceType)).toEqual(['ServiceRequest', 'Patient', 'Condition', 'Organization', 'Organization']);
    expect(resourceOf(bundle, 'Organization')).toMatchObject({ name: 'IK 260000001' });
    // The same bundle claims profiles the default profile base does not know: the check is live.
    expect(validateAdmissionRequestBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE }).ok).toBe(false);
  });

  it('is refused by the gateway when the schema is bypassed: a selection without a family name', () => {
    const unnamed = { ...selectionForm.patient };
    delete unnamed.familyName;
    const result = validateAdmissionRequestBundle(build({ ...selectionForm, patient: unnamed }), { profileBase: DEFAULT_PROFILE_BASE });
    expect(result.ok).toBe(false);
    expect(result.ok ? [] : result.issues.map((issue) => issue.expression)).toContain('Bundle.entry[1].resource.name[0].family');
    expect(schema.safeParse({ ...selectionForm, patient: unnamed }).success).toBe(false);
  });

  it('would be refused by the gateway with a birth year alone, which is why the form asks for the full date', () => {
    const result = validateAdmissionRequestBundle(build({ ...proposalForm, patient: { ...proposalForm.patient, birthDate: '1956' } }), {
      profileBase: DEFAULT_PROFILE_BASE,
    });
    expect(result.ok ? [] : result.issues.map((issue) => issue.expression)).toContain('Bundle.entry[1].resource.birthDate');
  });

  it('gives the same form and time the same JSON, and a supplement the same resource ids', () => {
    expect(JSON.stringify(build(proposalForm))).toBe(JSON.stringify(build(structuredClone(proposalForm))));
    const first = build(proposalForm);
    const supplement = build({ ...proposalForm, transmissionNumber: 'T-0002', notes: ['Befund anbei'] });
    expect(supplement.id).not.toBe(first.id);
    expect(supplement.entry?.map((entry) => entry.fullUrl)).toEqual(first.entry?.map((entry) => entry.fullUrl));
    const selected = build(selectionForm);
    expect(resourceOf(selected, 'Patient').id).toBe(resourceOf(first, 'Patient').id);
    expect(resourceOf(selected, 'Patient').identifier).toEqual(resourceOf(first, 'Patient').identifier);
    const otherRequest = build({ ...proposalForm, requestIdentifier: `${FIXTURE_FHIR_BASE}/ServiceRequest/another` });
    expect(resourceOf(otherRequest, 'Patient').id).not.toBe(resourceOf(first, 'Patient').id);
  });
});

describe('formOfBundle', () => {
  it.each([
    ['proposal', proposalForm],
    ['selection', selectionForm],
    ['form with the required fields only', schema.parse(minimalForm)],
  ])('reads the bundle of a %s back into a form that builds the same bundle', (_, form) => {
    const bundle = build(form);
    const read = formOfBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE });
    expect(schema.parse(read)).toEqual(read);
    expect(build(read)).toEqual(bundle);
  });

  it('reads every field the form has as it was typed', () => {
    const explicit: RequestForm = {
      ...selectionForm,
      departmentKey: '2300',
      diagnoses: selectionForm.diagnoses.map((diagnosis) => ({ recordedDate: '2026-11-18', ...diagnosis })),
    };
    expect(formOfBundle(build(explicit), { profileBase: DEFAULT_PROFILE_BASE })).toEqual(explicit);
  });

  it("reads a bundle made by the test fixture, for the referrer's FHIR base, into a form the service accepts again", () => {
    const now = new Date(FIXTURE_TIMESTAMP);
    const fixture = admissionRequestBundle({ requestIdentifier: `${FIXTURE_FHIR_BASE}/ServiceRequest/3f0c2d8e-5b1a-4c8e-9a57-2f6d1e0b7c44` });
    (resourceOf(fixture, 'Encounter') as Encounter).identifier = [
      { system: 'urn:ietf:rfc:3986', value: `${FIXTURE_FHIR_BASE}/Encounter/1` },
      {
        type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'VN' }] },
        system: 'https://referrer.example/sid/fall',
        value: 'F-77',
      },
    ];
    const form = formOfBundle(fixture, { profileBase: DEFAULT_PROFILE_BASE });
    expect(form).toEqual({
      requestIdentifier: `${FIXTURE_FHIR_BASE}/ServiceRequest/3f0c2d8e-5b1a-4c8e-9a57-2f6d1e0b7c44`,
      transmissionNumber: expect.stringMatching(/^T-[0-9a-f]{8}$/),
      stage: 'proposal',
      requester: { ik: '260000001', name: 'Akutklinik Mitte' },
      performers: [
        { ik: '510000001', name: 'Rehaklinik 510000001' },
        { ik: '510000002', name: 'Rehaklinik 510000002' },
      ],
      patient: { gender: 'female', birthDate: '1956-01-01', postalCode: '10115', city: 'Berlin' },
      desiredAdmissionDate: '2026-12-01',
      serviceType: 'full-inpatient-rehabilitation',
      specialty: 'orthopedics',
      departmentKey: '2300',
      diagnoses: [
        { code: 'S72.01', text: 'Schenkelhalsfraktur: Intrakapsulär', recordedDate: '2026-11-18' },
        { code: 'I10.00', text: 'Benigne essentielle Hypertonie', recordedDate: '2026-11-18' },
        { code: 'E11.90', text: 'Diabetes mellitus, Typ 2', recordedDate: '2026-11-18' },
      ],
      weightKg: 72.5,
      heightCm: 168,
      coverage: { payorIk: '109519005', payorName: 'AOK Nordost', kind: 'GKV' },
      stay: { admissionDate: '2026-11-15', status: 'in-house', caseNumber: 'F-77' },
      notes: ['Einzelzimmer erwünscht'],
    });
    const parsed = requestFormSchema({ now: () => now }).parse(form);
    expect(accepted(buildAdmissionRequestBundle(parsed, { profileBase: DEFAULT_PROFILE_BASE, now }))).toMatchObject({ patient: 'masked' });
  });

  it("reads a fixture's selection as a selection with the complete patient", () => {
    const fixture = admissionRequestBundle({ intent: 'order', orderDetail: 'selected-provider' });
    const form = formOfBundle(fixture, { profileBase: DEFAULT_PROFILE_BASE });
    expect(form).toMatchObject({
      stage: 'selection',
      performers: [{ ik: '510000001' }],
      patient: { familyName: 'Musterfrau', givenNames: ['Erika'], streetLine: 'Invalidenstraße 117', phone: '+49 30 1234567' },
    });
    expect(accepted(build(schema.parse(form)))).toMatchObject({ intent: 'order', patient: 'complete' });
  });

  it('reads a proposal with a complete patient as it is, for the schema to ask that the name be removed', () => {
    const bundle = build(selectionForm);
    const request = resourceOf(bundle, 'ServiceRequest');
    request.intent = 'proposal';
    delete request.orderDetail;
    const form = formOfBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE });
    expect(form.stage).toBe('proposal');
    expect((resourceOf(bundle, 'Patient') as Patient).name?.[0]?.family).toBe(form.patient.familyName);
    const result = schema.safeParse(form);
    expect(result.success ? [] : result.error.issues.map((issue) => issue.path.join('.'))).toEqual(
      expect.arrayContaining(['patient.familyName', 'patient.givenNames', 'patient.streetLine', 'patient.phone']),
    );
  });

  it('reads the searchset of GET /api/v2/fhir/ServiceRequest?identifier= (docs/api.md, "Reading a request back"), which has no transmission number', () => {
    const stored = build(selectionForm);
    const entries = structuredClone(stored.entry ?? []).map((entry, index) => ({
      ...entry,
      search: { mode: index === 0 ? ('match' as const) : ('include' as const) },
    }));
    entries[0]!.resource!.meta = { versionId: '2', lastUpdated: '2026-11-21T12:00:01.000Z' };
    const searchset: Bundle = { resourceType: 'Bundle', type: 'searchset', total: 1, entry: entries };
    expect(formOfBundle(searchset, { profileBase: DEFAULT_PROFILE_BASE })).toEqual({
      ...formOfBundle(stored, { profileBase: DEFAULT_PROFILE_BASE }),
      transmissionNumber: '',
    });
  });

  it('refuses a bundle without a ServiceRequest or Patient', () => {
    expect(() => formOfBundle({ resourceType: 'Bundle', type: 'collection' }, { profileBase: DEFAULT_PROFILE_BASE })).toThrow(
      /no ServiceRequest or no Patient/,
    );
  });
});
