import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { bundleSummaryOf } from './bundle-summary';

describe('bundleSummaryOf', () => {
  it("reads a selection's list fields: the ServiceRequest, the Patient, the requester's name and the first ICD-10-GM diagnosis", () => {
    const summary = bundleSummaryOf(admissionRequestBundle({ orderDetail: 'selected-provider', patient: 'complete', occurrenceDate: '2026-12-01' }));

    expect(summary).toMatchObject({
      request_status: 'active',
      intent: 'order',
      order_detail: 'selected-provider',
      occurrence_date: '2026-12-01',
      gender: 'female',
      birth_date: '1956-01-01',
      masked: false,
      diagnosis_code: 'S72.01',
      diagnosis_display: 'Schenkelhalsfraktur: Intrakapsulär',
    });
    expect(summary.requester_name).toEqual(expect.any(String));
    expect(summary.performer_type).toEqual(expect.arrayContaining([expect.objectContaining({ code: '2300' })]));
  });

  it('marks a proposal with a pseudonymised patient (name masked with MSK) as masked', () => {
    expect(bundleSummaryOf(admissionRequestBundle({ patient: 'masked' }))).toMatchObject({ intent: 'proposal', masked: true });
  });

  it('gives nulls, not an error, for a bundle without the resources', () => {
    expect(bundleSummaryOf({ resourceType: 'Bundle', entry: [] })).toEqual({
      request_status: null,
      intent: null,
      order_detail: null,
      service_type: null,
      occurrence_date: null,
      performer_type: null,
      requester_name: null,
      gender: null,
      birth_date: null,
      masked: false,
      diagnosis_code: null,
      diagnosis_display: null,
    });
  });
});
