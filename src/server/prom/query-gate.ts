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

/**
 * One query's gate slot, held by the query and by each evaluation it hands to a query thread (two when its
 * steps are evaluated in halves): released once the last holder lets go, since a cancelled evaluation's
 * thread can still be busy after the query was answered. The query is the first holder (`letGo`).
 */
export class SharedSlot {
  private holders = 1;
  constructor(private readonly release: () => void) {}

  /** One more holder; the function returned lets go of its hold (once; calling it again does nothing). */
  hold(): () => void {
    this.holders++;
    let held = true;
    return () => { if (held) { held = false; this.letGo(); } };
  }

  /** The query's own hold let go (call once). */
  letGo(): void { if (--this.holders === 0) this.release(); }
}
