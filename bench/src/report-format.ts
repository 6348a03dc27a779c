/** What the figures' `summarize()` (load.ts) wrote: median and spread over the runs. */
export type Summary = { median: number; min: number; max: number; runs: number[] };

export const fmt = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a';

export const spread = (summary: Summary | undefined, digits = 0) =>
  summary ? `${fmt(summary.median, digits)} (${fmt(summary.min, digits)}–${fmt(summary.max, digits)})` : 'n/a';

export const verdict = (met: boolean) => (met ? 'met' : '**missed**');

/**
 * Whether every plan of intake's search uses indexes only; null when no plan was captured, since
 * "every plan" of none would say yes without having looked.
 */
export function usesIndexesOnly(plans: readonly string[] | undefined): boolean | null {
  if (!plans || plans.length === 0) return null;
  return plans.every((plan) => !/Seq Scan on (admission_request|clinic_task)/.test(plan));
}

/** An end-to-end run in which every POST was answered 202 and every webhook about them arrived. */
export const complete = (run: { sent: number; accepted: number; arrived: number }) => run.accepted === run.sent && run.arrived === run.sent;
