import { metricSum } from './metrics-text';

describe('metricSum', () => {
  const text = [
    '# HELP webhook_deliveries_failed_total Attempts that failed',
    '# TYPE webhook_deliveries_failed_total counter',
    'webhook_deliveries_failed_total{reason="timeout"} 3',
    'webhook_deliveries_failed_total{reason="status"} 4',
    'webhook_deliveries_failed_total_extra 100',
    'nodejs_heap_size_used_bytes 1048576.5',
  ].join('\n');

  it('sums a metric over its label sets, and no other metric whose name it begins', () => {
    expect(metricSum(text, 'webhook_deliveries_failed_total')).toBe(7);
    expect(metricSum(text, 'nodejs_heap_size_used_bytes')).toBe(1048576.5);
  });

  it('is 0 for a metric the text does not have', () => {
    expect(metricSum(text, 'webhook_deliveries_succeeded_total')).toBe(0);
  });
});
