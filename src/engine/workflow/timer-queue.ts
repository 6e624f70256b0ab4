/**
 * In-memory index over the persisted timer table: a binary min-heap of (fireAt, timer id) for pending
 * timers with a fire time, and a per-channel set of countdown timers so that a channel's `startTime`
 * change touches only its own timers. Entries are invalidated lazily: a popped entry counts only if the
 * timer is still pending with that same fireAt (a reschedule pushes a new entry instead of sifting).
 */

export class TimerHeap {
  private at: number[] = [];
  private ids: string[] = [];

  get size(): number { return this.at.length; }

  push(fireAt: number, id: string): void {
    const at = this.at, ids = this.ids;
    let i = at.length;
    at.push(fireAt); ids.push(id);
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (at[p] <= fireAt) break;
      at[i] = at[p]; ids[i] = ids[p];
      i = p;
    }
    at[i] = fireAt; ids[i] = id;
  }

  peekAt(): number { return this.at.length ? this.at[0] : Infinity; }
  peekId(): string | undefined { return this.ids[0]; }

  pop(): void {
    const at = this.at, ids = this.ids;
    const lastAt = at.pop()!, lastId = ids.pop()!;
    const n = at.length;
    if (n === 0) return;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const c = r < n && at[r] < at[l] ? r : l;
      if (at[c] >= lastAt) break;
      at[i] = at[c]; ids[i] = ids[c];
      i = c;
    }
    at[i] = lastAt; ids[i] = lastId;
  }
}

/** Multimap key → set of timer ids (channel → countdowns, workflow → held, run → timers). */
export class TimerIndex {
  private readonly m = new Map<string, Set<string>>();
  add(key: string, id: string): void {
    let s = this.m.get(key);
    if (!s) { s = new Set(); this.m.set(key, s); }
    s.add(id);
  }
  remove(key: string, id: string): void {
    const s = this.m.get(key);
    if (!s) return;
    s.delete(id);
    if (s.size === 0) this.m.delete(key);
  }
  get(key: string): string[] { const s = this.m.get(key); return s ? [...s] : []; }
}
