/**
 * The time source of the rule scheduler. The system clock uses timers; the manual clock lets tests step
 * time and waits for every evaluation it triggers to finish, so a test reads state deterministically.
 */
export interface Clock {
  now(): number;
  /** Calls `fn` at `atMs` (or soon after); returns a cancel function. */
  setTimer(atMs: number, fn: () => Promise<void> | void): () => void;
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimer(atMs, fn) {
    // setTimeout overflows above 2^31-1 ms; the scheduler never waits that long (intervals are short).
    const h = setTimeout(() => { void fn(); }, Math.min(Math.max(0, atMs - Date.now()), 0x7fffffff));
    return () => clearTimeout(h);
  },
};

interface Timer { at: number; seq: number; fn: () => Promise<void> | void }

export class ManualClock implements Clock {
  private t: number;
  private seq = 0;
  private timers: Timer[] = [];
  constructor(startMs: number) { this.t = startMs; }

  now(): number { return this.t; }

  setTimer(atMs: number, fn: () => Promise<void> | void): () => void {
    const timer: Timer = { at: atMs, seq: this.seq++, fn };
    this.timers.push(timer);
    return () => { this.timers = this.timers.filter((x) => x !== timer); };
  }

  /** Moves time forward to `ms`, firing due timers in time order and awaiting each callback. */
  async advanceTo(ms: number): Promise<void> {
    for (;;) {
      let next: Timer | null = null;
      for (const x of this.timers) if (x.at <= ms && (!next || x.at < next.at || (x.at === next.at && x.seq < next.seq))) next = x;
      if (!next) break;
      this.timers = this.timers.filter((x) => x !== next);
      if (next.at > this.t) this.t = next.at;
      await next.fn();
    }
    if (ms > this.t) this.t = ms;
  }

  advance(ms: number): Promise<void> { return this.advanceTo(this.t + ms); }

  /** Timers still scheduled (for tests). */
  pending(): number { return this.timers.length; }
}
