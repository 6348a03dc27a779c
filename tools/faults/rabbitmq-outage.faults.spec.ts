import { waitFor } from '@bedrequest/testing';
import { CLINIC, FaultFixture, type StoredCounts } from './support/fault-fixture';
import { byStatus, reportFigures, seconds } from './support/figures';
import { rabbitmq, whileDown, type OutageTimes } from './support/infrastructure';
import { BundleLoad, accepted, bundleSource, type PostRecord } from './support/load';

/**
 * RabbitMQ stopped and started during load (`rabbitmqctl stop_app` / `start_app`). Proved: every
 * POST sent and answered while it is down is answered 503 with `Retry-After`, never 202
 * (docs/architecture.md, "Message backbone": 202 only after the broker's confirm); bundles are
 * answered 202 before and after it, and every 202 is stored exactly once. The broker of the whole
 * machine goes down for a few seconds.
 */
const DOWN_MS = 3_000;

describe('RabbitMQ stopped and started during load', () => {
  let faults: FaultFixture;
  let posts: PostRecord[] = [];
  let times: OutageTimes | undefined;
  let whileStopped: PostRecord[] = [];
  let counts: (StoredCounts & { accepted: number; settledMs: number }) | undefined;
  let recoveredAfter = 0;

  beforeAll(async () => {
    faults = await FaultFixture.start('rabbit');
  }, 180_000);

  afterAll(async () => {
    reportFigures(
      'RabbitMQ stop_app/start_app',
      `${posts.length} POSTs (${byStatus(posts.map((post) => post.status))}); broker down ${seconds(times ? times.startingAt - times.downAt : 0)}, back ${seconds(times ? times.backAt - times.startingAt : 0)} after start_app; ` +
        `${whileStopped.length} POSTs sent and answered while it was down: ${byStatus(whileStopped.map((post) => post.status))}, ${whileStopped.filter((post) => post.retryAfter).length} with Retry-After; ` +
        `first 202 again ${seconds(recoveredAfter)} after it was back; ${counts?.storedOnce ?? '?'} of ${counts?.accepted ?? '?'} 202s stored exactly once, ${counts?.missing.length ?? '?'} lost`,
    );
    await faults?.stop();
  });

  it('answers 503 with Retry-After while the broker is down, never 202, and processes every 202 once it is back', async () => {
    const load = new BundleLoad({
      gatewayUrl: faults.gatewayUrl,
      token: faults.referrer.token,
      bundles: bundleSource(faults.referrer, [CLINIC.ik]),
      concurrency: 8,
      minIntervalMs: 50,
    }).start();
    try {
      await waitFor(() => accepted(load.posts).length >= 100, { timeoutMs: 60_000, what: 'load before the outage' });
      ({ times } = await whileDown(rabbitmq, () => new Promise((resolve) => setTimeout(resolve, DOWN_MS))));
      const backAt = times.backAt;
      // The services reconnect with backoff; then bundles are accepted again.
      await waitFor(() => load.posts.some((post) => post.sentAt > backAt && post.status === 202), {
        timeoutMs: 60_000,
        intervalMs: 50,
        what: 'a 202 after the broker is back',
      });
      recoveredAfter = Math.min(...load.posts.filter((post) => post.sentAt > backAt && post.status === 202).map((post) => post.answeredAt)) - backAt;
      const recovered = load.posts.length;
      await waitFor(() => load.posts.length >= recovered + 100, { timeoutMs: 60_000, what: 'load after the outage' });
    } finally {
      posts = await load.stop();
    }

    // Sent after the stop had taken effect and answered before the start was issued.
    whileStopped = posts.filter((post) => post.sentAt >= times!.downAt && post.answeredAt <= times!.startingAt);
    counts = await faults.settleAccepted(posts, 120_000);

    expect(whileStopped.length).toBeGreaterThan(0);
    expect(whileStopped.filter((post) => post.status !== 503 || !post.retryAfter)).toEqual([]);
    expect(posts.filter((post) => post.status !== 202 && post.status !== 503)).toEqual([]);
    expect(counts.missing).toEqual([]);
    expect(counts.duplicated).toEqual([]);
    expect(counts.storedOnce).toBe(accepted(posts).length);
  });
});
