/**
 * Runs tasks that share a key one after another, in the order they were submitted; tasks with
 * different keys run concurrently. The broker hands a consumer its messages in queue order but runs
 * their handlers concurrently (up to the prefetch), so without this two events of one referrer could
 * commit, and get their sequence numbers, in the opposite order.
 */
export class KeyedSerialQueue {
  private readonly tails = new Map<string, Promise<unknown>>();

  run<T>(key: string, task: () => Promise<T>): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    // After the previous task, whether it succeeded or not (a failed one is redelivered later anyway).
    const result = previous.then(task, task);
    const tail = result.catch(() => undefined);
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }
}
