import { GroupCommit } from './group-commit';

describe('GroupCommit', () => {
  it('commits what arrives while a commit runs together, in the next turn', async () => {
    const turns: number[][] = [];
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    const sut = new GroupCommit<number>(async (items) => {
      turns.push([...items]);
      if (turns.length === 1) await first;
    });

    const done = [sut.add([1]), sut.add([2, 3]), sut.add([4])];
    release();
    await Promise.all(done);

    expect(turns).toEqual([[1], [2, 3, 4]]);
  });

  it('resolves a record only once its turn is committed', async () => {
    let committed = false;
    let started!: () => void;
    const commitStarted = new Promise<void>((resolve) => (started = resolve));
    let release!: () => void;
    const commitEnds = new Promise<void>((resolve) => (release = resolve));
    const sut = new GroupCommit<number>(async () => {
      started();
      await commitEnds;
      committed = true;
    });

    // What the record's promise sees when it resolves: the commit must have ended by then.
    const seenOnResolve = sut.add([1]).then(() => committed);
    await commitStarted;
    // A turn of the event loop with the commit under way: a record resolved early would be by now.
    await new Promise((resolve) => setImmediate(resolve));
    release();

    expect(await seenOnResolve).toBe(true);
  });

  it('fails every record of a failed turn, and tries the next turn afresh', async () => {
    let calls = 0;
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    const sut = new GroupCommit<number>(async (items) => {
      calls += 1;
      if (calls === 1) {
        await first;
        return;
      }
      if (items.includes(2)) throw new Error('database unavailable');
    });

    const one = sut.add([1]);
    const two = sut.add([2]);
    const three = sut.add([3]);
    release();

    await expect(one).resolves.toBeUndefined();
    await expect(two).rejects.toThrow('database unavailable');
    await expect(three).rejects.toThrow('database unavailable');
    await expect(sut.add([4])).resolves.toBeUndefined();
  });

  it('takes at most maxItems items a turn (and a larger record alone)', async () => {
    const turns: number[] = [];
    let release!: () => void;
    const first = new Promise<void>((resolve) => (release = resolve));
    const sut = new GroupCommit<number>(async (items) => {
      turns.push(items.length);
      if (turns.length === 1) await first;
    }, 3);

    const done = [sut.add([0]), sut.add([1, 2]), sut.add([3, 4]), sut.add([5, 6, 7, 8]), sut.add([9])];
    release();
    await Promise.all(done);

    expect(turns).toEqual([1, 2, 2, 4, 1]);
  });

  it('commits nothing for no items', async () => {
    const commit = jest.fn(async () => undefined);
    await new GroupCommit<number>(commit).add([]);
    expect(commit).not.toHaveBeenCalled();
  });
});
