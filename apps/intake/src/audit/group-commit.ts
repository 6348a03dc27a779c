/**
 * Group commit for the audit entries of reads. Every read is answered only once its entry is
 * committed, and the entries of one day are appended one transaction at a time (the chain is one
 * line), so a transaction per read would cap reads at one commit each: about 1,250 a second on the
 * development machine (pgbench: advisory lock, insert, commit, 8 clients). Instead, entries that
 * arrive while an append is running wait for the next one, which takes all of them together: one
 * statement and one commit per turn, whatever the number of reads.
 *
 * An append that fails fails every record of its turn (the reads answer 503); the next turn is
 * tried afresh.
 */
export class GroupCommit<T> {
  private waiting: { items: readonly T[]; settle: (error?: unknown) => void }[] = [];
  private running = false;

  constructor(
    private readonly commit: (items: readonly T[]) => Promise<void>,
    /** At most this many items per turn; the rest wait for the next one. */
    private readonly maxItems = 1000,
  ) {}

  /** Resolves once `items` are committed; rejects with the commit's error. */
  add(items: readonly T[]): Promise<void> {
    if (items.length === 0) return Promise.resolve();
    return new Promise((resolve, reject) => {
      this.waiting.push({ items, settle: (error) => (error === undefined ? resolve() : reject(error)) });
      if (!this.running) void this.drain();
    });
  }

  private async drain(): Promise<void> {
    this.running = true;
    while (this.waiting.length > 0) {
      const turn = this.takeTurn();
      let failure: unknown;
      try {
        await this.commit(turn.flatMap((waiter) => waiter.items));
      } catch (error) {
        failure = error ?? new Error('the audit entries could not be stored');
      }
      for (const waiter of turn) waiter.settle(failure);
    }
    this.running = false;
  }

  /** The waiting records up to maxItems items (always at least one record, however large). */
  private takeTurn() {
    let items = 0;
    let taken = 0;
    for (const waiter of this.waiting) {
      if (taken > 0 && items + waiter.items.length > this.maxItems) break;
      items += waiter.items.length;
      taken += 1;
    }
    return this.waiting.splice(0, taken);
  }
}
