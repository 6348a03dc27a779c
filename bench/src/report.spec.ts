import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { RunProvenance } from './provenance';
import { markdown } from './report';

const RESULTS = join(__dirname, '..', 'results');

const machine = { cpus: 2, cpuModel: 'Test CPU', memoryGiB: 8, node: 'v24.0.0', os: 'Linux 6.0' };
const latestRun: RunProvenance = { startedAt: '2026-12-02T10:00:00.000Z', commit: 'a'.repeat(40), dirty: false, quick: false, only: null, machine };
const earlierRun: RunProvenance = {
  startedAt: '2026-12-01T09:00:00.000Z',
  commit: 'b'.repeat(40),
  dirty: true,
  quick: true,
  only: ['polling'],
  machine: { ...machine, cpuModel: 'Other CPU' },
};

/** The section of `md` under the heading that starts with `## <number>.`. */
function section(md: string, number: string): string {
  const start = md.indexOf(`## ${number}. `);
  expect(start).toBeGreaterThanOrEqual(0);
  const end = md.indexOf('\n## ', start + 1);
  return md.slice(start, end === -1 ? undefined : end);
}

const polling = (plans: string[]) => ({
  storedRequests: 10_000,
  requestsPerSecond: { median: 2500, min: 2400, max: 2600, runs: [2400, 2500, 2600] },
  latencyP99Ms: { median: 10, min: 9, max: 11, runs: [9, 10, 11] },
  non2xx: 0,
  cpuMsPerPoll: { intake: 0.5 },
  statementsPerSearch: plans.length,
  // The figure's own flag, which the report does not take on trust.
  usesIndex: true,
  plans,
  measuredAt: '2026-12-02T10:05:00.000Z',
  run: latestRun,
});

const atRate = (arrived: number, p99Ms: number, ratePerSecond = 200) => ({
  ratePerSecond,
  seconds: 60,
  sent: 12_000,
  accepted: 12_000,
  arrived,
  p50Ms: p99Ms / 2,
  p99Ms,
  maxMs: p99Ms * 2,
  cpuMsPerRequest: { intake: 1 },
});

const endToEnd = (arrived: number) => ({
  at200PerSecond: [atRate(12_000, 40), atRate(arrived, 40)],
  allArrived: true,
  targetP99Ms: 50,
  targetTimingMaxMs: 2_000,
  measuredAt: '2026-12-02T10:02:00.000Z',
  run: latestRun,
});

describe('latest.md', () => {
  it('is what report.ts makes of latest.json: generated only, never edited by hand', () => {
    const json = JSON.parse(readFileSync(join(RESULTS, 'latest.json'), 'utf8')) as Record<string, unknown>;
    expect(readFileSync(join(RESULTS, 'latest.md'), 'utf8')).toBe(markdown(json));
  });
});

