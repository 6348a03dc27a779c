import { waitFor } from '@bedrequest/testing';
import { CLINIC, FaultFixture, type StoredCounts } from './support/fault-fixture';
import { byStatus, reportFigures, seconds } from './support/figures';
import { postgres, restore, waitUntil } from './support/infrastructure';
import { BundleLoad, accepted, bundleSource, type PostRecord } from './support/load';

/**
 * PostgreSQL restarted during load: consumers retry, nothing acknowledged is lost
 * (docs/architecture.md, "Message backbone": failing handlers are tried again in-process). The
 * machine's PostgreSQL restarts (`pg_ctlcluster ... restart`: every connection is cut) while
 * bundles arrive; intake's and routing's consumers fail on their deliveries meanwhile and must
 * retry them rather than drop them. Every bundle answered 202 must end up stored, exactly once,
 * and nothing may be dead-lettered.
 */
describe('PostgreSQL restarted during load', () => {
  let faults: FaultFixture;
  let posts: PostRecord[] = [];
  let counts: (StoredCounts & { accepted: number; settledMs: number }) | undefined;
  let restartMs = 0;
  let deadLettered = { intake: -1, routing: -1 };
  let health: Record<string, number | 'exited'> = {};

  beforeAll(async () => {
    faults = await FaultFixture.start('postgres');
  }, 180_000);

  afterAll(async () => {
    reportFigures(
      'PostgreSQL restart',
      `${posts.length} POSTs (${byStatus(posts.map((post) => post.status))}); restart took ${seconds(restartMs)}; services afterwards: ${Object.entries(health)
        .map(([name, status]) => `${name} ${status}`)
        .join(', ')}; ` +
        `${counts?.storedOnce ?? '?'} of ${counts?.accepted ?? '?'} 202s stored exactly once, ${counts?.missing.length ?? '?'} lost, ${counts?.duplicated.length ?? '?'} duplicated; ` +
        `dead-lettered: intake ${deadLettered.intake}, routing ${deadLettered.routing}; all stored ${seconds(counts?.settledMs ?? 0)} after the last answer`,
    );
    await faults?.stop();
  });

  it('lets consumers retry through the restart and loses nothing that was acknowledged', async () => {
    const load = new BundleLoad({
      gatewayUrl: faults.gatewayUrl,
      token: faults.referrer.token,
      bundles: bundleSource(faults.referrer, [CLINIC.ik]),
      concurrency: 16,
      minIntervalMs: 20,
    }).start();
    try {
      await waitFor(() => accepted(load.posts).length >= 300, { timeoutMs: 60_000, what: 'load before the restart' });
      const started = Date.now();
      try {
        await postgres.restart();
        await waitUntil(() => postgres.isUp(), 'PostgreSQL to answer again');
      } finally {
        await restore(postgres);
      }
      restartMs = Date.now() - started;
      // Every service must have lived through it (and be ready again): a crash shows here by name.
      const deadline = Date.now() + 60_000;
      for (;;) {
        health = await faults.health();
        if (Object.values(health).every((status) => status === 200)) break;
        if (Object.values(health).includes('exited') || Date.now() > deadline) throw new Error(`services after the restart: ${JSON.stringify(health)}`);
        await new Promise((resolve) => setTimeout(resolve, 200));
      }
      const after = load.posts.length;
      await waitFor(() => accepted(load.posts.slice(after)).length >= 300, { timeoutMs: 120_000, what: 'load after the restart' });
    } finally {
      posts = await load.stop();
    }

    counts = await faults.settleAccepted(posts, 120_000);
    deadLettered = { intake: (await faults.queueDepth('intake')).deadLettered, routing: (await faults.queueDepth('routing')).deadLettered };

    // 503 (with Retry-After) means nothing was stored: allowed while the database is away.
    expect(posts.filter((post) => post.status !== 202 && !(post.status === 503 && post.retryAfter))).toEqual([]);
    expect(counts.missing).toEqual([]);
    expect(counts.duplicated).toEqual([]);
    expect(counts.storedOnce).toBe(accepted(posts).length);
    expect(deadLettered).toEqual({ intake: 0, routing: 0 });
  });
});
