import pino from 'pino';
import { PeriodicRun } from './periodic-run';

describe('PeriodicRun', () => {
  const logged: string[] = [];
  const logger = pino({ level: 'warn' }, { write: (line: string) => void logged.push(JSON.parse(line).msg) });

  it('runs one at a time: a run asked for meanwhile waits for it and resolves idle', async () => {
    let release!: () => void;
    let runs = 0;
    const job = new PeriodicRun({
      work: async () => {
        runs += 1;
        await new Promise<void>((resolve) => (release = resolve));
        return 5;
      },
      idle: 0,
      intervalMs: 60_000,
      logger,
      failureMessage: 'failed',
    });
    const first = job.run();
    const second = job.run();
    release();

    expect(await Promise.all([first, second])).toEqual([5, 0]);
    expect(runs).toBe(1);
  });

  it('resolves idle when the work fails, logs it, and runs again the next time', async () => {
    let fail = true;
    const job = new PeriodicRun({
      work: async () => {
        if (fail) throw new Error('database gone');
        return 3;
      },
      idle: 0,
      intervalMs: 60_000,
      logger,
      failureMessage: 'the job failed; will retry',
    });

    await expect(job.run()).resolves.toBe(0);
    expect(logged).toContain('the job failed; will retry');
    fail = false;
    await expect(job.run()).resolves.toBe(3);
  });

  it('runs every interval once started, and no more once stopped', async () => {
    jest.useFakeTimers();
    try {
      let runs = 0;
      const job = new PeriodicRun({ work: async () => (runs += 1), idle: 0, intervalMs: 10, logger, failureMessage: 'failed' });
      job.start();
      await jest.advanceTimersByTimeAsync(35);
      expect(runs).toBe(3);

      await job.stop();
      await jest.advanceTimersByTimeAsync(50);
      expect(runs).toBe(3);
    } finally {
      jest.useRealTimers();
    }
  });
});
