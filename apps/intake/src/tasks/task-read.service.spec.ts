import type { FhirSystems } from '@bedrequest/fhir-model';
import type { TaskReadRepository } from './task-read.repository';
import { TaskReadService } from './task-read.service';

describe('TaskReadService.read', () => {
  const findTask = jest.fn(async () => undefined);
  const sut = new TaskReadService({ findTask } as unknown as TaskReadRepository, {} as FhirSystems);
  const viewer = { role: 'referrer', partyId: 'party-1' } as const;

  beforeEach(() => findTask.mockClear());

  it.each(['not-a-uuid', '------------------------------------', '7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e0', '7d0c1f4e2b8a4c119e5f0a6b3c2d1e01'])(
    'finds nothing for %j without asking the database (it is no uuid PostgreSQL accepts)',
    async (taskId) => {
      await expect(sut.read(taskId, viewer)).resolves.toBeUndefined();
      expect(findTask).not.toHaveBeenCalled();
    },
  );

  it.each(['7d0c1f4e-2b8a-4c11-9e5f-0a6b3c2d1e01', '7D0C1F4E-2B8A-4C11-9E5F-0A6B3C2D1E01', '00000000-0000-0000-0000-000000000000'])('looks %s up', async (taskId) => {
    await sut.read(taskId, viewer);
    expect(findTask).toHaveBeenCalledWith(taskId);
  });
});
