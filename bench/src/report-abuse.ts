/* eslint-disable @typescript-eslint/no-explicit-any -- read back from the JSON of figure-abuse.ts, as report.ts reads its figures */

const fmt = (value: number, digits = 0) =>
  Number.isFinite(value) ? value.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits }) : 'n/a';

/** `{ 400: 12, 429: 3000 }` → `400×12, 429×3,000` (0: no answer). */
const byStatus = (statuses: Record<string, number> | undefined) =>
  Object.entries(statuses ?? {})
    .map(([status, count]) => `${status === '0' ? 'no answer' : status}×${fmt(count)}`)
    .join(', ');

/** Figure 9 of latest.md: another party's POST p99 under abuse (figure-abuse.ts). */
export function abuseLines(r: Record<string, any>): string[] {
  const a = r.abuse;
  if (!a) return [];
  if (a.failed) return ['## 9. Another party under abuse', '', `**Failed:** ${a.failed}`, ''];
  const bytesPerSecond = Number(a.limits?.RATE_LIMIT_BYTES_PER_SECOND);
  const victim: any[] = a.victim ?? [{ pace: 'one after another', unloaded: a.unloaded, underAbuse: a.underAbuse, ratio: a.ratio }];
  return [
    '## 9. Another party under abuse',
    '',
    `The referrer of the other figures POSTs bundles for ${a.seconds} s at each pace below, then as long again while another party, from a process of its own, abuses the service at the gateway's deployed limits (200 requests/s per party${Number.isFinite(bytesPerSecond) ? ` and ${fmt(bytesPerSecond / 2 ** 20)} MiB/s of request bodies` : ''}, 20/s per address without a token): ${fmt(a.tried.flood)} Task searches over its rate (${byStatus(a.statuses?.flood)}), ${fmt(a.tried.huge)} bundles of 40,000 performers (${fmt(a.hugeBundleMiB, 1)} MiB each; ${byStatus(a.statuses?.huge)}), ${fmt(a.tried.logins)} failed logins from one address (${byStatus(a.statuses?.logins)}), ${fmt(a.tried.slow)} slowloris connections.${a.abuserCpuShare !== undefined ? ` The abusing client itself used ${fmt(100 * a.abuserCpuShare)} % of a core of the same machine.` : ''}`,
    '',
    '| the referrer sends | POSTs before / under abuse | not 202 | p99 ms before | p99 ms under abuse | ratio |',
    '|---|---|---|---|---|---|',
    ...victim.map(
      (v) =>
        `| ${v.pace} | ${fmt(v.unloaded.posts)} / ${fmt(v.underAbuse.posts)} | ${fmt(v.unloaded.notAccepted + v.underAbuse.notAccepted)} | ${fmt(v.unloaded.p99Ms, 1)} | ${fmt(v.underAbuse.p99Ms, 1)} | **${fmt(v.ratio, 2)}** |`,
    ),
    '',
    `Issue 26 asks for p99 under abuse at most 2 × before: ${victim.map((v) => `${v.pace}: ${v.ratio <= 2 ? 'met' : '**missed**'}`).join('; ')}.`,
    '',
  ];
}
