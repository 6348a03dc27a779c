import { appendFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '@bedrequest/stack';

/** Where the run's figures are collected: the summary reporter prints them when the run ends. */
export function figuresFile(runId = process.env.TEST_RUN_ID ?? 'local'): string {
  return join(root, 'tmp', 'faults', `figures-${runId}.jsonl`);
}

/**
 * Records the figures of one fault (counts, durations) for the summary at the end of the run
 * (tools/faults/figures-reporter.cjs). Recorded whether the test passed or not: a failed run's
 * figures are what explains it.
 */
export function reportFigures(fault: string, figures: string): void {
  const file = figuresFile();
  mkdirSync(join(file, '..'), { recursive: true });
  appendFileSync(file, `${JSON.stringify({ fault, figures, at: new Date().toISOString() })}\n`);
}

export const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** `{ 202: 4987, 503: 13 }` → `202×4987, 503×13` (ascending status). */
export function byStatus(statuses: Iterable<number>): string {
  const counts = new Map<number, number>();
  for (const status of statuses) counts.set(status, (counts.get(status) ?? 0) + 1);
  return [...counts.entries()]
    .sort(([a], [b]) => a - b)
    .map(([status, count]) => `${status === 0 ? 'no answer' : status}×${count}`)
    .join(', ');
}
