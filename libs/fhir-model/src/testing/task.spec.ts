import { AdmissionResponseV1, FhirTask } from '@bedrequest/contracts';
import { fhirTask } from './task';

describe('the Task fixture', () => {
  it.each([undefined, 'accepted', 'declined', 'query', 'more-data-required'] as const)(
    'is a Task as the contract takes it, unchanged by parsing (answer %s)',
    (businessStatus) => {
      const task = fhirTask({ ...(businessStatus ? { businessStatus } : {}), notes: ['Bitte Befund nachreichen'] });

      expect(JSON.stringify(FhirTask.parse(task))).toBe(JSON.stringify(task));
    },
  );

  it('carries the answer with the task status it leads to', () => {
    expect(fhirTask({ businessStatus: 'declined' })).toMatchObject({
      status: 'rejected',
      businessStatus: { coding: [{ code: 'declined', display: 'Declined' }] },
    });
    expect(fhirTask()).not.toHaveProperty('businessStatus');
  });

  it('can be sent as admission.response.v1', () => {
    const payload = {
      eventId: '0b8e6c58-0d2b-4c4e-9d0c-6a1f7f5e2a10',
      referrerPartyId: 'referrer-1',
      requestIdentifier: 'https://referrer.example/fhir/ServiceRequest/1',
      task: fhirTask(),
      source: 'clinic',
    };
    expect(AdmissionResponseV1.payload.safeParse(payload).success).toBe(true);
  });
});
