/* eslint-disable @typescript-eslint/no-explicit-any -- read back from the JSON of figure-tracing.ts, as report.ts reads its figures */

import { fmt, spread } from './report-format';

/** Figure 8 of latest.md: the cost of tracing (figure-tracing.ts). */
export function tracingLines(t: any): string[] {
  const names = Object.keys(t.cpuMsPerBundleByProcess.off as Record<string, number>);
  const row = (mode: 'off' | 'on') => `| ${mode} | ${names.map((name) => fmt(t.cpuMsPerBundleByProcess[mode][name] as number, 2)).join(' | ')} |`;
  return [
    `CPU milliseconds per accepted bundle, every process of the stack, tracing off and on (${t.exporter}), in alternating runs of ${t.seconds} s at ${t.connections} connections on the same stack; each bundle to a clinic that is notified and one that intake declines (a webhook), so all four services of its path trace it.${t.drained ? '' : ' **Not every run drained.**'}`,
    '',
    '| tracing | CPU ms per bundle, the six services | CPU ms per bundle, all processes | bundles/s |',
    '|---|---|---|---|',
    `| off | ${spread(t.servicesCpuMsPerBundle.off, 2)} | ${spread(t.cpuMsPerBundle.off, 2)} | ${spread(t.requestsPerSecond.off, 1)} |`,
    `| on | ${spread(t.servicesCpuMsPerBundle.on, 2)} | ${spread(t.cpuMsPerBundle.on, 2)} | ${spread(t.requestsPerSecond.on, 1)} |`,
    '',
    `**Cost of tracing in the services: ${fmt(t.servicesOverheadMsPerBundle, 2)} ms CPU per bundle (${fmt(t.servicesOverheadPercent, 1)} %)**; all processes: ${fmt(t.overheadMsPerBundle, 2)} ms (${fmt(t.overheadPercent, 1)} %; PostgreSQL, RabbitMQ and Redis are read by process name, so anything else running on the machine counts there). ${fmt(t.exportedBytesPerBundle)} bytes exported per bundle.`,
    '',
    'By process (medians), ms per bundle:',
    '',
    `| tracing | ${names.join(' | ')} |`,
    `|---|${names.map(() => '---').join('|')}|`,
    row('off'),
    row('on'),
    '',
  ];
}