describe('the report', () => {
  it("gives each figure of an earlier run that run's own date, commit and machine", () => {
    const md = markdown({ polling: { ...polling(['Index Scan on clinic_task']), run: earlierRun }, endToEnd: endToEnd(12_000) });
    expect(md).toContain(`Latest run: started 2026-12-02T10:00:00.000Z; commit ${'a'.repeat(12)}; 2 cores (Test CPU)`);
    expect(section(md, '2')).toContain('Latest run, measured 2026-12-02T10:02:00.000Z.');
    const earlier = section(md, '4');
    expect(earlier).toContain(
      `**Earlier run:** measured 2026-12-02T10:05:00.000Z, run started 2026-12-01T09:00:00.000Z; commit ${'b'.repeat(12)} **with uncommitted changes**; 2 cores (Other CPU), 8 GiB, Node v24.0.0, Linux 6.0.`,
    );
    expect(earlier).toContain('**Quick run (short durations): not for comparison.**');
  });

  it('says so when a run did not record its commit, rather than leaving it out', () => {
    const md = markdown({
      polling: { ...polling(['Index Scan on clinic_task']), run: { ...earlierRun, commit: null, dirty: null } },
      endToEnd: endToEnd(12_000),
    });
    expect(section(md, '4')).toContain('commit not recorded');
  });

  it('does not say a search uses indexes when no plan was captured', () => {
    expect(section(markdown({ polling: polling([]) }), '4')).toContain('Uses indexes only: **plan not captured**.');
    expect(section(markdown({ polling: polling(['Seq Scan on clinic_task t']) }), '4')).toContain('Uses indexes only: **no**.');
    expect(section(markdown({ polling: polling(['Index Scan using clinic_task_request_id_clinic_ik_key on clinic_task t']) }), '4')).toContain(
      'Uses indexes only: yes.',
    );
  });

  it('meets no end-to-end target when a webhook did not arrive, however fast the others were', () => {
    const all = section(markdown({ endToEnd: endToEnd(12_000) }), '2');
    expect(all).toContain('p99 < 50 ms in every run: met.');
    expect(all).toContain('max < 2,000 ms in every run: met.');
    const missing = section(markdown({ endToEnd: endToEnd(11_999) }), '2');
    expect(missing).toContain('every webhook arrived: **no**');
    expect(missing).not.toMatch(/: met\./);
    expect(missing).toContain('p99 < 50 ms in every run: **missed** (1 of 24,000 without a 202 and its webhook).');
  });

  it('holds the 2 s of docs/decisions.md against the slowest request, not the p99', () => {
    const slowest = endToEnd(12_000);
    slowest.at200PerSecond[1] = { ...slowest.at200PerSecond[1]!, maxMs: 2_400 };
    const md = section(markdown({ endToEnd: slowest }), '2');
    expect(md).toContain('p99 < 50 ms in every run: met.');
    expect(md).toContain('max < 2,000 ms in every run: **missed**.');
  });

  it('lists the answers other than 202 by status', () => {
    const figure = { ...endToEnd(12_000), at200PerSecond: [atRate(12_000, 40), { ...atRate(11_990, 40), accepted: 11_990, notAccepted: { '429': 10 } }] };
    const md = section(markdown({ endToEnd: figure }), '2');
    expect(md).toContain('Answers other than 202: 200/s: 429×10.');
    expect(md).toContain('p99 < 50 ms in every run: **missed** (10 of 24,000 without a 202 and its webhook).');
  });

  it('counts a rate of figure 2b only when every webhook of it arrived', () => {
    const rates = (arrivedAt600: number) => ({
      steps: [atRate(12_000, 100, 400), atRate(arrivedAt600, 200, 600)],
      highestRateWithP99Under1s: 600,
      target: 600,
      measuredAt: '2026-12-02T10:03:00.000Z',
      run: latestRun,
    });
    expect(section(markdown({ endToEndRates: rates(12_000) }), '2b')).toContain('every webhook arrived: 600/s; target ≥ 600/s: met.');
    expect(section(markdown({ endToEndRates: rates(11_000) }), '2b')).toContain('every webhook arrived: 400/s; target ≥ 600/s: **missed**.');
  });
});

describe('the vacuum-lag figure', () => {
  const runs = (median: number) => ({ median, min: median, max: median, runs: [median] });
  const cost = (ms: number) => ({ executionMs: runs(ms), buffers: runs(ms * 10) });
  const state = (rate: number) => ({
    relayedPerSecond: runs(rate),
    claimedPerSecond: runs(rate),
    handedOverPerSecond: runs(rate),
    relay: cost(1),
    claim: cost(2),
  });
  const figure = (laggingClaims: number) => ({
    clusterAutovacuum: 'off',
    messagesPerRun: 4_800,
    deliveriesPerRun: 6_400,
    runs: 1,
    histories: {
      heavy: {
        outbox: { history: 150_000, lagging: state(1_000), vacuumed: state(1_000) },
        deliveries: { history: 150_000, lagging: { ...state(1_000), claimedPerSecond: runs(laggingClaims) }, vacuumed: state(1_000) },
      },
    },
    measuredAt: '2026-12-02T10:06:00.000Z',
    run: latestRun,
  });

  it('shows lagging against vacuumed per rate, and misses when one keeps less than half its speed', () => {
    const kept = section(markdown({ vacuumLag: figure(600) }), '5b');
    expect(kept).toContain('| heavy (150,000) | deliveries claimed/s | 600 (600–600) | 1,000 (1,000–1,000) | 0.6 |');
    expect(kept).toContain('keeps at least half of its speed while VACUUM lags: met.');
    const slowed = section(markdown({ vacuumLag: figure(400) }), '5b');
    expect(slowed).toContain('| 0.4 |');
    expect(slowed).toContain('keeps at least half of its speed while VACUUM lags: **missed**.');
  });
});
