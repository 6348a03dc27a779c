import type { Bundle } from '@medplum/fhirtypes';
import { type AdmissionRequestFixtureOptions, admissionRequestBundle, setAt } from './testing';
import { INCOMPLETE_PATIENT_AT_SELECTION, validateAdmissionRequestBundle } from './index';
import type { Issue, IssueCode } from './outcome';
import { DEFAULT_PROFILE_BASE, fhirSystems } from './systems';

/**
 * The rules between status, intent, orderDetail, performer and the patient's data level (spec,
 * "States and transitions"; docs/decisions.md, "Requests").
 */

const systems = fhirSystems(DEFAULT_PROFILE_BASE);
const TWO_CLINICS = ['510000001', '510000002'];
const orderDetail = (...codes: string[]) => codes.map((code) => ({ coding: [{ system: systems.orderDetailSystem, code }] }));

function issuesOf(bundle: Bundle): Issue[] {
  const result = validateAdmissionRequestBundle(bundle, { profileBase: DEFAULT_PROFILE_BASE });
  return result.ok ? [] : result.issues;
}

describe('validateAdmissionRequestBundle: request stage', () => {
  it.each<[string, AdmissionRequestFixtureOptions, ((bundle: Bundle) => void) | undefined, IssueCode, string]>([
    [
      'an orderDetail needs intent order',
      { intent: 'proposal', orderDetail: 'selected-provider' },
      undefined,
      'invalid',
      'Bundle.entry[0].resource.orderDetail',
    ],
    [
      'intent order needs an orderDetail',
      { intent: 'order' },
      (b) => setAt(b, 'entry[0].resource.orderDetail', undefined),
      'required',
      'Bundle.entry[0].resource.orderDetail',
    ],
    [
      'intent order takes one orderDetail code only',
      { intent: 'order' },
      (b) => setAt(b, 'entry[0].resource.orderDetail', orderDetail('selected-provider', 'selected-provider-cancelled')),
      'invalid',
      'Bundle.entry[0].resource.orderDetail',
    ],
    [
      'a selection names exactly one performer',
      { orderDetail: 'selected-provider', performerIks: TWO_CLINICS, patient: 'complete' },
      undefined,
      'invalid',
      'Bundle.entry[0].resource.performer',
    ],
    [
      'a withdrawal names exactly one performer',
      { orderDetail: 'selected-provider-cancelled', performerIks: TWO_CLINICS },
      undefined,
      'invalid',
      'Bundle.entry[0].resource.performer',
    ],
  ])('%s', (_, options, change, code, expression) => {
    const bundle = admissionRequestBundle(options);
    change?.(bundle);
    expect(issuesOf(bundle)).toEqual([expect.objectContaining({ code, expression })]);
  });

  it('a selection with a masked patient is reported as incomplete patient data (400, not 409)', () => {
    const issues = issuesOf(admissionRequestBundle({ orderDetail: 'selected-provider', patient: 'masked' }));
    expect(issues).toEqual([
      {
        severity: 'error',
        code: 'required',
        diagnostics: expect.stringMatching(new RegExp(`^${INCOMPLETE_PATIENT_AT_SELECTION}`)),
        expression: 'Bundle.entry[1].resource.name[0].family',
      },
    ]);
  });

  it('a selection with a name that is neither complete nor masked is reported once, on the family name', () => {
    const bundle = admissionRequestBundle({ orderDetail: 'selected-provider' });
    setAt(bundle, 'entry[1].resource.name[0]', { given: ['Erika'] });
    expect(issuesOf(bundle)).toEqual([expect.objectContaining({ code: 'required', expression: 'Bundle.entry[1].resource.name[0].family' })]);
  });

  it.each<[string, AdmissionRequestFixtureOptions]>([
    ['a withdrawal with a masked patient', { orderDetail: 'selected-provider-cancelled', patient: 'masked' }],
    ['a cancellation of a proposal', { status: 'revoked' }],
    ['a cancellation with intent order and no orderDetail', { status: 'revoked', intent: 'order', orderDetail: undefined }],
    ['a cancellation of a proposal that carries an orderDetail', { status: 'revoked', intent: 'proposal', orderDetail: 'selected-provider' }],
    [
      'a cancellation of a selection with a masked patient and two performers',
      { status: 'revoked', orderDetail: 'selected-provider', patient: 'masked', performerIks: TWO_CLINICS },
    ],
  ])('accepts %s', (_, options) => {
    const bundle = admissionRequestBundle(options);
    if (options.intent === 'order' && !options.orderDetail) setAt(bundle, 'entry[0].resource.orderDetail', undefined);
    expect(issuesOf(bundle)).toEqual([]);
  });

  it('still rejects the structural problems of a cancellation', () => {
    const bundle = admissionRequestBundle({ status: 'revoked' });
    setAt(bundle, 'entry[1].resource.gender', 'w');
    expect(issuesOf(bundle)).toEqual([expect.objectContaining({ code: 'code-invalid', expression: 'Bundle.entry[1].resource.gender' })]);
  });

  it('reports the stage rules together with the field rules', () => {
    const bundle = admissionRequestBundle({ orderDetail: 'selected-provider', patient: 'masked', performerIks: TWO_CLINICS });
    setAt(bundle, 'entry[0].resource.occurrenceDateTime', 'soon');
    expect(issuesOf(bundle).map((issue) => issue.expression)).toEqual([
      'Bundle.entry[0].resource.occurrenceDateTime',
      'Bundle.entry[0].resource.performer',
      'Bundle.entry[1].resource.name[0].family',
    ]);
  });
});
