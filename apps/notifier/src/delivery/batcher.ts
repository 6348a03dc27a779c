export interface BatcherSettings {
  /** Most items one write takes; the rest wait for the next. */
  maxBatch: number;
  /**
   * How long the first item of an idle batcher waits for others to join it (ms). Under load batches
   * form by themselves: what arrives while one write runs is the next batch.
   */
  windowMs: number;
}

interface Waiting<T> {
  item: T;
  resolve(): void;
  reject(error: unknown): void;
}

/**
 * Collects items and writes them in batches, one write at a time, in the order they were added
 * (the same scheme as libs/messaging's BatchConsumer, for work that does not come from a queue).
 * `add` resolves once the item's batch was written, and rejects with the write's error.
 *
 * Written here rather than taken from a library: the well-known batching packages (dataloader and
 * the like) batch keyed reads per event-loop tick, without a size bound, a time window or the "one
 * write at a time, the next batch forms meanwhile" rule that keeps statements few under load.
 */
export class Batcher<T> {
  private readonly waiting: Waiting<T>[] = [];
  private writing?: Promise<void>;
  private timer?: NodeJS.Timeout;

  constructor(
    private readonly write: (items: T[]) => Promise<void>,
    private readonly settings: BatcherSettings,
  ) {}

  add(item: T): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiting.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.writing) return; // taken up when the running write ends
    if (this.waiting.length >= this.settings.maxBatch) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.startWrite();
      return;
    }
    this.timer ??= setTimeout(() => {
      this.timer = undefined;
      this.startWrite();
    }, this.settings.windowMs);
  }

  private startWrite(): void {
    if (this.writing || this.waiting.length === 0) return;
    const batch = this.waiting.splice(0, this.settings.maxBatch);
    this.writing = this.write(batch.map((entry) => entry.item))
      .then(
        () => batch.forEach((entry) => entry.resolve()),
        (error: unknown) => batch.forEach((entry) => entry.reject(error)),
      )
      .finally(() => {
        this.writing = undefined;
        // What arrived meanwhile has waited long enough.
        this.startWrite();
      });
  }
}
