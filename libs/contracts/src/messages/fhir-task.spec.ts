import { FhirTask } from './fhir-task';

/** A Task as intake writes it, without notes (docs/decisions.md, "Tasks"). */
const task = {
  resourceType: 'Task',
  id: '3f2504e0-4f89-41d3-9a0c-0305e82c3301',
  meta: { lastUpdated: '2026-03-02T09:15:00.000Z' },
  status: 'on-hold',
  intent: 'order',
  basedOn: [{ identifier: { system: 'urn:ietf:rfc:3986', value: 'urn:uuid:9b2d7c1e-5f4a-4e3b-8c6d-1a2b3c4d5e6f' } }],
  owner: { identifier: { system: 'http://fhir.de/sid/arge-ik/iknr', value: '510000001' } },
  requester: { identifier: { system: 'http://fhir.de/sid/arge-ik/iknr', value: '260000001' } },
  authoredOn: '2026-03-02T09:00:00.000Z',
  lastModified: '2026-03-02T09:15:00.000Z',
};
const time = '2026-03-02T09:15:00.000Z';

const person = {
  type: 'Practitioner',
  identifier: { system: 'https://bedrequest.example.org/fhir/sid/user', value: '7c9e6679-7425-40de-944b-e07fc1f90ae7' },
  display: 'Jana Schulz',
};
const clinic = { type: 'Organization', identifier: { system: 'http://fhir.de/sid/arge-ik/iknr', value: '510000001' } };

describe('FhirTask', () => {
  it("reads the notes of the clinic's own Task with their authors, a person or the clinic, as intake wrote them", () => {
    const written = {
      ...task,
      note: [
        { text: 'Bitte Befund nachreichen', time, authorReference: person },
        { text: 'automatisch', time, authorReference: clinic },
      ],
    };
    expect(JSON.stringify(FhirTask.parse(written))).toBe(JSON.stringify(written));
  });

  it('reads the overdue extension and the deadline in the order intake writes them, giving back the same JSON text', () => {
    const { resourceType, id, meta, ...rest } = task;
    const written = {
      resourceType,
      id,
      meta,
      extension: [{ url: 'https://bedrequest.example.org/fhir/StructureDefinition/answer-overdue', valueDateTime: time }],
      ...rest,
      note: [{ text: 'Bitte Befund nachreichen', time }],
      restriction: { period: { end: '2026-03-04T15:00:00.000Z' } },
    };
    expect(JSON.stringify(FhirTask.parse(written))).toBe(JSON.stringify(written));
    expect(FhirTask.safeParse({ ...written, restriction: { period: { end: '2026-03-04' } } }).success).toBe(false);
  });

  it("reads the referrer's notes, of text and time alone", () => {
    const written = { ...task, note: [{ text: 'Bitte Befund nachreichen', time }] };
    expect(FhirTask.parse(written)).toEqual(written);
  });

  it.each([
    ['a Device', { ...clinic, type: 'Device' }],
    ['no type', { identifier: person.identifier, display: person.display }],
    ['no identifier', { type: 'Practitioner', display: 'Jana Schulz' }],
    ['an identifier without its value', { type: 'Practitioner', identifier: { system: person.identifier.system } }],
    ['a display that is not a string', { ...person, display: 42 }],
  ])("refuses an author naming %s: only the clinic's person or the clinic wrote a note", (_what, authorReference) => {
    const parsed = FhirTask.safeParse({ ...task, note: [{ text: 'Bitte Befund nachreichen', time, authorReference }] });
    expect(parsed.error?.issues[0]?.path.slice(0, 3)).toEqual(['note', 0, 'authorReference']);
  });
});
