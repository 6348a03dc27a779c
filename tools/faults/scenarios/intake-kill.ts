import { CLINIC, type FaultFixture, type StoredCounts } from '../support/fault-fixture';
import { byStatus, reportFigures, seconds } from '../support/figures';
import { BundleLoad, accepted, bundleSource, inPhase, type PostRecord } from '../support/load';

/**
 * `kill -9` of intake during 5,000 POSTs. Intake dies without any clean-up while it holds
 * unacknowledged deliveries, some of them already committed; meanwhile the gateway keeps putting
 * bundles on the queue and answers 202 for each once INTAKE_VERDICT_TIMEOUT_MS (1 s) passed without
 * intake's verdict (docs/api.md, "Sending a bundle"). Proved: bundles are answered 202 before the
 * kill, while intake is gone (each of those without a verdict: nobody could give one) and after it
 * is ready again, at least the counts below in each phase; every POST is answered 202 or 503 with
 * Retry-After; every bundle answered 202 is stored exactly once; nothing is dead-lettered.
 *
 * Each POST records the phase of the fault it was sent and answered in (BundleLoad.phase): one sent
 * before the kill and answered after it counts for neither. Intake stays down until enough POSTs
 * sent after its death have been answered, not for a fixed time.
 */
const POSTS = 5_000;
/** 202s sent and answered before the kill: then intake is killed. */
const BEFORE_KILL = 1_500;
/** 202s sent and answered while intake is gone: then it is started again. */
const WHILE_DOWN = 100;
/** 202s sent and answered once intake is ready again, at least (the rest of the 5,000 follow). */
const AFTER_READY = 100;
/** A bound on each wait that only catches a hang. */
const HANG_MS = 180_000;

const PHASES = ['before', 'killing', 'down', 'restarting', 'after'] as const;

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
    let killedAt: number | undefined;
    try {
      await load.until((answered) => accepted(inPhase(answered, 'before')).length >= BEFORE_KILL, `${BEFORE_KILL} 202s before the kill`, HANG_MS);
      killedAt = Date.now();
      load.phase = 'killing';
      expect(await faults.stack.kill('intake', 'SIGKILL')).toBe('SIGKILL');
      load.phase = 'down';
      await load.until((answered) => accepted(inPhase(answered, 'down')).length >= WHILE_DOWN, `${WHILE_DOWN} 202s while intake is down`, HANG_MS);
      load.phase = 'restarting';
      await faults.stack.restart('intake');
      load.phase = 'after';
      outageMs = Date.now() - killedAt;
      await load.until((answered) => accepted(inPhase(answered, 'after')).length >= AFTER_READY, `${AFTER_READY} 202s after intake is ready again`, HANG_MS);
    } finally {
      if (!faults.stack.isRunning('intake')) {
        await faults.stack.restart('intake');
        if (killedAt !== undefined) outageMs = Date.now() - killedAt;
      }
      posts = await load.finished();
      loadMs = Date.now() - started;
    }

    counts = await faults.settleAccepted(posts);
    deadLettered = (await faults.queueDepth('intake')).deadLettered;

    expect(posts).toHaveLength(POSTS);
    // While intake is away the gateway still puts bundles on the queue and answers 202; a 503
    // (with Retry-After) would mean nothing was stored and is allowed, anything else is not.
    expect(posts.filter((post) => post.status !== 202 && !(post.status === 503 && post.retryAfter))).toEqual([]);
    const acceptedIn = (phase: string) => accepted(inPhase(posts, phase)).length;
    expect(acceptedIn('before')).toBeGreaterThanOrEqual(BEFORE_KILL);
    expect(acceptedIn('down')).toBeGreaterThanOrEqual(WHILE_DOWN);
    expect(acceptedIn('after')).toBeGreaterThanOrEqual(AFTER_READY);
    // Intake was dead: no 202 of that phase can carry its verdict.
    expect(accepted(inPhase(posts, 'down')).filter((post) => post.accepted !== 'queued')).toEqual([]);
    expect(counts.missing).toEqual([]);
    expect(counts.duplicated).toEqual([]);
    expect(counts.storedOnce).toBe(accepted(posts).length);
    expect(deadLettered).toBe(0);
  } finally {
    const queued = (of: readonly PostRecord[]) => accepted(of).filter((post) => post.accepted === 'queued').length;
    const phases = PHASES.map((phase) => {
      const of = inPhase(posts, phase);
      return `${phase} ${of.length ? `${byStatus(of.map((post) => post.status))} (${queued(of)} without a verdict)` : 'none'}`;
    });
    const between = posts.filter((post) => post.phase && post.phase.sent !== post.phase.answered).length;
    reportFigures(
      'kill -9 intake',
      `${posts.length} POSTs in ${seconds(loadMs)} (${byStatus(posts.map((post) => post.status))}), ${accepted(posts).length} answered 202 (${queued(posts)} without intake's verdict); ` +
        `by phase: ${phases.join('; ')}; ${between} sent in one phase and answered in the next; ` +
        `${counts?.storedOnce ?? '?'} stored exactly once, ${counts?.missing.length ?? '?'} lost, ${counts?.duplicated.length ?? '?'} duplicated, ` +
        `${deadLettered} dead-lettered; intake down ${seconds(outageMs)} from kill to ready again, all stored ${seconds(counts?.settledMs ?? 0)} after the last answer`,
    );
  }
}
