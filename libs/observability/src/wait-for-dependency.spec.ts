import { captureLogger } from '@bedrequest/testing';
import { DependencyUnavailableError, waitForDependency } from './wait-for-dependency';

/** An attempt that fails (connection refused) until `readyAfterMs` have passed, then answers. */
function dependencyReadyAfter(readyAfterMs: number) {
  const startedAt = Date.now();
  const calls = { count: 0 };
  return {
    calls,
    attempt: async () => {
      calls.count++;
      if (Date.now() - startedAt < readyAfterMs) throw new Error('connect ECONNREFUSED 127.0.0.1:8081');
      return 'keys';
    },
  };
}

const waitingForAuth = (error: unknown) => ({ what: 'auth at http://127.0.0.1:8081', reason: (error as Error).message });

describe('waitForDependency', () => {
  it('says nothing when the dependency answers before the notice is due', async () => {
    const captured = captureLogger();
    const dependency = dependencyReadyAfter(300);
    await expect(waitForDependency(dependency.attempt, { logger: captured.logger, describe: waitingForAuth, noticeAfterMs: 2_000 })).resolves.toBe('keys');
    expect(dependency.calls.count).toBeGreaterThan(1);
    expect(captured.text()).toBe('');
  });

  it('says once what it waits for when it takes long, then that the answer came', async () => {
    const captured = captureLogger();
    const dependency = dependencyReadyAfter(1_500);
    await expect(waitForDependency(dependency.attempt, { logger: captured.logger, describe: waitingForAuth, noticeAfterMs: 300 })).resolves.toBe('keys');
    const lines = captured
      .text()
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { level: number; msg: string; reason?: string });
    expect(lines.map(({ level, msg, reason }) => ({ level, msg, reason }))).toEqual([
      { level: 40, msg: 'waiting for auth at http://127.0.0.1:8081', reason: 'connect ECONNREFUSED 127.0.0.1:8081' },
      { level: 30, msg: expect.stringMatching(/^auth at http:\/\/127\.0\.0\.1:8081 answered after \d\.\d s$/), reason: undefined },
    ]);
    expect(captured.text()).not.toContain('stack');
  });

  it('gives up after the bound with one message naming the dependency and the last reason', async () => {
    const captured = captureLogger();
    const dependency = dependencyReadyAfter(60_000);
    const startedAt = Date.now();
    const failure = await waitForDependency(dependency.attempt, {
      logger: captured.logger,
      describe: waitingForAuth,
      noticeAfterMs: 100,
      giveUpAfterMs: 800,
    }).catch((error: unknown) => error);
    expect(Date.now() - startedAt).toBeLessThan(2_000);
    expect(failure).toBeInstanceOf(DependencyUnavailableError);
    expect((failure as Error).message).toMatch(
      /^gave up waiting for auth at http:\/\/127\.0\.0\.1:8081 after \d\.\d s: connect ECONNREFUSED 127\.0\.0\.1:8081$/,
    );
    expect(captured.text().trim().split('\n')).toHaveLength(1);
  });
});
