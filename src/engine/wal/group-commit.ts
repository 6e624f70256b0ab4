/**
 * Group commit, the queue both WAL writers share: entries are queued in call order; one write loop at a time
 * takes everything queued as one batch, writes and fsyncs it (the writer's `writeBatch`), then settles every
 * entry of the batch. Entries queued while a batch is being written form the next batch, so under concurrency
 * many appends share one fsync. A failed batch latches the queue failed (after a failed fsync the state of the
 * page cache is unknown, cf. "fsyncgate"): that batch and every later entry reject.
 */
interface Queued<E, R> { entry: E; resolve: (r: R) => void; reject: (err: unknown) => void }

export class GroupCommit<E, R> {
  private queue: Queued<E, R>[] = [];
  private flushing: Promise<void> | null = null;
  /** The error that failed a batch, or null. */
  failure: unknown = null;

  /** `laterError` is what entries queued after the failure reject with (default: the failure itself). */
  constructor(
    private readonly writeBatch: (entries: E[]) => Promise<R[]>,
    private readonly laterError: (failure: unknown) => unknown = (f) => f,
  ) {}

  push(entry: E): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.queue.push({ entry, resolve, reject });
      // Starting the loop on a microtask lets every call of the current synchronous run join the first batch.
      if (!this.flushing) this.flushing = Promise.resolve().then(() => this.loop());
    });
  }

  /** True when nothing is queued or being written: every entry pushed so far is settled. */
  idle(): boolean {
    return this.flushing === null;
  }

  /** Resolves when the loop next runs dry (entries pushed meanwhile are written first). */
  async drain(): Promise<void> {
    while (this.flushing) await this.flushing;
  }

  private async loop(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue;
      this.queue = [];
      if (this.failure !== null) {
        const err = this.laterError(this.failure);
        for (const q of batch) q.reject(err);
        continue;
      }
      try {
        const out = await this.writeBatch(batch.map((q) => q.entry));
        for (let i = 0; i < batch.length; i++) batch[i].resolve(out[i]);
      } catch (err) {
        this.failure = err;
        for (const q of batch) q.reject(err);
      }
    }
    this.flushing = null;
  }
}
