import { MAX_RETRY_AFTER_MS, RetryPolicy, parseRetryAfter } from './retry-policy';

const DEFAULT_SCHEDULE = [5_000, 30_000, 120_000, 600_000, 1_800_000, 3_600_000, 7_200_000, 14_400_000, 28_800_000, 28_800_000];
const answered = (statusCode: number, retryAfter?: string) => ({ kind: 'answered' as const, statusCode, retryAfter });
const timeout = { kind: 'no-answer' as const, reason: 'timeout' as const, error: 'no answer within 10000 ms' };

describe('RetryPolicy', () => {
  const exact = new RetryPolicy(DEFAULT_SCHEDULE, () => 0.5);

  it.each([200, 201, 202, 204, 299])('counts %i as delivered', (status) => {
    expect(exact.nextStep(answered(status), 1)).toEqual({ kind: 'delivered' });
  });

  it('retries after each delay of the schedule in turn, then gives up after the 11th attempt', () => {
    const delays = DEFAULT_SCHEDULE.map((_, index) => exact.nextStep(answered(500), index + 1));
    expect(delays).toEqual(DEFAULT_SCHEDULE.map((delayMs) => ({ kind: 'retry', delayMs })));
    expect(exact.nextStep(answered(500), 11)).toEqual({ kind: 'exhausted' });
    // ≈ 24 h in all (docs/decisions.md).
    expect(DEFAULT_SCHEDULE.reduce((sum, delay) => sum + delay, 0) / 3_600_000).toBeCloseTo(23.7, 1);
  });

  it.each([[301], [302], [307], [400], [401], [404], [500], [502]])('retries after %i', (status) => {
    expect(exact.nextStep(answered(status), 1)).toEqual({ kind: 'retry', delayMs: 5_000 });
  });

  it('retries when no answer came', () => {
    expect(exact.nextStep(timeout, 2)).toEqual({ kind: 'retry', delayMs: 30_000 });
  });

  it('jitters each delay by at most ±10 %', () => {
    expect(new RetryPolicy([10_000], () => 0).nextStep(timeout, 1)).toEqual({ kind: 'retry', delayMs: 9_000 });
    expect(new RetryPolicy([10_000], () => 0.999999).nextStep(timeout, 1)).toEqual({ kind: 'retry', delayMs: 11_000 });
  });

  it('disables the subscription on 410 Gone', () => {
    expect(exact.nextStep(answered(410), 1)).toEqual({ kind: 'disable-subscription', reason: 'the receiver answered 410 Gone' });
  });

  it.each([429, 503])('waits as long as Retry-After asks after %i', (status) => {
    expect(exact.nextStep(answered(status, '120'), 1)).toEqual({ kind: 'retry', delayMs: 120_000 });
  });

  it('keeps the scheduled delay when Retry-After asks for less', () => {
    expect(exact.nextStep(answered(429, '1'), 2)).toEqual({ kind: 'retry', delayMs: 30_000 });
  });

  it('ignores Retry-After on other statuses', () => {
    expect(exact.nextStep(answered(500, '120'), 1)).toEqual({ kind: 'retry', delayMs: 5_000 });
  });

  it('clamps Retry-After to 24 h', () => {
    expect(exact.nextStep(answered(503, String(7 * 24 * 3600)), 1)).toEqual({ kind: 'retry', delayMs: MAX_RETRY_AFTER_MS });
  });

  it('gives up when the schedule is used up, whatever Retry-After says', () => {
    expect(new RetryPolicy([]).nextStep(answered(429, '5'), 1)).toEqual({ kind: 'exhausted' });
  });
});

describe('parseRetryAfter', () => {
  const now = Date.parse('2025-03-01T12:00:00Z');

  it('reads delay-seconds', () => {
    expect(parseRetryAfter('30', now)).toBe(30_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
  });

  it('reads an HTTP-date', () => {
    expect(parseRetryAfter('Sat, 01 Mar 2025 12:01:30 GMT', now)).toBe(90_000);
  });

  it('treats a date in the past as "now"', () => {
    expect(parseRetryAfter('Sat, 01 Mar 2025 11:00:00 GMT', now)).toBe(0);
  });

  it.each([undefined, '', 'soon', '-5', '1.5'])('ignores %j', (value) => {
    expect(parseRetryAfter(value, now)).toBeUndefined();
  });
});
