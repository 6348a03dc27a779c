/**
 * The sum of a metric's samples over all its label sets, from the Prometheus text a service's
 * `GET /metrics` answers (0 when it has none): a counter whose failures carry a reason label, a
 * gauge prom-client reports per heap space.
 */
export function metricSum(metricsText: string, name: string): number {
  return [...metricsText.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, 'gm'))].reduce((total, match) => total + Number(match[1]), 0);
}
