/**
 * Persistence seam of the workflow engine (docs/format.md "Workflow state"). The engine reads records on
 * demand (`get`, ordered `range` over index spaces) and, after each batch of work, writes every changed
 * record in ONE atomic commit — an event's effects are durable together or not at all. `MemoryKv` backs
 * unit tests; `lmdb-kv.ts` is the real backend (one LMDB environment per engine partition).
 */
import { decodeValue, encodeValue } from './values.ts';

export interface KvWrite {
  space: string;
  key: string;
  /** The stored value (`values.ts` `encodeValue`: its leading byte, then msgpack), or null to delete. */
  value: Uint8Array | null;
}

/** Totals since the backend was opened: transactions, ms inside them, ms syncing to disk, pages written. */
export interface KvCommitMetrics {
  txns: number; txnMs: number; syncMs: number; pagesWritten: number;
  /** Fsyncs of the commit log (layout 5), when there is one. */
  logSyncs?: number;
}

export interface KvBackend {
  /** The committed, decoded value of `key` in `space`, or undefined. */
  get(space: string, key: string): unknown;
  /** Committed entries with `start <= key < end`, in key order, decoded lazily; stops after `limit`. */
  range(space: string, start: string, end: string, limit: number): Iterable<[string, unknown]>;
  /** Applies all writes atomically; resolves once durable. */
  commit(writes: KvWrite[]): Promise<void>;
  /**
   * Resolves once every commit made so far is readable through `get` and `range`. Without it, a commit is
   * readable once it is durable; with a commit log (lmdb-kv.ts) it may be durable first and readable later.
   */
  applied?(): Promise<void>;
  /** The store's own accounting of its commits (LMDB: time writing and syncing), when it keeps one. */
  commitMetrics?(): KvCommitMetrics;
  close(): Promise<void>;
}

/** In-memory backend for engine unit tests; `reopen()` gives what a restart would see (committed data). */
export class MemoryKv implements KvBackend {
  private readonly spaces = new Map<string, Map<string, Uint8Array>>();
  commits = 0;

  get(space: string, key: string): unknown {
    const v = this.spaces.get(space)?.get(key);
    return v === undefined ? undefined : decodeValue(v, `${space} ${key}`);
  }

  *range(space: string, start: string, end: string, limit: number): Iterable<[string, unknown]> {
    const m = this.spaces.get(space);
    if (!m) return;
    // Sorting per call is fine for tests; the LMDB backend iterates its B-tree.
    const keys = [...m.keys()].filter((k) => k >= start && k < end).sort(byteOrder);
    for (let i = 0; i < keys.length && i < limit; i++) yield [keys[i], decodeValue(m.get(keys[i])!, `${space} ${keys[i]}`)];
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

/** LMDB compares keys as bytes: UTF-8 order, which for these keys equals UTF-16 order except surrogates. */
export function byteOrder(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

export { encodeValue as packValue };
