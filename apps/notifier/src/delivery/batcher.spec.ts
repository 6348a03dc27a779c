import { Batcher } from './batcher';

/** Moves the fake clock on by `ms`, running the timers that fall due and the promise callbacks that follow. */
const elapse = (ms: number) => jest.advanceTimersByTimeAsync(ms);

/** A promise the test settles. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/** Which of `promises` have resolved so far, by index. */
function watchSettled(promises: Promise<unknown>[]) {
  const resolved: number[] = [];
  promises.forEach((promise, index) => void promise.then(() => resolved.push(index)));
  return resolved;
}

describe('Batcher', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('writes what arrives within the window as one batch, in the order it was added; what comes after it is the next batch', async () => {
    const writes: number[][] = [];
    const batcher = new Batcher<number>(async (items) => void writes.push(items), { maxBatch: 10, windowMs: 20 });

    const added = [batcher.add(1)];
    await elapse(5);
    added.push(batcher.add(2));
    await elapse(5);
    added.push(batcher.add(3));
    await elapse(9);
    expect(writes).toEqual([]);
    await elapse(1);
    expect(writes).toEqual([[1, 2, 3]]);
    await Promise.all(added);

    // The window opens again with the next item, and lasts windowMs from it.
    const later = batcher.add(4);
    await elapse(19);
    expect(writes).toEqual([[1, 2, 3]]);
    await elapse(1);
    await later;
    expect(writes).toEqual([[1, 2, 3], [4]]);
  });

  it('writes at once when a batch is full, and never more than maxBatch items', async () => {
    const writes: number[][] = [];
    const batcher = new Batcher<number>(async (items) => void writes.push(items), { maxBatch: 3, windowMs: 10_000 });

    const resolved = watchSettled([1, 2, 3, 4, 5, 6].map((item) => batcher.add(item)));
    // No time passes: full batches do not wait for the window.
    await elapse(0);
    expect(writes).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
    expect(resolved).toEqual([0, 1, 2, 3, 4, 5]);
  });

  it('runs one write at a time; what arrives meanwhile is the next batch, written right after', async () => {
    const writes: { items: number[]; done: ReturnType<typeof gate> }[] = [];
    let running = 0;
    let mostAtOnce = 0;
    const batcher = new Batcher<number>(
      async (items) => {
        running += 1;
        mostAtOnce = Math.max(mostAtOnce, running);
        const done = gate();
        writes.push({ items, done });
        await done.opened;
        running -= 1;
      },
      { maxBatch: 100, windowMs: 1 },
    );

    const resolved = watchSettled([batcher.add(1)]);
    await elapse(1);
    expect(writes.map((write) => write.items)).toEqual([[1]]);

    const meanwhile = watchSettled([batcher.add(2), batcher.add(3)]);
    // However long the first write takes, the next one waits for it.
    await elapse(60_000);
    expect(writes.map((write) => write.items)).toEqual([[1]]);
    expect({ resolved, meanwhile }).toEqual({ resolved: [], meanwhile: [] });

    writes[0]!.done.open();
    // Right after: no window of its own.
    await elapse(0);
    expect(writes.map((write) => write.items)).toEqual([[1], [2, 3]]);
    expect({ resolved, meanwhile }).toEqual({ resolved: [0], meanwhile: [] });
    writes[1]!.done.open();
    await elapse(0);
    expect({ resolved, meanwhile }).toEqual({ resolved: [0], meanwhile: [0, 1] });
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

    const failed = [batcher.add(1), batcher.add(2)].map((added) => added.catch((error: unknown) => error));
    await elapse(1);
    expect(await Promise.all(failed)).toEqual([new Error('database down'), new Error('database down')]);
    fail = false;
    const next = batcher.add(3);
    await elapse(1);
    await expect(next).resolves.toBeUndefined();
  });
});
