import { fieldPath, ICD10GM_CODE, RequestForm, requestFormSchema } from './index';
import { NOW, proposalForm, selectionForm } from './testing/forms';

/** The request form's schema: what it refuses, each time with a message that begins with the field's path. */

const schema = requestFormSchema({ now: () => NOW });
type Change = (form: Record<string, unknown> & RequestForm) => void;

/** The issues of the form changed by `change`, as `path: message`. */
function refusals(change: Change, base: RequestForm = proposalForm, parser = schema): { path: string; message: string }[] {
  const form = structuredClone(base) as Record<string, unknown> & RequestForm;
  change(form);
  const result = parser.safeParse(form);
  return result.success ? [] : result.error.issues.map((issue) => ({ path: fieldPath(issue.path), message: issue.message }));
}

describe('RequestForm', () => {
  it('accepts the examples and leaves them as they are', () => {
    expect(schema.parse(proposalForm)).toEqual(proposalForm);
    expect(schema.parse(selectionForm)).toEqual(selectionForm);
  });

  it('trims what a person typed', () => {
    const form = { ...proposalForm, patient: { ...proposalForm.patient, city: '  Berlin ' }, notes: [' Befund anbei\n'] };
    expect(schema.parse(form)).toMatchObject({ patient: { city: 'Berlin' }, notes: ['Befund anbei'] });
  });

  it.each<[string, Change, string, RegExp, RequestForm?]>([
    ['a malformed ICD-10-GM code', (f) => (f.diagnoses[1]!.code = 'E11,40'), 'diagnoses[1].code', /must be an ICD-10-GM code/],
    ['a birth date in the future', (f) => (f.patient.birthDate = '2026-11-22'), 'patient.birthDate', /must not be in the future/],
    ['a birth date that is no day', (f) => (f.patient.birthDate = '1956-02-30'), 'patient.birthDate', /must be a date YYYY-MM-DD/],
    [
      'a birth year alone',
      (f) => (f.patient.birthDate = '1956'),
      'patient.birthDate',
      /must be a full date YYYY-MM-DD: the service does not accept a year alone/,
    ],
    ['a birth date before 1900', (f) => (f.patient.birthDate = '1899-12-31'), 'patient.birthDate', /must not be before 1900-01-01/],
    ['no diagnosis', (f) => (f.diagnoses = []), 'diagnoses', /must hold at least one diagnosis/],
    ['the diagnoses left out', (f) => delete (f as Partial<RequestForm>).diagnoses, 'diagnoses', /is required$/],
    ['a diagnosis twice', (f) => (f.diagnoses[2]!.code = 'S72.01'), 'diagnoses[2].code', /repeats a diagnosis/],
    ['a diagnosis without its text', (f) => (f.diagnoses[0]!.text = '   '), 'diagnoses[0].text', /must not be empty/],
    ['a diagnosis recorded tomorrow', (f) => (f.diagnoses[0]!.recordedDate = '2026-11-22'), 'diagnoses[0].recordedDate', /must not be in the future/],
    [
      'an unknown service type',
      (f) => ((f as Record<string, unknown>)['serviceType'] = 'outpatient-rehabilitation'),
      'serviceType',
      /must be one of full-inpatient-rehabilitation, /,
    ],
    ['an unknown specialty', (f) => ((f as Record<string, unknown>)['specialty'] = 'surgery'), 'specialty', /must be one of addiction, /],
    ['neither specialty nor department key', (f) => delete f.specialty, 'specialty', /or departmentKey is required/],
    ['a department key of 3 digits', (f) => (f.departmentKey = '230'), 'departmentKey', /must be a department key of 4 digits/],
    [
      'a department key against the specialty',
      (f) => (f.departmentKey = '2800'),
      'departmentKey',
      /is not the department key of specialty orthopedics \(2300\)/,
    ],
    ['a name in a proposal', (f) => (f.patient.familyName = 'Musterfrau'), 'patient.familyName', /must be left out of a proposal/],
    ['given names in a proposal', (f) => (f.patient.givenNames = ['Erika']), 'patient.givenNames', /must be left out of a proposal/],
    ['a street in a proposal', (f) => (f.patient.streetLine = 'Invalidenstraße 117'), 'patient.streetLine', /must be left out of a proposal/],
    ['a telephone in a proposal', (f) => (f.patient.phone = '030 1234567'), 'patient.phone', /must be left out of a proposal/],
    ['a selection without a family name', (f) => delete f.patient.familyName, 'patient.familyName', /is required in a selection/, selectionForm],
    [
      'a selection of two clinics',
      (f) => f.performers.push({ ik: '510000002' }),
      'performers',
      /must name exactly one clinic, the selected one/,
      selectionForm,
    ],
    ['a telephone number with letters', (f) => (f.patient.phone = 'ask the ward'), 'patient.phone', /must be a telephone number/, selectionForm],
    ['an unknown gender', (f) => ((f.patient as Record<string, unknown>)['gender'] = 'f'), 'patient.gender', /must be one of male, female, other, unknown/],
    ['a postal code of 2 characters', (f) => (f.patient.postalCode = '10'), 'patient.postalCode', /must be a postal code/],
    ['no clinic', (f) => (f.performers = []), 'performers', /must name at least one clinic/],
    ['an IK number of 8 digits', (f) => (f.performers[1]!.ik = '51000000'), 'performers[1].ik', /must be an IK number of 9 digits/],
    ['a clinic twice', (f) => (f.performers[1]!.ik = '510000001'), 'performers[1].ik', /names a clinic already named/],
    [
      'a deep link that is no web address',
      (f) => (f.performers[0]!.deepLink = 'javascript:alert(1)'),
      'performers[0].deepLink',
      /must be an absolute web address/,
    ],
    [
      'a request identifier not of a ServiceRequest',
      (f) => (f.requestIdentifier = 'https://referrer.example/fhir/Patient/1'),
      'requestIdentifier',
      /must be '<FHIR base URL>\/ServiceRequest\/<id>'/,
    ],
    ['a transmission number with a space', (f) => (f.transmissionNumber = 'T 1'), 'transmissionNumber', /printable ASCII characters without spaces/],
    ['an unknown stage', (f) => ((f as Record<string, unknown>)['stage'] = 'order'), 'stage', /must be one of proposal, selection/],
    ['a desired admission date that is no day', (f) => (f.desiredAdmissionDate = '01.12.2026'), 'desiredAdmissionDate', /must be a date YYYY-MM-DD/],
    ['a weight of 0 kg', (f) => (f.weightKg = 0), 'weightKg', /must be between 0.3 and 500/],
    ['a height in metres', (f) => (f.heightCm = 1.68), 'heightCm', /must be between 20 and 260/],
    ['a weight typed as text', (f) => ((f as Record<string, unknown>)['weightKg'] = '72'), 'weightKg', /must be a number/],
    [
      'an unknown kind of coverage',
      (f) => ((f.coverage as Record<string, unknown>)['kind'] = 'AOK'),
      'coverage.kind',
      /must be one of GKV, PKV, BG, SEL, SOZ, GPV, PPV, BEI/,
    ],
    ['a payor IK of letters', (f) => (f.coverage!.payorIk = 'AOK'), 'coverage.payorIk', /must be an IK number of 9 digits/],
    [
      'a discharge without its date',
      (f) => (f.stay = { admissionDate: '2026-11-15', status: 'discharged' }),
      'stay.dischargeDate',
      /is required when the patient was discharged/,
    ],
    [
      'a discharge before the admission',
      (f) => (f.stay = { admissionDate: '2026-11-15', status: 'discharged', dischargeDate: '2026-11-14' }),
      'stay.dischargeDate',
      /must not be before stay.admissionDate/,
    ],
    [
      'a discharge date while in the hospital',
      (f) => (f.stay!.dischargeDate = '2026-11-20'),
      'stay.dischargeDate',
      /must be left out while the patient is still in the hospital/,
    ],
    ['a case number with a line break', (f) => (f.stay!.caseNumber = 'F-1\nF-2'), 'stay.caseNumber', /must be 1 to 64 letters, digits/],
    ['21 notes', (f) => (f.notes = Array.from({ length: 21 }, (_, i) => `Hinweis ${i}`)), 'notes', /must hold at most 20 notes/],
    ['a note of 4001 characters', (f) => (f.notes = ['x'.repeat(4001)]), 'notes[0]', /must be at most 4000 characters long/],
    ['a note with a NUL character', (f) => (f.notes = ['Befund\u0000']), 'notes[0]', /contains a character that cannot be stored/],
    ['a city on two lines', (f) => (f.patient.city = 'Berlin\nMitte'), 'patient.city', /must be on one line/],
    [
      'a field the form does not know',
      (f) => ((f as Record<string, unknown>)['hospitalCaseNumber'] = '4711'),
      'the form',
      /has fields the form does not know: hospitalCaseNumber/,
    ],
    // A rest parameter: jest would take a fifth named one for the `done` callback of the rows of four.
  ])('refuses %s, naming the field', (_, change, path, message, ...base) => {
    const issues = refusals(change, base[0]);
    expect(issues).toContainEqual({ path, message: expect.stringMatching(message) });
    const issue = issues.find((found) => found.path === path);
    expect(issue?.message.startsWith(`${path} `)).toBe(true);
  });

  it('refuses a birth date in the future by the clock when no time is given', () => {
    expect(refusals((f) => (f.patient.birthDate = '2999-01-01'), proposalForm, RequestForm)).toContainEqual({
      path: 'patient.birthDate',
      message: 'patient.birthDate must not be in the future',
    });
  });

  it('counts "today" in Germany: at 23:30 UTC on 21 November it is already the 22nd there', () => {
    const lateAtNight = requestFormSchema({ now: () => new Date('2026-11-21T23:30:00Z') });
    expect(refusals((f) => (f.patient.birthDate = '2026-11-22'), proposalForm, lateAtNight)).toEqual([]);
    expect(refusals((f) => (f.patient.birthDate = '2026-11-23'), proposalForm, lateAtNight)).toHaveLength(1);
  });

  it.each<[string, unknown]>([
    ['nothing', undefined],
    ['an empty object', {}],
    ['a list', [proposalForm]],
    ['no patient', { ...proposalForm, patient: undefined }],
    ['performers that are no list', { ...proposalForm, performers: 'IK 510000001' }],
    ['a stay of null', { ...proposalForm, stay: null }],
    ['diagnoses of null', { ...proposalForm, diagnoses: [null] }],
  ])('reports %s without throwing', (_, input) => {
    const result = schema.safeParse(input);
    expect(result.success).toBe(false);
    for (const issue of result.error?.issues ?? []) expect(issue.message.startsWith(fieldPath(issue.path))).toBe(true);
  });

  it('says that a missing field is required', () => {
    expect(refusals((f) => delete (f.patient as Partial<RequestForm['patient']>).gender)).toEqual([
      { path: 'patient.gender', message: 'patient.gender is required' },
    ]);
  });

  it.each(['A00', 'S72', 'S72.0', 'S72.01', 'E11.40†', 'E11.40+', 'G63.2*', 'U07.1!', 'Z99.88'])('takes the ICD-10-GM code %s', (code) => {
    expect(code).toMatch(ICD10GM_CODE);
  });

  it.each(['s72.01', 'S7201', 'S72.', 'S72.011', 'S72.-', 'S72.01 G', 'S72.01 R', 'S72.01††', '72.01', 'SS2.01', ' S72.01', 'S72.01!*'])(
    'refuses the ICD-10-GM code %j',
    (code) => {
      expect(code).not.toMatch(ICD10GM_CODE);
    },
  );
});
