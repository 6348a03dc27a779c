import { nextRestartDelay, Supervisor, type RestartBackoff } from './supervisor';

type Exit = { code: number | null; signal: NodeJS.Signals | null };

/** A stack of one instance whose exits the test decides, and whose restarts succeed or fail as it says. */
function stackUnderTest() {
  let exit: (value: Exit) => void = () => undefined;
  const state = { restarts: 0, failNextRestart: false };
  const stack = {
    exited: () => new Promise<Exit>((resolve) => (exit = resolve)),
    restart: async () => {
      state.restarts += 1;
      if (state.failNextRestart) {
        state.failNextRestart = false;
        throw new Error('routing exited during start-up');
      }
      return undefined as never;
    },
  };
  return { stack, state, exit: (value: Exit) => exit(value) };
}

const BACKOFF: RestartBackoff = { initialMs: 20, maxMs: 50, resetAfterMs: 200 };
/**
 * Moves the fake clock (Date.now and the timers) on by `ms`, running the timers that fall due and
 * the promise callbacks that follow each; `elapse(0)` runs only what the last step set off.
 */
const elapse = (ms: number) => jest.advanceTimersByTimeAsync(ms);

describe('restart back-off', () => {
  it('waits 1 s first, doubles for each death soon after, at most 30 s, and starts from 1 s again after a minute up', () => {
    const delays: number[] = [];
    let previous: number | undefined;
    for (let death = 0; death < 7; death++) delays.push((previous = nextRestartDelay(previous, 5_000)));
    expect(delays).toEqual([1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000]);
    expect(nextRestartDelay(30_000, 60_000)).toBe(1_000);
  });
});

describe('Supervisor', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('starts a dead instance again after the back-off and says so, each time it dies', async () => {
    const { stack, state, exit } = stackUnderTest();
    const lines: string[] = [];
    const sut = new Supervisor(stack, (line) => lines.push(line), BACKOFF);
    sut.watch('routing');

    exit({ code: null, signal: 'SIGKILL' });
    await elapse(0);
    expect(lines).toEqual(['routing exited with signal SIGKILL; restarting in 0.02 s']);
    await elapse(19);
    expect(state.restarts).toBe(0);
    await elapse(1);
    expect(state.restarts).toBe(1);
    expect(lines.slice(1)).toEqual(['routing restarted']);

    // Dies again at once: twice the wait; the start fails: twice again, but at most maxMs.
    state.failNextRestart = true;
    exit({ code: 1, signal: null });
    await elapse(0);
    expect(lines.slice(2)).toEqual(['routing exited with code 1; restarting in 0.04 s']);
    await elapse(39);
    expect(state.restarts).toBe(1);
    await elapse(1);
    expect(state.restarts).toBe(2);
    expect(lines.slice(3)).toEqual(['routing did not start again (routing exited during start-up); restarting in 0.05 s']);
    await elapse(49);
    expect(state.restarts).toBe(2);
    await elapse(1);
    expect(state.restarts).toBe(3);
    expect(lines.slice(4)).toEqual(['routing restarted']);

    // Up a moment less than resetAfterMs: still a crash loop.
    await elapse(199);
    exit({ code: 1, signal: null });
    await elapse(0);
    expect(lines.slice(5)).toEqual(['routing exited with code 1; restarting in 0.05 s']);
    await elapse(50);
    expect(state.restarts).toBe(4);

    // Up resetAfterMs: the back-off starts from initialMs again.
    await elapse(200);
    exit({ code: 1, signal: null });
    await elapse(0);
    expect(lines.slice(6)).toEqual(['routing restarted', 'routing exited with code 1; restarting in 0.02 s']);
    await elapse(20);
    expect(state.restarts).toBe(5);
    sut.stop();
  });

  it('starts nothing again once stopped, not even a restart already scheduled', async () => {
    const { stack, state, exit } = stackUnderTest();
    const lines: string[] = [];
    const sut = new Supervisor(stack, (line) => lines.push(line), BACKOFF);
    sut.watch('routing');
    exit({ code: 1, signal: null });
    await elapse(5);
    sut.stop();
    // Well past every back-off: the scheduled restart would have run by now.
    await elapse(10 * BACKOFF.maxMs);
    expect(state.restarts).toBe(0);
    expect(lines).toEqual(['routing exited with code 1; restarting in 0.02 s']);
  });

  it('starts nothing again for an instance that exits after the stop', async () => {
    const { stack, state, exit } = stackUnderTest();
    const lines: string[] = [];
    const sut = new Supervisor(stack, (line) => lines.push(line), BACKOFF);
    sut.watch('routing');
    sut.stop();
    exit({ code: null, signal: 'SIGTERM' });
    await elapse(10 * BACKOFF.maxMs);
    expect(state.restarts).toBe(0);
    expect(lines).toEqual([]);
  });
});
