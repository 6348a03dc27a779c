/* eslint-disable @typescript-eslint/no-explicit-any -- the figures are read back from their JSON, each of its own shape: typing every one would only restate the figures */
import { fmt, spread, verdict } from './report-format';

/** Lagging ÷ vacuumed of two medians, the share of its speed a rate keeps while VACUUM lags. */
const kept = (lagging: number, vacuumed: number) => (vacuumed > 0 ? Math.round((lagging / vacuumed) * 100) / 100 : 0);

/**
 * Figure 5b (figure-vacuum-lag.ts): per history, the rates and statement costs on tables VACUUM has
 * not reached, then on the same tables vacuumed; "not several times slower" is read as keeping at
 * least half of the vacuumed rate.
 */
export function vacuumLagLines(v: any): string[] {
  const lines = [
    `Tables with autovacuum off for them (the cluster's own: \`${v.clusterAutovacuum}\`), after a history passed through them; per run ${fmt(v.messagesPerRun)} outbox messages relayed and ${fmt(v.deliveriesPerRun)} deliveries claimed, and as many stored with the hand-over; ${v.runs} runs per state.`,
    '',
    '| history | rate | lagging | vacuumed | lagging ÷ vacuumed | statement ms lagging / vacuumed (pages) |',
    '|---|---|---|---|---|---|',
  ];
  const ratios: number[] = [];
  for (const [name, history] of Object.entries<any>(v.histories)) {
    const row = (label: string, part: any, rate: string, statement: string) => {
      const ratio = kept(part.lagging[rate].median, part.vacuumed[rate].median);
      ratios.push(ratio);
      const cost = (state: string) => `${part[state][statement].executionMs.median} (${part[state][statement].buffers.median})`;
      lines.push(
        `| ${name} (${fmt(part.history)}) | ${label} | ${spread(part.lagging[rate])} | ${spread(part.vacuumed[rate])} | ${ratio} | ${cost('lagging')} / ${cost('vacuumed')} |`,
      );
    };
    row('outbox relayed/s', history.outbox, 'relayedPerSecond', 'relay');
    row('deliveries claimed/s', history.deliveries, 'claimedPerSecond', 'claim');
    row('stored and handed over/s', history.deliveries, 'handedOverPerSecond', 'claim');
  }
  return [...lines, '', `Every rate keeps at least half of its speed while VACUUM lags: ${verdict(ratios.every((ratio) => ratio >= 0.5))}.`, ''];
}
