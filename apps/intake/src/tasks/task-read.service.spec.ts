import { fhirSystems } from '@bedrequest/fhir-model';
import type { StoredTask, TaskPage, TaskReadRepository } from './task-read.repository';
import type { ClinicTaskView } from './task-resource';
import { TaskReadService } from './task-read.service';

const LINKS = { base: 'https://api.example', path: '/api/v2/fhir/Task' };
const viewer = { role: 'referrer', partyId: 'party-1' } as const;
const view: ClinicTaskView = {
  id: '7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e01',
  clinicIk: '510000001',
  status: 'requested',
  businessStatus: null,
  notes: [],
  authoredOn: new Date('2026-11-22T09:00:00Z'),
  lastModified: new Date('2026-11-22T10:00:00Z'),
  requestIdentifier: 'https://hospital.example/fhir/ServiceRequest/1',
  referrerIk: '260000001',
};
const stored: StoredTask = { ...view, requestId: 'request-1', referrerPartyId: 'party-1', sentVersion: 1, cancelledAt: null };

describe('TaskReadService', () => {
  const findTask = jest.fn(async (): Promise<StoredTask | undefined> => undefined);
  const search = jest.fn(async (): Promise<TaskPage> => ({ tasks: [view], more: true, total: 3 }));
  const sut = new TaskReadService({ findTask, search } as unknown as TaskReadRepository, fhirSystems('https://bedrequest.example.org'));

  beforeEach(() => {
    findTask.mockClear();
    search.mockClear();
  });

  describe('read', () => {
    it.each(['not-a-uuid', '------------------------------------', '7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e0', '7d0c1f4e2b8a4c119e5f0a6b3c2d1e01'])(
      'finds nothing for %j without asking the database (it is no uuid PostgreSQL accepts)',
      async (taskId) => {
        await expect(sut.read(taskId, {}, viewer)).resolves.toEqual({ ok: true, task: undefined });
        expect(findTask).not.toHaveBeenCalled();
      },
    );

    it.each(['7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e01', '7D0C1F4E-2B8A-4C11-9E5F-0A6B3C2D1E01', '00000000-0000-0000-0000-000000000000'])('looks %s up', async (taskId) => {
      await sut.read(taskId, {}, viewer);
      expect(findTask).toHaveBeenCalledWith(taskId);
    });

    it('refuses an unsupported _format with 406 before looking the Task up', async () => {
      await expect(sut.read(view.id, { _format: 'xml' }, viewer)).resolves.toMatchObject({ ok: false, status: 406 });
      expect(findTask).not.toHaveBeenCalled();
    });

    it('answers the elements _elements names, and the mandatory ones', async () => {
      findTask.mockResolvedValueOnce(stored);

      const result = await sut.read(view.id, { _elements: 'owner', _format: 'application/fhir+json' }, viewer);

      expect(result.ok && Object.keys(result.task!)).toEqual(['resourceType', 'id', 'meta', 'status', 'intent', 'owner']);
    });
  });

  describe('search', () => {
    const bundleOf = async (query: Record<string, string>) => {
      const result = await sut.search(query, viewer, LINKS);
      if (!result.ok) throw new Error(JSON.stringify(result.issues));
      return result.bundle;
    };

    it('carries every result parameter into the self and next links', async () => {
      const bundle = await bundleOf({ status: 'requested', _count: '1', _elements: 'status', _format: 'json', _total: 'accurate', _offset: '1' });

      expect(bundle.link).toEqual([
        { relation: 'self', url: `${LINKS.base}${LINKS.path}?status=requested&_count=1&_elements=status&_format=json&_total=accurate&_offset=1` },
        { relation: 'next', url: `${LINKS.base}${LINKS.path}?status=requested&_count=1&_elements=status&_format=json&_total=accurate&_offset=2` },
      ]);
    });

    it('answers _summary=count with the total and no entries', async () => {
      search.mockResolvedValueOnce({ tasks: [], more: false, total: 3 });

      const bundle = await bundleOf({ _summary: 'count' });

      expect(bundle).toEqual({ resourceType: 'Bundle', type: 'searchset', total: 3, link: [{ relation: 'self', url: `${LINKS.base}${LINKS.path}?_summary=count` }] });
    });

    it('answers _total=none without a total', async () => {
      search.mockResolvedValueOnce({ tasks: [view], more: false });

      const bundle = await bundleOf({ _total: 'none' });

      expect(bundle).not.toHaveProperty('total');
      expect(bundle.entry).toHaveLength(1);
    });

    it('answers _elements with subsetted Tasks', async () => {
      const bundle = await bundleOf({ _elements: 'status' });

      expect(bundle.entry![0]!.resource).toEqual({
        resourceType: 'Task',
        id: view.id,
        meta: { lastUpdated: '2026-11-22T10:00:00.000Z', tag: [expect.objectContaining({ code: 'SUBSETTED' })] },
        status: 'requested',
        intent: 'order',
      });
    });

    it('refuses a bad search without asking the database', async () => {
      await expect(sut.search({ colour: 'blue' }, viewer, LINKS)).resolves.toMatchObject({ ok: false, status: 400 });
      expect(search).not.toHaveBeenCalled();
    });
  });
});
