import { fhirSystems } from '@bedrequest/fhir-model';
import type { Caller } from '../access';
import type { AuditRecord } from '../audit';
import type { SearchedTask, StoredTask, TaskPage, TaskReadRepository } from './task-read.repository';
import { TaskReadService } from './task-read.service';

const LINKS = { base: 'https://api.example', path: '/api/v2/fhir/Task' };
const viewer: Caller = { viewer: { role: 'referrer', partyId: 'party-1' }, user: 'party-1', address: '203.0.113.7' };
const clinic: Caller = { viewer: { role: 'clinic', ikNumbers: ['510000001'] }, user: 'clinic-user', address: '198.51.100.2' };
const view: SearchedTask = {
  id: '7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e01',
  clinicIk: '510000001',
  status: 'requested',
  businessStatus: null,
  notes: [],
  authoredOn: new Date('2026-11-22T09:00:00Z'),
  lastModified: new Date('2026-11-22T10:00:00Z'),
  requestIdentifier: 'https://hospital.example/fhir/ServiceRequest/1',
  referrerIk: '260000001',
  referrerPartyId: 'party-1',
};
const stored: StoredTask = { ...view, requestId: 'request-1', sentVersion: 1, revision: 0, cancelledAt: null, erasedAt: null };

describe('TaskReadService', () => {
  const findTask = jest.fn(async (): Promise<StoredTask | undefined> => undefined);
  const search = jest.fn(async (): Promise<TaskPage> => ({ tasks: [view], more: true, total: 3 }));
  const findBundle = jest.fn(async (): Promise<unknown> => ({ resourceType: 'Bundle' }));
  const documentRows = jest.fn(async (): Promise<{ id: string; bytes: number }[]> => []);
  const documentsOf = jest.fn(async (): Promise<{ id: string; bundle: unknown }[]> => []);
  const record = jest.fn(async (_records: readonly AuditRecord[]): Promise<void> => undefined);
  const firstPage = { _count: 20, _offset: 0 };
  const sut = new TaskReadService(
    { findTask, search, findBundle, documentRows, documentsOf } as unknown as TaskReadRepository,
    fhirSystems('https://bedrequest.example.org'),
    { record },
  );

  beforeEach(() => {
    findTask.mockClear();
    search.mockClear();
    record.mockClear();
  });

  describe('the audit trail', () => {
    it('records a Task read with who read it, for which IK and from where, before answering', async () => {
      findTask.mockResolvedValueOnce(stored);

      await sut.read(view.id, {}, viewer);

      expect(record).toHaveBeenCalledWith([
        {
          interaction: 'read',
          agent: { kind: 'referrer', user: 'party-1', ik: '260000001', address: '203.0.113.7' },
          request: { identifier: view.requestIdentifier, ownerPartyId: 'party-1' },
          resources: [{ type: 'Task', id: view.id }],
          source: 'intake',
        },
      ]);
    });

    it('answers no data when the read cannot be recorded', async () => {
      findTask.mockResolvedValueOnce(stored);
      record.mockRejectedValueOnce(new Error('audit trail unavailable'));

      await expect(sut.bundleForClinic(view.id, clinic)).rejects.toThrow('audit trail unavailable');
    });

    it("records a clinic's bundle read as a vread of the version it was sent, for the clinic's IK", async () => {
      findTask.mockResolvedValueOnce({ ...stored, sentVersion: 3 });

      await sut.bundleForClinic(view.id, clinic);

      expect(record.mock.calls[0]![0]).toEqual([
        expect.objectContaining({
          interaction: 'vread',
          agent: { kind: 'clinic', user: 'clinic-user', ik: '510000001', address: '198.51.100.2' },
          request: expect.objectContaining({ version: 3 }),
        }),
      ]);
    });

    it("answers an erased request's bundle and documents as erased, recording no read of them", async () => {
      const erasedAt = new Date('2026-11-22T11:00:00Z');
      findTask.mockResolvedValue({ ...stored, erasedAt });

      expect(await sut.bundleForClinic(view.id, clinic)).toEqual({ outcome: 'erased', erasedAt });
      expect(await sut.documentsForClinic(view.id, clinic, firstPage)).toEqual({ outcome: 'erased', erasedAt });
      expect(documentRows).not.toHaveBeenCalled();
      expect(record).not.toHaveBeenCalled();
      findTask.mockReset();
      findTask.mockResolvedValue(undefined);
    });

    it('answers erased, not "no such Task", when the request is erased between reading the Task and its bundle', async () => {
      const erasedAt = new Date('2026-11-22T11:00:00Z');
      findTask.mockResolvedValueOnce(stored).mockResolvedValueOnce({ ...stored, erasedAt });
      findBundle.mockResolvedValueOnce(undefined);

      expect(await sut.bundleForClinic(view.id, clinic)).toEqual({ outcome: 'erased', erasedAt });
      expect(record).not.toHaveBeenCalled();
    });

    it('records each DocumentBundle a clinic reads, and nothing when there is none', async () => {
      findTask.mockResolvedValue(stored);
      documentRows.mockResolvedValueOnce([]).mockResolvedValueOnce([
        { id: 'document-1', bytes: 100 },
        { id: 'document-2', bytes: 100 },
      ]);
      documentsOf.mockResolvedValueOnce([]).mockResolvedValueOnce([
        { id: 'document-1', bundle: {} },
        { id: 'document-2', bundle: {} },
      ]);

      await sut.documentsForClinic(view.id, clinic, firstPage);
      expect(record).not.toHaveBeenCalled();

      await sut.documentsForClinic(view.id, clinic, firstPage);
      expect(record.mock.calls[0]![0][0]!.resources).toEqual([
        { type: 'Task', id: view.id },
        { type: 'DocumentBundle', id: 'document-1' },
        { type: 'DocumentBundle', id: 'document-2' },
      ]);
      findTask.mockReset();
      findTask.mockResolvedValue(undefined);
    });

    it('records a search page as one entry per request it answered, with the query, and a count alone not at all', async () => {
      const other = { ...view, id: '7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e02', requestIdentifier: 'https://hospital.example/fhir/ServiceRequest/2' };
      search.mockResolvedValueOnce({ tasks: [view, other, { ...view, id: '7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e03' }], more: false, total: 3 });

      await sut.search({ status: 'requested' }, viewer, LINKS);

      expect(record.mock.calls[0]![0].map((entry) => [entry.interaction, entry.request.identifier, entry.resources?.length, entry.query])).toEqual([
        ['search-type', view.requestIdentifier, 2, 'status=requested'],
        ['search-type', other.requestIdentifier, 1, 'status=requested'],
      ]);

      search.mockResolvedValueOnce({ tasks: [], more: false, total: 3 });
      await sut.search({ _summary: 'count' }, viewer, LINKS);
      expect(record).toHaveBeenCalledTimes(1);
    });
  });

  describe('read', () => {
    it.each(['not-a-uuid', '------------------------------------', '7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e0', '7d0c1f4e2b8a4c119e5f0a6b3c2d1e01'])(
      'finds nothing for %j without asking the database (it is no uuid PostgreSQL accepts)',
      async (taskId) => {
        await expect(sut.read(taskId, {}, viewer)).resolves.toEqual({ ok: true, task: undefined });
        expect(findTask).not.toHaveBeenCalled();
      },
    );

    it.each(['7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e01', '7D0C1F4E-2B8A-4C11-9E5F-0A6B3C2D1E01', '00000000-0000-0000-0000-000000000000'])(
      'looks %s up',
      async (taskId) => {
        await sut.read(taskId, {}, viewer);
        expect(findTask).toHaveBeenCalledWith(taskId);
      },
    );

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

    it('stops a page before the ceiling of bytes, and the next link goes on from there', async () => {
      const noted = (id: string): SearchedTask => ({ ...view, id, notes: [{ text: 'x'.repeat(100_000), time: '2026-11-22T10:00:00Z' }] });
      search.mockResolvedValueOnce({ tasks: [noted('task-1'), noted('task-2'), noted('task-3')], more: false, total: 3 });
      const small = new TaskReadService(
        { search } as unknown as TaskReadRepository,
        fhirSystems('https://bedrequest.example.org'),
        { record },
        { maxPageBytes: 250_000 },
      );

      const result = await small.search({ _count: '3' }, viewer, LINKS);

      if (!result.ok) throw new Error(JSON.stringify(result.issues));
      expect(result.bundle.entry?.map((entry) => entry.resource?.id)).toEqual(['task-1', 'task-2']);
      expect(result.bundle.link).toContainEqual({ relation: 'next', url: `${LINKS.base}${LINKS.path}?_count=3&_offset=2` });
    });

    it('answers _summary=count with the total and no entries', async () => {
      search.mockResolvedValueOnce({ tasks: [], more: false, total: 3 });

      const bundle = await bundleOf({ _summary: 'count' });

      expect(bundle).toEqual({
        resourceType: 'Bundle',
        type: 'searchset',
        total: 3,
        link: [{ relation: 'self', url: `${LINKS.base}${LINKS.path}?_summary=count` }],
      });
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
