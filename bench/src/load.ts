import autocannon, { type Request } from 'autocannon';

export interface LoadResult {
  /**
   * Answers 2xx per second of the run: autocannon's `requests.average` counts every answer, so a
   * service refusing everything quickly would look fast.
   */
  okPerSecond: number;
  latencyP50Ms: number;
  latencyP99Ms: number;
  non2xx: number;
  errors: number;
  /** Requests answered 2xx in the whole run. */
  ok: number;
}

/** A closed-loop load (autocannon) of `durationSeconds`; `body()` is called for every request. */
export async function closedLoop(options: {
  url: string;
  method?: 'GET' | 'POST';
  headers?: Record<string, string>;
  body?: () => string;
  path?: () => string;
  connections: number;
  durationSeconds: number;
}): Promise<LoadResult> {
  const result = await autocannon({
    url: options.url,
    connections: options.connections,
    duration: options.durationSeconds,
    requests: [
      {
        method: options.method ?? 'GET',
        headers: options.headers,
        setupRequest: (request: Request): Request => ({
          ...request,
          ...(options.body ? { body: options.body() } : {}),
          ...(options.path ? { path: options.path() } : {}),
        }),
      },
    ],
  });
  return {
    okPerSecond: result['2xx'] / result.duration,
    latencyP50Ms: result.latency.p50,
    latencyP99Ms: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors + result.timeouts,
    ok: result['2xx'],
  };
}

/**
 * An open-loop load: `send(i)` is started at a fixed rate whatever the answers take (so latency is
 * not hidden by the load generator waiting, "coordinated omission"). Resolves when all answered.
 */
export async function openLoop(options: {
  ratePerSecond: number;
  durationSeconds: number;
  send: (index: number) => Promise<void>;
}): Promise<{ sent: number; failed: number }> {
  const total = Math.round(options.ratePerSecond * options.durationSeconds);
  const started = performance.now();
  const pending: Promise<void>[] = [];
  let failed = 0;
  for (let index = 0; index < total; index++) {
    const due = started + (index * 1000) / options.ratePerSecond;
    const wait = due - performance.now();
    if (wait > 1) await new Promise((resolve) => setTimeout(resolve, wait));
    pending.push(options.send(index).catch(() => void failed++));
  }
  await Promise.all(pending);
  return { sent: total, failed };
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))]!;
}

/** Median and spread (min–max) of repeated measurements. */
export function summarize(values: readonly number[]): { median: number; min: number; max: number; runs: number[] } {
  return { median: percentile(values, 50), min: Math.min(...values), max: Math.max(...values), runs: values.map((value) => Math.round(value * 1000) / 1000) };
}
