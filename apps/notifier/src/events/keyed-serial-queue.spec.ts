import { KeyedSerialQueue } from './keyed-serial-queue';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('KeyedSerialQueue', () => {
  it('runs tasks of one key in submission order, even when an earlier one is slower', async () => {
    const queue = new KeyedSerialQueue();
    const finished: string[] = [];
    await Promise.all([
      queue.run('a', async () => (await tick(30), finished.push('a1'))),
      queue.run('a', async () => (await tick(1), finished.push('a2'))),
      queue.run('a', async () => finished.push('a3')),
    ]);
    expect(finished).toEqual(['a1', 'a2', 'a3']);
  });

  it('runs tasks of different keys concurrently', async () => {
    const queue = new KeyedSerialQueue();
    const finished: string[] = [];
    await Promise.all([queue.run('a', async () => (await tick(30), finished.push('a'))), queue.run('b', async () => finished.push('b'))]);
    expect(finished).toEqual(['b', 'a']);
  });

  it('goes on after a failed task and passes its error to its caller', async () => {
    const queue = new KeyedSerialQueue();
    const failing = queue.run('a', async () => {
      throw new Error('database down');
    });
    const next = queue.run('a', async () => 'next');
    await expect(failing).rejects.toThrow('database down');
    await expect(next).resolves.toBe('next');
  });
});
