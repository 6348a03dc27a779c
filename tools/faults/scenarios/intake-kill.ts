import { waitFor } from '@bedrequest/testing';
import { CLINIC, type FaultFixture, type StoredCounts } from '../support/fault-fixture';
import { byStatus, reportFigures, seconds } from '../support/figures';
import { BundleLoad, accepted, bundleSource, type PostRecord } from '../support/load';

/**
 * Issue 7: "`kill -9` of intake during 5,000 POSTs: every bundle answered 202 is stored exactly
 * once; none lost." Intake dies without any clean-up while it holds unacknowledged deliveries,
 * some of them already committed; the gateway keeps accepting bundles onto the queue meanwhile
 * (the stack's INTAKE_VERDICT_TIMEOUT_MS is short, so those POSTs do not wait 5 s each).
 */
const POSTS = 5_000;
const KILL_AFTER = 1_500;
const DOWN_MS = 1_000;

export async function intakeKill(faults: FaultFixture): Promise<void> {
  let posts: PostRecord[] = [];
  let counts: (StoredCounts & { accepted: number; settledMs: number }) | undefined;
  let loadMs = 0;
  let outageMs = 0;
  let deadLettered = -1;
  try {
    const started = Date.now();
    const load = new BundleLoad({
      gatewayUrl: faults.gatewayUrl,
      token: faults.referrer.token,
      bundles: bundleSource(faults.referrer, [CLINIC.ik]),
      concurrency: 32,
      count: POSTS,
    }).start();
    try {
      await waitFor(() => load.answered >= KILL_AFTER, { timeoutMs: 180_000, intervalMs: 10, what: `${KILL_AFTER} answers` });
      const killedAt = Date.now();
      expect(await faults.stack.kill('intake', 'SIGKILL')).toBe('SIGKILL');
      await new Promise((resolve) => setTimeout(resolve, DOWN_MS));
      await faults.stack.restart('intake');
      outageMs = Date.now() - killedAt;
    } finally {
      if (!faults.stack.isRunning('intake')) await faults.stack.restart('intake');
      posts = await load.finished();
      loadMs = Date.now() - started;
    }

    counts = await faults.settleAccepted(posts);
    deadLettered = (await faults.queueDepth('intake')).deadLettered;

    expect(posts).toHaveLength(POSTS);
    // While intake is away the gateway still puts bundles on the queue and answers 202; a 503
    // (with Retry-After) would mean nothing was stored and is allowed, anything else is not.
    expect(posts.filter((post) => post.status !== 202 && !(post.status === 503 && post.retryAfter))).toEqual([]);
    expect(counts.missing).toEqual([]);
    expect(counts.duplicated).toEqual([]);
    expect(counts.storedOnce).toBe(accepted(posts).length);
    expect(deadLettered).toBe(0);
  } finally {
    const queued = accepted(posts).filter((post) => post.accepted === 'queued').length;
    reportFigures(
      'kill -9 intake',
      `${posts.length} POSTs in ${seconds(loadMs)} (${byStatus(posts.map((post) => post.status))}), ${accepted(posts).length} answered 202 (${queued} without intake's verdict), ` +
        `${counts?.storedOnce ?? '?'} stored exactly once, ${counts?.missing.length ?? '?'} lost, ${counts?.duplicated.length ?? '?'} duplicated, ` +
        `${deadLettered} dead-lettered; intake down ${seconds(outageMs)} from kill to ready again, all stored ${seconds(counts?.settledMs ?? 0)} after the last answer`,
    );
  }
}
