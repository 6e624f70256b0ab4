/**
 * Persistence seam of the workflow engine. The engine keeps its state in memory and, after each batch of
 * work, writes every changed record plus the applied-event marks in ONE atomic commit — so an event's
 * effects and the record that it was processed are durable together (exactly-once across a crash).
 * `MemoryKv` backs unit tests; `lmdb-kv.ts` is the real backend.
 */

export interface KvWrite {
  space: string;
  key: string;
  /** Encoded value, or null to delete. */
  value: Uint8Array | null;
}

export interface KvBackend {
  /** Every record of a space in key order. */
  load(space: string): Iterable<[string, Uint8Array]>;
  /** Applies all writes atomically; resolves once durable. */
  commit(writes: KvWrite[]): Promise<void>;
  close(): Promise<void>;
}

/** In-memory backend; `clone()` simulates a restart from what was committed. */
export class MemoryKv implements KvBackend {
  private readonly spaces = new Map<string, Map<string, Uint8Array>>();
  commits = 0;

  *load(space: string): Iterable<[string, Uint8Array]> {
    const m = this.spaces.get(space);
    if (!m) return;
    const keys = [...m.keys()].sort();
    for (const k of keys) yield [k, m.get(k)!];
  }

  async commit(writes: KvWrite[]): Promise<void> {
    for (const w of writes) {
      let m = this.spaces.get(w.space);
      if (!m) { m = new Map(); this.spaces.set(w.space, m); }
      if (w.value === null) m.delete(w.key); else m.set(w.key, w.value);
    }
    this.commits++;
  }

  async close(): Promise<void> {}
}
