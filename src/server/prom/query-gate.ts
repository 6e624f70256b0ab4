/**
 * `--query.max-concurrency`: at most `max` PromQL queries evaluate at once; the rest wait in arrival order
 * (Prometheus's `ActiveQueryTracker` gate), and a waiter whose signal aborts (deadline, client gone) leaves
 * the queue with the signal's reason. While anyone waits the node is overloaded, which `/-/ready` reports.
 */
interface Waiter { grant: () => void }

export class QueryGate {
  private active = 0;
  private readonly waiters: Waiter[] = [];

  constructor(readonly max: number) {}

  /** Queries waiting for a slot. */
  get waiting(): number { return this.waiters.length; }
  get running(): number { return this.active; }

  /** Resolves with the slot's release function (call it exactly once), or rejects with `signal.reason`. */
  acquire(signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(signal.reason);
    if (this.active < this.max) { this.active++; return Promise.resolve(this.releaser()); }
    return new Promise((resolve, reject) => {
      const onAbort = (): void => {
        const i = this.waiters.indexOf(w);
        if (i >= 0) this.waiters.splice(i, 1);
        reject(signal.reason);
      };
      const w: Waiter = {
        grant: () => { signal.removeEventListener('abort', onAbort); resolve(this.releaser()); },
      };
      this.waiters.push(w);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  private releaser(): () => void {
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The slot passes straight to the oldest waiter, so `active` only drops when nobody waits.
      const next = this.waiters.shift();
      if (next) next.grant(); else this.active--;
    };
  }
}
