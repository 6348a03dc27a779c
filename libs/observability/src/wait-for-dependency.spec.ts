import { captureLogger } from '@bedrequest/testing';
import { DependencyUnavailableError, waitForDependency } from './wait-for-dependency';

/** An attempt that fails (connection refused) until `readyAfterMs` have passed on the clock, then answers; it notes when it was called. */
function dependencyReadyAfter(readyAfterMs: number) {
  const startedAt = Date.now();
  const calledAt: number[] = [];
  return {
    calledAt,
    attempt: async () => {
      calledAt.push(Date.now() - startedAt);
      if (Date.now() - startedAt < readyAfterMs) throw new Error('connect ECONNREFUSED 127.0.0.1:8081');
      return 'keys';
    },
  };
}

const waitingForAuth = (error: unknown) => ({ what: 'auth at http://127.0.0.1:8081', reason: (error as Error).message });

/** Moves the fake clock (Date.now, performance.now and the timers) on by `ms`, running what falls due. */
const elapse = (ms: number) => jest.advanceTimersByTimeAsync(ms);

/** Whether `promise` has settled, once the test looks. */
function watched<T>(promise: Promise<T>) {
  const state: { settled: boolean; outcome?: PromiseSettledResult<T> } = { settled: false };
  void promise.then(
    (value) => Object.assign(state, { settled: true, outcome: { status: 'fulfilled', value } }),
    (reason: unknown) => Object.assign(state, { settled: true, outcome: { status: 'rejected', reason } }),
  );
  return state;
}

describe('waitForDependency', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('tries again after 0.2 s, doubling up to 1 s, and says nothing when the dependency answers before the notice is due', async () => {
    const captured = captureLogger();
    const dependency = dependencyReadyAfter(2_500);
    const waiting = watched(waitForDependency(dependency.attempt, { logger: captured.logger, describe: waitingForAuth, noticeAfterMs: 5_000 }));

    await elapse(3_399);
    expect(waiting.settled).toBe(false);
    await elapse(1);
    expect(waiting.outcome).toEqual({ status: 'fulfilled', value: 'keys' });
    expect(dependency.calledAt).toEqual([0, 200, 600, 1_400, 2_400, 3_400]);
    // Nor later: the notice was called off with the answer.
    await elapse(10_000);
    expect(captured.text()).toBe('');
  });

  it('says once what it waits for when it takes long, then that the answer came', async () => {
    const captured = captureLogger();
    const dependency = dependencyReadyAfter(1_500);
    const waiting = watched(waitForDependency(dependency.attempt, { logger: captured.logger, describe: waitingForAuth, noticeAfterMs: 300 }));

    await elapse(299);
    expect(captured.text()).toBe('');
    await elapse(2_101);
    expect(waiting.outcome).toEqual({ status: 'fulfilled', value: 'keys' });
    const lines = captured
      .text()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string; reason?: string });
    expect(lines.map(({ level, msg, reason }) => ({ level, msg, reason }))).toEqual([
      { level: 40, msg: 'waiting for auth at http://127.0.0.1:8081', reason: 'connect ECONNREFUSED 127.0.0.1:8081' },
      { level: 30, msg: 'auth at http://127.0.0.1:8081 answered after 2.4 s', reason: undefined },
    ]);
    expect(captured.text()).not.toContain('stack');
  });

  it('gives up after the bound with one message naming the dependency and the last reason', async () => {
    const captured = captureLogger();
    const dependency = dependencyReadyAfter(60_000);
    const waiting = watched(
      waitForDependency(dependency.attempt, {
        logger: captured.logger,
        describe: waitingForAuth,
        noticeAfterMs: 100,
        giveUpAfterMs: 800,
      }),
    );

    await elapse(799);
    expect(waiting.settled).toBe(false);
    await elapse(1);
    // The last wait is cut to what is left of the bound: a last attempt at the bound, then no more.
    expect(dependency.calledAt).toEqual([0, 200, 600, 800]);
    expect(waiting.outcome).toEqual({ status: 'rejected', reason: expect.any(DependencyUnavailableError) });
    const failure = (waiting.outcome as PromiseRejectedResult).reason as Error;
    expect(failure.message).toBe('gave up waiting for auth at http://127.0.0.1:8081 after 0.8 s: connect ECONNREFUSED 127.0.0.1:8081');
    expect(captured.text().trim().split('\n')).toHaveLength(1);
  });
});
