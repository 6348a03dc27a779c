import { metricFamilyOf, metricNamesIn } from './monitoring-expressions';

describe('metricNamesIn', () => {
  it('finds a bare selector, one with matchers and one with a range', () => {
    expect(metricNamesIn('up == 0')).toEqual(['up']);
    expect(metricNamesIn('up')).toEqual(['up']);
    expect(metricNamesIn('rate(http_requests_total{job=~"bedrequest-.+", status=~"5.."}[5m])')).toEqual(['http_requests_total']);
  });

  it('skips functions, aggregations, grouping labels and keywords, also when written with spaces', () => {
    const expr = `sum by (job) (rate(a_total{x="1"}[5m])) / on (job) group_left (service) sum without (le) (rate (b_total[$__rate_interval])) > bool 0.05
      and deriv(max(c_gauge)[15m:1m]) > 0 unless d offset 5m or absent(e) * Inf`;
    expect(metricNamesIn(expr)).toEqual(['a_total', 'b_total', 'c_gauge', 'd', 'e']);
  });

  it('ignores what is inside strings and label matchers, and numbers with exponents', () => {
    expect(metricNamesIn('label_replace(m1{route="/api/v2/fhir/Bundle", le="+Inf"}, "dst", "$1 x ", "src", "(.*)") > 1e3')).toEqual(['m1']);
    expect(metricNamesIn('histogram_quantile(0.99, sum by (le) (rate(h_bucket{job="$job"}[5m])))')).toEqual(['h_bucket']);
  });
});

describe('metricFamilyOf', () => {
  it("names a histogram's series by their family", () => {
    expect(['h_bucket', 'h_sum', 'h_count', 'http_requests_total'].map(metricFamilyOf)).toEqual(['h', 'h', 'h', 'http_requests_total']);
  });
});
