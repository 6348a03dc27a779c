import type { Task } from '@medplum/fhirtypes';
import { isJsonFormat } from '../search';
import { isTaskElement, SUBSETTED, subsetOf } from './result-parameters';

const task: Task = {
  resourceType: 'Task',
  id: 'task-1',
  meta: { lastUpdated: '2026-11-22T10:00:00.000Z' },
  status: 'requested',
  intent: 'order',
  basedOn: [{ identifier: { system: 'urn:ietf:rfc:3986', value: 'https://hospital.example/fhir/ServiceRequest/1' } }],
  owner: { identifier: { system: 'http://fhir.de/sid/arge-ik/iknr', value: '510000001' } },
  authoredOn: '2026-11-22T09:00:00.000Z',
  lastModified: '2026-11-22T10:00:00.000Z',
  note: [{ text: 'Bitte Befund nachreichen', time: '2026-11-22T10:00:00.000Z' }],
};

describe('_elements (search.html#elements)', () => {
  it('keeps the named elements and the mandatory ones, in their order, and tags the Task SUBSETTED', () => {
    const subset = subsetOf(task, ['note', 'owner']);

    expect(subset).toEqual({
      resourceType: 'Task',
      id: 'task-1',
      meta: {
        lastUpdated: '2026-11-22T10:00:00.000Z',
        tag: [{ system: 'http://terminology.hl7.org/CodeSystem/v3-ObservationValue', code: 'SUBSETTED', display: 'subsetted' }],
      },
      status: 'requested',
      intent: 'order',
      owner: task.owner,
      note: task.note,
    });
    expect(Object.keys(subset)).toEqual(['resourceType', 'id', 'meta', 'status', 'intent', 'owner', 'note']);
  });

  it('keeps tags the Task already has and leaves the Task itself alone', () => {
    const tagged: Task = { ...task, meta: { ...task.meta, tag: [{ system: 'urn:example', code: 'x' }] } };

    expect(subsetOf(tagged, ['status']).meta!.tag).toEqual([{ system: 'urn:example', code: 'x' }, SUBSETTED]);
    expect(tagged.meta!.tag).toHaveLength(1);
  });

  it.each(['status', 'businessStatus', 'note', 'priority', 'input', 'resourceType'])('knows the Task element %s', (name) => {
    expect(isTaskElement(name)).toBe(true);
  });

  it.each(['Task.status', 'notes', 'favouriteColour', '_status', 'toString', 'constructor', '__proto__', ''])('knows no Task element %j', (name) => {
    expect(isTaskElement(name)).toBe(false);
  });
});

describe('_format (http.html#mime-type)', () => {
  it.each(['json', 'application/json', 'application/fhir+json', 'application/fhir json', 'JSON'])('means JSON for %j', (value) => {
    expect(isJsonFormat(value)).toBe(true);
  });

  it.each(['xml', 'text/xml', 'application/fhir+xml', 'ttl', 'application/json; charset=utf-8', ' json', 'jsonx'])('is no JSON for %j', (value) => {
    expect(isJsonFormat(value)).toBe(false);
  });
});
