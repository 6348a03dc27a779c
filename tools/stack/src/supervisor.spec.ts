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
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

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
  it('starts a dead instance again after the back-off and says so, each time it dies', async () => {
    const { stack, state, exit } = stackUnderTest();
    const lines: string[] = [];
    const sut = new Supervisor(stack, (line) => lines.push(line), BACKOFF);
    sut.watch('routing');

    exit({ code: null, signal: 'SIGKILL' });
    await sleep(10);
    expect(lines).toEqual(['routing exited with signal SIGKILL; restarting in 0.02 s']);
    expect(state.restarts).toBe(0);
    await sleep(30);
    expect(state.restarts).toBe(1);
    expect(lines[1]).toBe('routing restarted');

    state.failNextRestart = true;
    exit({ code: 1, signal: null });
    await sleep(150);
    expect(lines.slice(2)).toEqual([
      'routing exited with code 1; restarting in 0.04 s',
      'routing did not start again (routing exited during start-up); restarting in 0.05 s',
      'routing restarted',
    ]);
    expect(state.restarts).toBe(3);
    sut.stop();
  });

  it('starts nothing again once stopped, not even a restart already scheduled', async () => {
    const { stack, state, exit } = stackUnderTest();
    const lines: string[] = [];
    const sut = new Supervisor(stack, (line) => lines.push(line), BACKOFF);
    sut.watch('routing');
    exit({ code: 1, signal: null });
    await sleep(5);
    sut.stop();
    await sleep(50);
    expect(state.restarts).toBe(0);
    expect(lines).toEqual(['routing exited with code 1; restarting in 0.02 s']);
  });
});
