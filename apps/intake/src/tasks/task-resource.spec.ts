import { fhirSystems } from '@bedrequest/fhir-model';
import { expectValidFhir } from '@bedrequest/testing';
import { toFhirTask, type ClinicTaskView } from './task-resource';

const systems = fhirSystems('https://bedrequest.example.org');
const task: ClinicTaskView = {
  id: '7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e01',
  clinicIk: '510000001',
  status: 'on-hold',
  businessStatus: 'query',
  notes: [
    { text: 'Vor dem Update gespeichert', time: '2026-11-22T09:30:00.000Z' },
    { text: 'Bitte Befund nachreichen', time: '2026-11-22T10:00:00.000Z', author: { source: 'clinic', user: 'user-jana', name: 'Jana Schulz' } },
    { text: 'Ohne Anzeigenamen', time: '2026-11-22T10:05:00.000Z', author: { source: 'clinic', user: 'user-tom' } },
    { text: 'Abteilung nicht angeboten', time: '2026-11-22T10:10:00.000Z', author: { source: 'automatic' } },
  ],
  authoredOn: new Date('2026-11-22T09:00:00Z'),
  lastModified: new Date('2026-11-22T10:10:00Z'),
  requestIdentifier: 'https://hospital.example/fhir/ServiceRequest/1',
  referrerIk: '260000001',
};

describe('toFhirTask', () => {
  it("names each note's author for the clinic: a person by user id and display name, an automatic answer as the clinic itself", () => {
    const resource = toFhirTask(task, systems, { authors: true });

    expect(resource.note).toEqual([
      { text: 'Vor dem Update gespeichert', time: '2026-11-22T09:30:00.000Z' },
      {
        text: 'Bitte Befund nachreichen',
        time: '2026-11-22T10:00:00.000Z',
        authorReference: {
          type: 'Practitioner',
          identifier: { system: 'https://bedrequest.example.org/fhir/sid/user', value: 'user-jana' },
          display: 'Jana Schulz',
        },
      },
      {
        text: 'Ohne Anzeigenamen',
        time: '2026-11-22T10:05:00.000Z',
        authorReference: { type: 'Practitioner', identifier: { system: 'https://bedrequest.example.org/fhir/sid/user', value: 'user-tom' } },
      },
      {
        text: 'Abteilung nicht angeboten',
        time: '2026-11-22T10:10:00.000Z',
        authorReference: { type: 'Organization', identifier: { system: 'http://fhir.de/sid/arge-ik/iknr', value: '510000001' } },
      },
    ]);
    expectValidFhir(resource, "the clinic's Task");
  });

  it("gives the referrer's Task notes of text and time alone, as docs/decisions.md writes them", () => {
    const resource = toFhirTask(task, systems, { authors: false });

    expect(resource.note).toEqual(task.notes.map((note) => ({ text: note.text, time: note.time })));
    expect(JSON.stringify(resource)).not.toMatch(/Jana|user-jana|authorReference/);
  });
});
