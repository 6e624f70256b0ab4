/**
 * A hash table from byte strings to dense ids (0, 1, 2, … in insertion order), for keys that arrive as
 * ranges of a larger buffer: looking one up hashes and compares the bytes in place, so a hit creates no
 * string and no object. The scrape loop keys its per-target cache on the series text of each line this way,
 * as Prometheus's `scrapeCache` keys on the raw series bytes.
 *
 * Keys are copied into one growing arena; slots are open-addressed with linear probing and hold id + 1.
 * There is no delete: `compact` rebuilds the table with the ids a caller keeps and returns their new ids.
 */

const EMPTY = 0;

export class ByteKeyTable {
  private arena = new Uint8Array(1 << 16);
  private arenaUsed = 0;
  private starts = new Int32Array(1024);
  private lengths = new Int32Array(1024);
  private hashes = new Int32Array(1024);
  private slots = new Int32Array(2048);
  private count = 0;

  get size(): number { return this.count; }

  /** The id of `b[from, to)`, or -1. `hash` is `hashBytes(b, from, to)`. */
  find(b: Uint8Array, from: number, to: number, hash: number): number {
    const slots = this.slots, mask = slots.length - 1, len = to - from;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const s = slots[i];
      if (s === EMPTY) return -1;
      const id = s - 1;
      if (this.hashes[id] === hash && this.lengths[id] === len && this.equals(id, b, from, len)) return id;
    }
  }

  /** Adds `b[from, to)` (not present) and returns its id. */
  insert(b: Uint8Array, from: number, to: number, hash: number): number {
    const len = to - from;
    const id = this.count++;
    if (id === this.starts.length) this.growEntries();
    if (this.arenaUsed + len > this.arena.length) this.growArena(len);
    this.arena.set(b.subarray(from, to), this.arenaUsed);
    this.starts[id] = this.arenaUsed;
    this.lengths[id] = len;
    this.hashes[id] = hash;
    this.arenaUsed += len;
    if (this.count * 2 > this.slots.length) this.rehash(this.slots.length * 2);
    else this.place(id, hash);
    return id;
  }

  /**
   * Keeps the ids for which `keep(id)` is true, renumbered densely in their old order; returns the new id of
   * each old id (-1 for dropped ones).
   */
  compact(keep: (id: number) => boolean): Int32Array {
    const remap = new Int32Array(this.count).fill(-1);
    const arena = new Uint8Array(Math.max(1 << 16, this.arenaUsed));
    let used = 0, n = 0;
    for (let id = 0; id < this.count; id++) {
      if (!keep(id)) continue;
      const s = this.starts[id], len = this.lengths[id];
      arena.set(this.arena.subarray(s, s + len), used);
      this.starts[n] = used;
      this.lengths[n] = len;
      this.hashes[n] = this.hashes[id];
      remap[id] = n++;
      used += len;
    }
    this.arena = arena;
    this.arenaUsed = used;
    this.count = n;
    let cap = 2048;
    while (cap < n * 2) cap *= 2;
    this.rehash(cap);
    return remap;
  }

  private equals(id: number, b: Uint8Array, from: number, len: number): boolean {
    const a = this.arena, s = this.starts[id];
    for (let k = 0; k < len; k++) if (a[s + k] !== b[from + k]) return false;
    return true;
  }

  private place(id: number, hash: number): void {
    const slots = this.slots, mask = slots.length - 1;
    let i = hash & mask;
    while (slots[i] !== EMPTY) i = (i + 1) & mask;
    slots[i] = id + 1;
  }

  private rehash(capacity: number): void {
    this.slots = new Int32Array(capacity);
    for (let id = 0; id < this.count; id++) this.place(id, this.hashes[id]);
  }

  private growEntries(): void {
    const n = this.starts.length * 2;
    const grow = (a: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => { const b = new Int32Array(n); b.set(a); return b; };
    this.starts = grow(this.starts);
    this.lengths = grow(this.lengths);
    this.hashes = grow(this.hashes);
  }

  private growArena(need: number): void {
    let n = this.arena.length * 2;
    while (n < this.arenaUsed + need) n *= 2;
    const a = new Uint8Array(n);
    a.set(this.arena.subarray(0, this.arenaUsed));
    this.arena = a;
  }
}

/** 32-bit FNV-1a over `b[from, to)`, mixed at the end so that low bits (the slot index) depend on every byte. */
export function hashBytes(b: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < to; i++) h = Math.imul(h ^ b[i], 0x01000193);
  h ^= h >>> 15;
  h = Math.imul(h, 0x2c1b3c6d);
  h ^= h >>> 12;
  return h | 0;
}
