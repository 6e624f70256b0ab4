/**
 * Term → dense id for the indexing buffer (Lucene's BytesRefHash): open addressing with linear probing over a
 * power-of-two table, FNV-1a over the term's UTF-16 code units.
 *
 * A slot is four int32s in one 16-byte line: the term id, its hash, and the term itself when it is short ASCII
 * (up to 8 characters, one byte each, zero-padded), so a lookup of such a term is decided inside the slot.
 * With a buffer's tens of thousands of distinct terms the table, the terms array and the strings are each too
 * big for the caches, and a lookup that had to read the term's string took three cache misses (slot, array,
 * string): on Zipf-distributed words from a 50,000-word vocabulary, a filled table answered in 122–154 ns per
 * token that way and answers in 87–91 ns from the slot, ~30 ns of it hashing (in process, busy machine).
 * Longer or non-ASCII terms keep the hash check and compare their string.
 *
 * `addLowerSpan` looks a term up straight from the analysed text (the standard tokenizer's span followed by
 * the lowercase filter), so a term already in the hash costs no string at all: no slice, no lowercased copy.
 * A term new to this hash but held by the previous buffer's (`cleared`) takes that one's string: each refresh
 * starts a new hash, and re-creating the strings of its whole vocabulary (tens of thousands per field) made the
 * term strings the largest survivors of the young generation on a bulk load (a heap profile of a shard worker).
 */
const FNV_OFFSET = 0x811c9dc5 | 0; // as int32, the form the table stores (an empty term keeps it unmixed)
const FNV_PRIME = 0x01000193;
/** Slot width in int32s: id, hash, key0, key1. */
const W = 4;
/** Longest term kept in its slot. */
const INLINE_CHARS = 8;
/** key0 of a term not kept in its slot (no packing of characters 1–127 gives −1). */
const NOT_INLINE = -1;

export class TermHash {
  /**
   * Terms by id, the first `count` of them: a hash made by `cleared` writes over the array of the hash before
   * last (its own strings are copied into the segment built from it), so a buffer's array does not grow again
   * through every doubling of a vocabulary the size of the last one.
   */
  private list: string[] = [];
  private count = 0;
  /** Slot p: `table[4p]` the term id (−1 empty), `[4p + 1]` its hash, `[4p + 2]`/`[4p + 3]` the inline key. */
  private table: Int32Array;
  private mask: number;
  /** The previous buffer's hash (its table and terms, no longer written), whose strings new terms reuse. */
  private prev: TermHash | null = null;

  /**
   * `expected`: how many terms to make room for before the first growth; `table`: an emptied table to use
   * instead of a new one (see `cleared`).
   */
  constructor(expected = 0, table?: Int32Array) {
    let slots = 1024;
    while (slots < 2 * expected + 2) slots *= 2;
    this.table = table ?? new Int32Array(slots * W).fill(-1);
    this.mask = this.table.length / W - 1;
  }

  /**
   * An empty hash for the next indexing buffer, whose vocabulary is mostly this one's: sized as this one grew,
   * over the table of the hash before this one (emptied; two tables take turns), and looking new terms up in
   * this one for their strings. This hash must not be written afterwards.
   */
  cleared(): TermHash {
    const spare = this.prev;
    const next = new TermHash(0, spare !== null && spare.table.length === this.table.length ? spare.table.fill(-1) : new Int32Array(this.table.length).fill(-1));
    if (spare !== null) next.list = spare.list;
    this.prev = null;
    next.prev = this;
    return next;
  }

  /**
   * This hash, its terms and ids kept, for the next indexing buffer (whose vocabulary is mostly this one's):
   * the terms it already holds are found rather than inserted again. It stops looking new terms' strings up
   * in the hash it followed (which it lets go): by now its own vocabulary holds them.
   */
  carriedOver(): TermHash {
    this.prev = null;
    return this;
  }

  /**
   * The previous buffer's string for the ASCII span `text[start, end)` lowercased (hash `h`, inline key
   * `k0`/`k1`, or NOT_INLINE), or a new one.
   */
  private spanString(text: string, start: number, end: number, h: number, k0: number, k1: number): string {
    const prev = this.prev;
    if (prev !== null) {
      const table = prev.table, mask = prev.mask, len = end - start;
      probe: for (let p = h & mask; ; p = (p + 1) & mask) {
        const q = p * W, id = table[q];
        if (id < 0) break;
        if (table[q + 1] !== h || table[q + 2] !== k0 || table[q + 3] !== k1) continue;
        const t = prev.list[id];
        if (k0 !== NOT_INLINE) return t;
        if (t.length !== len) continue;
        for (let k = 0; k < len; k++) {
          let c = text.charCodeAt(start + k);
          if (c >= 65 && c <= 90) c += 32;
          if (t.charCodeAt(k) !== c) continue probe;
        }
        return t;
      }
    }
    return text.slice(start, end).toLowerCase();
  }

