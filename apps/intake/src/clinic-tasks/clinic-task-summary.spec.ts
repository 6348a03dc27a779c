import { fhirSystems } from '@bedrequest/fhir-model';
import { listStateOf, summaryOf, type SummaryRow } from './clinic-task-summary';

const row: SummaryRow = {
  id: '7b1f8b52-0c3e-4d53-9c2c-0a1b2c3d4e5f',
  status: 'requested',
  business_status: null,
  authored_on: new Date('2026-11-21T10:00:00Z'),
  last_modified: new Date('2026-11-21T10:00:00Z'),
  sent_version: 1,
  clinic_ik: '510000001',
  referrer_ik: '260000001',
  request_identifier: 'https://referrer.example/fhir/ServiceRequest/1',
  referrer_party_id: 'referrer-1',
  request_status: 'active',
  intent: 'proposal',
  order_detail: null,
  service_type: 'full-inpatient-rehabilitation',
  occurrence_date: '2026-12-01',
  performer_type: [{ system: 'http://fhir.de/CodeSystem/dkgev/Fachabteilungsschluessel', code: '2800' }],
  requester_name: 'Akutklinik Mitte',
  gender: 'female',
  birth_date: '1956-03-15',
  masked: true,
  diagnosis_code: 'S72.01',
  diagnosis_display: null,
  erased_at: null,
  answered_automatically: false,
};

describe('a Task list summary', () => {
  it('resolves the department like routing (a key alone names no specialty when two share it) and computes the age', () => {
    expect(summaryOf(row, fhirSystems(), new Date('2026-11-21T12:00:00Z'))).toEqual({
      id: row.id,
      status: 'requested',
      authoredOn: '2026-11-21T10:00:00.000Z',
      lastModified: '2026-11-21T10:00:00.000Z',
      version: 1,
      request: {
        status: 'active',
        intent: 'proposal',
        serviceType: 'full-inpatient-rehabilitation',
        occurrenceDate: '2026-12-01',
        departmentCode: '2800',
        requesterIk: '260000001',
        requesterName: 'Akutklinik Mitte',
      },
      patient: { dataLevel: 'masked', gender: 'female', age: 70 },
      mainDiagnosis: { code: 'S72.01' },
    });
  });

  it('shows an erased request as its tombstone: states and the time of the erasure, nothing about the patient', () => {
    const erased = {
      ...row,
      order_detail: null,
      service_type: null,
      occurrence_date: null,
      performer_type: null,
      requester_name: null,
      gender: null,
      birth_date: null,
      masked: false,
      diagnosis_code: null,
      erased_at: new Date('2026-11-22T08:00:00Z'),
    };
    expect(summaryOf(erased, fhirSystems(), new Date('2026-11-22T12:00:00Z'))).toEqual({
      id: row.id,
      status: 'requested',
      authoredOn: '2026-11-21T10:00:00.000Z',
      lastModified: '2026-11-21T10:00:00.000Z',
      version: 1,
      request: { status: 'active', intent: 'proposal', requesterIk: '260000001' },
      erasedAt: '2026-11-22T08:00:00.000Z',
      patient: { dataLevel: 'erased' },
    });
  });

  it('puts every Task status in exactly one list state', () => {
    expect(['requested', 'accepted', 'rejected', 'on-hold', 'in-progress', 'cancelled'].map(listStateOf)).toEqual([
      'new',
      'answered',
      'answered',
      'answered',
      'selected',
      'cancelled',
    ]);
  });
});
