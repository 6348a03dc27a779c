import { Batcher } from './batcher';

const tick = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Batcher', () => {
  it('writes what arrives within the window as one batch, in the order it was added', async () => {
    const writes: number[][] = [];
    const batcher = new Batcher<number>(async (items) => void writes.push(items), { maxBatch: 10, windowMs: 20 });

    await Promise.all([batcher.add(1), tick(5).then(() => batcher.add(2)), tick(10).then(() => batcher.add(3))]);

    expect(writes).toEqual([[1, 2, 3]]);
  });

  it('writes at once when a batch is full, and never more than maxBatch items', async () => {
    const writes: number[][] = [];
    const batcher = new Batcher<number>(async (items) => void writes.push(items), { maxBatch: 3, windowMs: 10_000 });

    await Promise.all([1, 2, 3, 4, 5, 6].map((item) => batcher.add(item)));

    expect(writes).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
  });

  it('runs one write at a time; what arrives meanwhile is the next batch, written right after', async () => {
    const writes: number[][] = [];
    let running = 0;
    let mostAtOnce = 0;
    const batcher = new Batcher<number>(
      async (items) => {
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        await tick(30);
        writes.push(items);
        running -= 1;
      },
      { maxBatch: 100, windowMs: 1 },
    );

    const first = batcher.add(1);
    await tick(10);
    await Promise.all([first, batcher.add(2), batcher.add(3)]);

    expect(writes).toEqual([[1], [2, 3]]);
    expect(mostAtOnce).toBe(1);
  });

  it('rejects every item of a failed write with its error, and goes on with the next batch', async () => {
    let fail = true;
    const batcher = new Batcher<number>(
      async () => {
        if (fail) throw new Error('database down');
      },
      { maxBatch: 10, windowMs: 1 },
    );

    const failed = [batcher.add(1), batcher.add(2)];
    await expect(failed[0]).rejects.toThrow('database down');
    await expect(failed[1]).rejects.toThrow('database down');
    fail = false;
    await expect(batcher.add(3)).resolves.toBeUndefined();
  });
});