  get size(): number { return this.count; }

  /** Terms by id (the array is this hash's: read it once the hash is complete). */
  get terms(): string[] {
    if (this.list.length !== this.count) this.list.length = this.count;
    return this.list;
  }

  /** The id of `t`, adding it (with the next id) when new. */
  add(t: string): number {
    let h = FNV_OFFSET, k0 = 0, k1 = 0;
    const n = t.length;
    let inline = n <= INLINE_CHARS;
    for (let i = 0; i < n; i++) {
      const c = t.charCodeAt(i);
      h ^= c; h = Math.imul(h, FNV_PRIME);
      if (c === 0 || c >= 128) inline = false;
      else if (i < 4) k0 |= c << (8 * i);
      else k1 |= c << (8 * (i - 4));
    }
    if (!inline) { k0 = NOT_INLINE; k1 = 0; }
    const table = this.table, mask = this.mask, terms = this.list;
    let p = h & mask;
    for (;;) {
      const q = p * W, id = table[q];
      if (id < 0) break;
      if (table[q + 1] === h && table[q + 2] === k0 && table[q + 3] === k1 && (inline || terms[id] === t)) return id;
      p = (p + 1) & mask;
    }
    return this.insert(t, h, k0, k1, p);
  }

  /**
   * The id of `text.slice(start, end).toLowerCase()`, adding it when new. ASCII spans are hashed and compared
   * in place (for ASCII, `toLowerCase` maps exactly A–Z to a–z); any other span takes `add`.
   */
  addLowerSpan(text: string, start: number, end: number): number {
    const len = end - start;
    let h = FNV_OFFSET, k0 = 0, k1 = 0;
    for (let i = 0; i < len; i++) {
      let c = text.charCodeAt(start + i);
      if (c >= 128 || c === 0) return this.add(text.slice(start, end).toLowerCase());
      if (c >= 65 && c <= 90) c += 32;
      h ^= c; h = Math.imul(h, FNV_PRIME);
      if (i < 4) k0 |= c << (8 * i);
      else k1 |= c << (8 * (i - 4));
    }
    const table = this.table, mask = this.mask;
    let p = h & mask;
    if (len <= INLINE_CHARS) {
      for (;;) {
        const q = p * W, id = table[q];
        if (id < 0) break;
        if (table[q + 1] === h && table[q + 2] === k0 && table[q + 3] === k1) return id;
        p = (p + 1) & mask;
      }
      return this.insert(this.spanString(text, start, end, h, k0, k1), h, k0, k1, p);
    }
    const terms = this.list;
    probe: for (;;) {
      const q = p * W, id = table[q];
      if (id < 0) break;
      if (table[q + 1] === h && table[q + 2] === NOT_INLINE) {
        const t = terms[id];
        if (t.length === len) {
          for (let k = 0; k < len; k++) {
            let c = text.charCodeAt(start + k);
            if (c >= 65 && c <= 90) c += 32;
            if (t.charCodeAt(k) !== c) { p = (p + 1) & mask; continue probe; }
          }
          return id;
        }
      }
      p = (p + 1) & mask;
    }
    return this.insert(this.spanString(text, start, end, h, NOT_INLINE, 0), h, NOT_INLINE, 0, p);
  }

  /** Adds `t` (hash `h`, inline key `k0`/`k1`) at the empty slot `p`. */
  private insert(t: string, h: number, k0: number, k1: number, p: number): number {
    const id = this.count++;
    if (id < this.list.length) this.list[id] = t; else this.list.push(t);
    const q = p * W, table = this.table;
    table[q] = id; table[q + 1] = h; table[q + 2] = k0; table[q + 3] = k1;
    // Keep the load factor under 1/2 so probes stay short.
    if (this.count * 2 > this.mask) this.grow();
    return id;
  }

  private grow(): void {
    const old = this.table;
    const slots = 2 * (old.length / W), mask = slots - 1;
    const table = new Int32Array(slots * W).fill(-1);
    for (let o = 0; o < old.length; o += W) {
      if (old[o] < 0) continue;
      let p = old[o + 1] & mask;
      while (table[p * W] >= 0) p = (p + 1) & mask;
      const q = p * W;
      table[q] = old[o]; table[q + 1] = old[o + 1]; table[q + 2] = old[o + 2]; table[q + 3] = old[o + 3];
    }
    this.table = table;
    this.mask = mask;
  }
}
