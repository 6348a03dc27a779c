import type { Response } from 'express';

/** How a held answer ended: the caller hung up (its timeout), the hold ran out, or the web app is stopping. */
export type HoldEnd = 'caller-gave-up' | 'elapsed' | 'released';

/**
 * The answers the inspector holds back to make the caller time out (fail-next "timeout"): each is a
 * timer and a listener, no work, so holding never blocks other requests. A stopping web app releases
 * them all first, so that its HTTP server is not kept open by them; an answer that comes to be held
 * after that (its delivery was being recorded meanwhile) is released at once.
 */
export class HeldAnswers {
  private readonly releases = new Set<() => void>();
  private stopping = false;

  /** Waits until the caller closes the connection, `ms` have passed, or releaseAll. */
  hold(res: Response, ms: number): Promise<HoldEnd> {
    if (this.stopping) return Promise.resolve('released');
    return new Promise((resolve) => {
      const end = (how: HoldEnd) => {
        clearTimeout(timer);
        res.off('close', hungUp);
        this.releases.delete(release);
        resolve(how);
      };
      const timer = setTimeout(() => end('elapsed'), ms);
      const hungUp = () => end('caller-gave-up');
      const release = () => end('released');
      res.once('close', hungUp);
      this.releases.add(release);
    });
  }

  releaseAll(): void {
    this.stopping = true;
    for (const release of [...this.releases]) release();
  }
}
