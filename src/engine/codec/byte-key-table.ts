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
/** Per-entry record: start in the arena, length, hash, and one int the caller may use (`user`). */
const META = 4;

export class ByteKeyTable {
  private arena = new Uint8Array(1 << 16);
  private arenaUsed = 0;
  // Invariant: one record per id, so a lookup reads one cache line of metadata, not one line per field
  // (at 100,000 keys separate arrays cost a cache miss each).
  private meta = new Int32Array(1024 * META);
  // Slot pairs [id + 1, hash]: a probe that meets another key is told apart by the hash in the slot itself.
  private slots = new Int32Array(2048 * 2);
  private count = 0;

  get size(): number { return this.count; }

  /** The id of `b[from, to)`, or -1. `hash` is `hashBytes(b, from, to)`. */
  find(b: Uint8Array, from: number, to: number, hash: number): number {
    const slots = this.slots, mask = (slots.length >> 1) - 1, len = to - from;
    for (let i = hash & mask; ; i = (i + 1) & mask) {
      const s = slots[2 * i];
      if (s === EMPTY) return -1;
      if (slots[2 * i + 1] !== hash) continue;
      const id = s - 1;
      if (this.meta[id * META + 1] === len && this.equals(id, b, from, len)) return id;
    }
  }

  /**
   * The length of key `id` when `b` holds its bytes at `from` (whatever follows them), else -1: one byte
   * comparison, no hash, and the caller need not know where the key would end. For callers that can guess the
   * id (keys arriving in the same order as before); -1 for an id not in the table.
   */
  prefixLength(id: number, b: Uint8Array, from: number): number {
    if (id < 0 || id >= this.count) return -1;
    const len = this.meta[id * META + 1];
    return from + len <= b.length && this.equals(id, b, from, len) ? len : -1;
  }

  /** Adds `b[from, to)` (not present) and returns its id; its `user` value starts at 0. */
  insert(b: Uint8Array, from: number, to: number, hash: number): number {
    const len = to - from;
    const id = this.count++;
    if ((id + 1) * META > this.meta.length) this.growEntries();
    if (this.arenaUsed + len > this.arena.length) this.growArena(len);
    this.arena.set(b.subarray(from, to), this.arenaUsed);
    const m = id * META;
    this.meta[m] = this.arenaUsed;
    this.meta[m + 1] = len;
    this.meta[m + 2] = hash;
    this.meta[m + 3] = 0;
    this.arenaUsed += len;
    if (this.count * 2 > this.slots.length >> 1) this.rehash(this.slots.length);
    else this.place(id, hash);
    return id;
  }

  /** The key bytes of `id` (a view of the arena, valid until the next insert or compact). */
  bytes(id: number): Uint8Array {
    const m = id * META;
    return this.arena.subarray(this.meta[m], this.meta[m] + this.meta[m + 1]);
  }

  /** The hash `id` was inserted with. */
  hash(id: number): number { return this.meta[id * META + 2]; }

  /** The caller's int stored with `id` (e.g. when the key was last seen): beside the key, so it costs no extra miss. */
  user(id: number): number { return this.meta[id * META + 3]; }

  setUser(id: number, v: number): void { this.meta[id * META + 3] = v; }

  /**
   * Keeps the ids for which `keep(id)` is true, renumbered densely in their old order (with their `user`
   * values); returns the new id of each old id (-1 for dropped ones).
   */
  compact(keep: (id: number) => boolean): Int32Array {
    const remap = new Int32Array(this.count).fill(-1);
    const arena = new Uint8Array(Math.max(1 << 16, this.arenaUsed));
    const meta = this.meta;
    let used = 0, n = 0;
    for (let id = 0; id < this.count; id++) {
      if (!keep(id)) continue;
      const m = id * META, s = meta[m], len = meta[m + 1], to = n * META;
      arena.set(this.arena.subarray(s, s + len), used);
      meta[to] = used;
      meta[to + 1] = len;
      meta[to + 2] = meta[m + 2];
      meta[to + 3] = meta[m + 3];
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
    const a = this.arena, s = this.meta[id * META];
    for (let k = 0; k < len; k++) if (a[s + k] !== b[from + k]) return false;
    return true;
  }

  private place(id: number, hash: number): void {
    const slots = this.slots, mask = (slots.length >> 1) - 1;
    let i = hash & mask;
    while (slots[2 * i] !== EMPTY) i = (i + 1) & mask;
    slots[2 * i] = id + 1;
    slots[2 * i + 1] = hash;
  }

  /** Rebuilds the slots with room for `capacity` of them. */
  private rehash(capacity: number): void {
    this.slots = new Int32Array(capacity * 2);
    for (let id = 0; id < this.count; id++) this.place(id, this.meta[id * META + 2]);
  }

  private growEntries(): void {
    const m = new Int32Array(this.meta.length * 2);
    m.set(this.meta);
    this.meta = m;
  }

  private growArena(need: number): void {
    let n = this.arena.length * 2;
    while (n < this.arenaUsed + need) n *= 2;
    const a = new Uint8Array(n);
    a.set(this.arena.subarray(0, this.arenaUsed));
    this.arena = a;
  }
}

/**
 * MurmurHash3 (x86, 32-bit) over `b[from, to)`: four bytes per step, a quarter of the multiply chain of a
 * byte-at-a-time hash (series keys are 30-100 bytes and hashed once per sample), and a final avalanche so
 * that the low bits (the slot index) depend on every byte.
 */
export function hashBytes(b: Uint8Array, from: number, to: number): number {
  let h = 0x811c9dc5, i = from;
  const end4 = to - ((to - from) & 3);
  for (; i < end4; i += 4) {
    let k = b[i] | (b[i + 1] << 8) | (b[i + 2] << 16) | (b[i + 3] << 24);
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
    h = (h << 13) | (h >>> 19);
    h = (Math.imul(h, 5) + 0xe6546b64) | 0;
  }
  const rest = to - i;
  if (rest > 0) {
    let k = b[i];
    if (rest > 1) k |= b[i + 1] << 8;
    if (rest > 2) k |= b[i + 2] << 16;
    k = Math.imul(k, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    h ^= Math.imul(k, 0x1b873593);
  }
  h ^= to - from;
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h | 0;
}
