import { captureLogger, silentLogger, waitFor } from '@bedrequest/testing';
import { WakeUpLoop, type WakeUpLoopOptions } from './wake-up-loop';

/** A pass that the test lets end: `release()` ends the oldest pass still running. */
function controlledPasses() {
  const releases: (() => void)[] = [];
  const state = { started: 0, running: 0, mostAtOnce: 0 };
  const pass = async () => {
    state.started += 1;
    state.running += 1;
    state.mostAtOnce = Math.max(state.mostAtOnce, state.running);
    await new Promise<void>((resolve) => releases.push(resolve));
    state.running -= 1;
  };
  return { pass, state, release: () => releases.shift()?.() };
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));
/** Long enough for a released pass, and a pass that follows it, to start. */
const settle = async () => {
  for (let turn = 0; turn < 5; turn += 1) await nextTurn();
};
/**
 * For the tests of the interval: a fake clock for the loop's timer, while the turns of the event
 * loop (setImmediate, which a wake waits for) stay real. `elapse` moves the clock on by `ms`, runs
 * the timers that fall due, and lets the passes they woke start.
 */
const useFakeClock = () => jest.useFakeTimers({ doNotFake: ['setImmediate', 'nextTick', 'queueMicrotask'] });
const elapse = async (ms: number) => {
  await jest.advanceTimersByTimeAsync(ms);
  await settle();
};

describe('WakeUpLoop', () => {
  const loops: WakeUpLoop[] = [];
  const newLoop = (options: Partial<WakeUpLoopOptions> & Pick<WakeUpLoopOptions, 'pass'>) => {
    const loop = new WakeUpLoop({ intervalMs: 60_000, logger: silentLogger(), failureMessage: 'pass failed', ...options });
    loops.push(loop);
    return loop;
  };
  afterEach(async () => {
    jest.useRealTimers();
    await Promise.all(loops.splice(0).map((loop) => loop.stop()));
  });

  it('makes the wakes of one turn of the event loop one pass', async () => {
    let passes = 0;
    const loop = newLoop({ pass: async () => void (passes += 1) });

    for (let n = 0; n < 5; n += 1) loop.wake();
    expect(passes).toBe(0);
    await settle();

    expect(passes).toBe(1);
  });

  it('runs one pass at a time, and exactly one more after it when woken meanwhile', async () => {
    const { pass, state, release } = controlledPasses();
    const loop = newLoop({ pass });
    loop.wake();
    await settle();
    expect(state.started).toBe(1);

    // Wakes in several turns while the first pass runs: one more pass, once it has ended.
    for (let n = 0; n < 3; n += 1) {
      loop.wake();
      await nextTurn();
    }
    expect(state.started).toBe(1);
    release();
    await settle();
    expect(state.started).toBe(2);
    release();
    await settle();

    expect(state.started).toBe(2);
    expect(state.mostAtOnce).toBe(1);
  });

  it('makes no further pass for a wake that came before the pass under way started', async () => {
    const { pass, state, release } = controlledPasses();
    const loop = newLoop({ pass });
    loop.wake();
    loop.wake();
    await settle();
    release();
    await settle();

    expect(state.started).toBe(1);
  });

  it('stops: waits for the pass under way, and passes no more', async () => {
    useFakeClock();
    const { pass, state, release } = controlledPasses();
    const loop = newLoop({ pass, intervalMs: 5 });
    loop.start();
    await settle();
    expect(state.started).toBe(1);

    let stopped = false;
    const stopping = loop.stop().then(() => (stopped = true));
    loop.wake();
    // Many intervals pass, and the wake's turn: the pass under way holds the stop.
    await elapse(100);
    expect(stopped).toBe(false);
    release();
    await stopping;
    await elapse(100);

    expect(state.started).toBe(1);
    expect(state.running).toBe(0);
  });

  it("stops with a last pass after the one under way, for a wake that came too late (an outbox's last commits)", async () => {
    const { pass, state, release } = controlledPasses();
    const loop = newLoop({ pass });
    loop.wake();
    await settle();

    loop.wake();
    const stopping = loop.stop({ lastPass: true });
    release();
    await waitFor(() => state.started === 2, { what: 'the last pass' });
    release();
    await stopping;
    loop.wake();
    await settle();

    expect(state.started).toBe(2);
  });

  it('logs a failed pass and carries on with the next wake', async () => {
    const captured = captureLogger('warn');
    let passes = 0;
    const loop = newLoop({
      logger: captured.logger,
      failureMessage: 'relay run failed; will retry',
      pass: async () => {
        passes += 1;
        if (passes === 1) throw new Error('database restarting');
      },
    });

    loop.wake();
    await settle();
    loop.wake();
    await settle();

    expect(passes).toBe(2);
    expect(captured.text()).toContain('relay run failed; will retry');
    expect(captured.text()).toContain('database restarting');
  });

  it('passes at start and every intervalMs, calling onInterval before each periodic pass', async () => {
    useFakeClock();
    const events: string[] = [];
    const loop = newLoop({ pass: async () => void events.push('pass'), onInterval: () => events.push('interval'), intervalMs: 10 });
    loop.start();

    await settle();
    expect(events).toEqual(['pass']);
    await elapse(9);
    expect(events).toEqual(['pass']);
    await elapse(1);
    expect(events).toEqual(['pass', 'interval', 'pass']);
    await elapse(10);
    expect(events).toEqual(['pass', 'interval', 'pass', 'interval', 'pass']);
  });
});
