import { rateBackAt } from './broker-cluster';
import type { PostRecord } from './load';

/** 202s answered at `perSecond` per second from `from` to `to` (ms). */
function answered(from: number, to: number, perSecond: number): PostRecord[] {
  const posts: PostRecord[] = [];
  for (let at = from; at < to; at += 1_000 / perSecond) {
    posts.push({ identifier: String(at), sentAt: at - 50, answeredAt: at, status: 202, retryAfter: null });
  }
  return posts;
}

describe('when the POST rate was back after a fault', () => {
  it('is the first window at 80 % again after the fault’s dip', () => {
    const posts = [...answered(0, 10_000, 20), ...answered(12_000, 40_000, 20)];
    // Nothing answered from 10 s to 12 s: the 3 s window from 11.5 s holds 2.5 s at 20/s, 16.7/s.
    expect(rateBackAt(posts, 10_000, 16, 43_000)).toBe(11_500);
  });

  it('is the fault itself when the rate did not dip', () => {
    expect(rateBackAt(answered(0, 40_000, 20), 10_000, 16, 43_000)).toBe(10_000);
  });

  it('does not count a later dip against the fault', () => {
    const posts = [...answered(0, 25_000, 20), ...answered(30_000, 45_000, 20)];
    expect(rateBackAt(posts, 10_000, 16, 43_000)).toBe(10_000);
  });

  it('is undefined when the rate never came back', () => {
    expect(rateBackAt([...answered(0, 10_000, 20), ...answered(10_000, 45_000, 10)], 10_000, 16, 43_000)).toBeUndefined();
  });
});
