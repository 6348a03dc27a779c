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
      'request.department': 'Orthopädie (2300)',
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

  it("names the department by its specialty, the key alone by the specialties it maps to, an unknown key by the referrer's name", () => {
    const departmentOf = (options: Parameters<typeof admissionRequestBundle>[0]) =>
      fieldsOf(requestViewOf(admissionRequestBundle({ requestIdentifier: identifier, performerIks: [A], ...options }), context))['request.department'];
    expect(departmentOf({ specialty: 'cardiology' })).toBe('Kardiologie (0300)');
    expect(departmentOf({ specialty: null, departmentCode: '2800' })).toBe('Neurologie Phase D / Neurologie (2800)');
    expect(departmentOf({ specialty: null, departmentCode: '3700' })).toBe('Fachabteilung 3700');
  });

  it("takes the referrer's case number from the Encounter (the visit number first, never a URI) and mobility from the notes", () => {
    const bundle = admissionRequestBundle({
      requestIdentifier: identifier,
      performerIks: [A],
      notes: ['Einzelzimmer erwünscht', 'Mobil am Rollator, Treppensteigen mit Hilfe'],
    });
    const encounter = bundle.entry?.find((entry) => entry.resource?.resourceType === 'Encounter')?.resource as unknown as Record<string, unknown>;
    encounter.identifier = [
      { system: 'urn:ietf:rfc:3986', value: 'https://referrer.example/fhir/Encounter/1' },
      { system: 'https://referrer.example/sid/auftrag', value: 'A-77' },
      {
        type: { coding: [{ system: 'http://terminology.hl7.org/CodeSystem/v2-0203', code: 'VN' }] },
        system: 'https://referrer.example/sid/fall',
        value: 'F-2026-004711',
      },
    ];
    const view = requestViewOf(bundle, context);
    expect(fieldsOf(view)['request.caseNumber']).toBe('F-2026-004711');
    expect(view.mobility).toEqual(['Mobil am Rollator, Treppensteigen mit Hilfe']);
    encounter.identifier = [{ system: 'urn:ietf:rfc:3986', value: 'https://referrer.example/fhir/Encounter/1' }];
    expect(fieldsOf(requestViewOf(bundle, context))['request.caseNumber']).toBeUndefined();
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
