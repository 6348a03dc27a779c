import { admissionRequestBundle } from '@bedrequest/fhir-model/testing';
import { Formats } from './format';
import { changesBetween, requestViewOf, type RequestView } from './request-view';
import { de } from './texts.de';

const A = '510000001';
const context = { clinicIk: A, profileBase: 'https://bedrequest.example.org', texts: de, formats: new Formats(de), today: new Date('2026-11-22T12:00:00Z') };
const identifier = 'https://referrer.example/fhir/ServiceRequest/view';
const fieldsOf = (view: RequestView) => Object.fromEntries(view.sections.flatMap((section) => section.fields).map((field) => [field.key, field.value]));

describe('a request version as a person reads it', () => {
  it('shows a masked patient without name or address lines, and the request in German', () => {
    const view = requestViewOf(
      admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A], performerDeepLinks: { [A]: 'https://referrer.example/view/1' } }),
      context,
    );
    expect(view.patient).toEqual({ masked: true, gender: 'female', age: 70 });
    expect(view.stage).toBe('proposal');
    expect(fieldsOf(view)).toMatchObject({
      'patient.name': de.task.fields.masked,
      'patient.gender': 'weiblich',
      'patient.birthDate': '01.01.1956',
      'patient.age': '70 Jahre',
      'patient.address': ['10115 Berlin'],
      'request.serviceType': 'Stationäre Rehabilitation',
      'request.specialty': 'Orthopädie',
      'request.department': '2300 – Fachabteilung 2300',
      'request.admission': '01.12.2026',
      'request.requester': 'Akutklinik Mitte (IK 260000001)',
      'request.deepLink': 'https://referrer.example/view/1',
      'diagnoses.0': 'S72.01 Schenkelhalsfraktur: Intrakapsulär (18.11.2026)',
      'measurements.weight': '72,5 kg',
      'measurements.height': '168 cm',
      'coverage.type': 'gesetzlich (GKV)',
      'coverage.payor': ['AOK Nordost (IK 109519005)'],
      'stay.start': '15.11.2026',
      'stay.status': 'noch im Krankenhaus',
      notes: ['Einzelzimmer erwünscht'],
    });
    expect(JSON.stringify(view)).not.toContain('Musterfrau');
  });

  it('shows the complete patient of a selection', () => {
    const view = requestViewOf(
      admissionRequestBundle({ requestIdentifier: identifier, intent: 'order', orderDetail: 'selected-provider', performerIks: [A] }),
      context,
    );
    expect(view.patient).toMatchObject({ masked: false, name: 'Erika Musterfrau' });
    expect(view.stage).toBe('order');
    expect(fieldsOf(view)['patient.telecom']).toEqual(['Telefon: +49 30 1234567']);
  });

  it('names what a supplement changed, added and dropped', () => {
    const before = requestViewOf(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A], notes: ['Einzelzimmer erwünscht'] }), context);
    const after = requestViewOf(
      admissionRequestBundle({
        requestIdentifier: identifier,
        performerIks: [A],
        notes: ['Einzelzimmer erwünscht', 'Befund anbei'],
        occurrenceDate: '2026-12-08',
      }),
      context,
    );
    expect(changesBetween(before, after)).toEqual([
      { key: 'request.admission', label: 'Gewünschtes Aufnahmedatum', before: '01.12.2026', after: '08.12.2026' },
      { key: 'notes', label: 'Hinweise', before: ['Einzelzimmer erwünscht'], after: ['Einzelzimmer erwünscht', 'Befund anbei'] },
    ]);
    const withoutNotes = requestViewOf(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A], notes: [] }), context);
    expect(changesBetween(before, withoutNotes)).toEqual([{ key: 'notes', label: 'Hinweise', before: ['Einzelzimmer erwünscht'] }]);
    expect(changesBetween(before, before)).toEqual([]);
  });

  it('reads what it can of a bundle that is not one', () => {
    expect(
      requestViewOf({ resourceType: 'Bundle', entry: 'nonsense' }, context).sections.every(
        (section) => section.name === 'request' || section.fields.length === 0,
      ),
    ).toBe(true);
  });
});
