import type { RequestForm } from '../schema';

/** Request forms as the page would send them, for the specs of the request form. */

export const NOW = new Date('2026-11-21T12:00:00Z');

export const proposalForm: RequestForm = {
  requestIdentifier: 'https://referrer.example/fhir/ServiceRequest/7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e01',
  transmissionNumber: 'T-0001',
  stage: 'proposal',
  requester: { ik: '260000001', name: 'Akutklinik Mitte, Sozialdienst' },
  performers: [{ ik: '510000001', name: 'Rehaklinik Am See', deepLink: 'https://referrer.example/requests/42' }, { ik: '510000002' }],
  patient: { gender: 'female', birthDate: '1956-03-14', postalCode: '10115', city: 'Berlin' },
  desiredAdmissionDate: '2026-12-01',
  serviceType: 'follow-up-rehabilitation',
  specialty: 'orthopedics',
  diagnoses: [
    { code: 'S72.01', text: 'Schenkelhalsfraktur: Intrakapsulär', recordedDate: '2026-11-18' },
    { code: 'E11.40†', text: 'Diabetes mellitus, Typ 2, mit neurologischen Komplikationen' },
    { code: 'G63.2*', text: 'Diabetische Polyneuropathie', recordedDate: '2026-11-19' },
  ],
  weightKg: 72.5,
  heightCm: 168,
  coverage: { payorIk: '109519005', payorName: 'AOK Nordost', kind: 'GKV' },
  stay: { admissionDate: '2026-11-15', status: 'in-house', caseNumber: 'F-2026-004711' },
  notes: ['Einzelzimmer erwünscht', 'Mobil am Rollator,\nTreppe mit Hilfe'],
};

export const selectionForm: RequestForm = {
  ...proposalForm,
  transmissionNumber: 'T-0002',
  stage: 'selection',
  performers: [{ ik: '510000001', name: 'Rehaklinik Am See', deepLink: 'https://referrer.example/requests/42' }],
  patient: {
    ...proposalForm.patient,
    familyName: 'Musterfrau',
    givenNames: ['Erika', 'Maria'],
    streetLine: 'Invalidenstraße 117',
    phone: '+49 30 1234567',
  },
  stay: { admissionDate: '2026-11-15', status: 'discharged', dischargeDate: '2026-11-20' },
};
