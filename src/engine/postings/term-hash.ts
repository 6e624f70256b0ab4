/**
 * Term → dense id for the indexing buffer (Lucene's BytesRefHash): open addressing with linear probing over a
 * power-of-two table, FNV-1a over the term's UTF-16 code units. Measured against a `Map<string, number>` on
 * Zipf-distributed words from a 50,000-word vocabulary (fresh token strings, as the tokenizer makes them):
 * 29 ns per lookup against 55–77 ns, and no per-entry objects.
 *
 * Each slot keeps the term's hash beside its id (one cache line per probe): a probe that meets another term
 * is rejected without reading that term's string, and growing the table rehashes no string. With a large
 * vocabulary those string reads were cache misses that made a lookup several times slower in the indexer
 * than in a microbenchmark.
 *
 * `addLowerSpan` looks a term up straight from the analysed text (the standard tokenizer's span followed by
 * the lowercase filter), so a term already in the hash costs no string at all: no slice, no lowercased copy.
 */
const FNV_OFFSET = 0x811c9dc5 | 0; // as int32, the form the table stores (an empty term keeps it unmixed)
const FNV_PRIME = 0x01000193;

export class TermHash {
  /** Terms by id. */
  readonly terms: string[] = [];
  /** Slot p: `table[2p]` the term id (-1 empty), `table[2p + 1]` its hash. */
  private table: Int32Array = new Int32Array(2048).fill(-1);
  private mask = 1023;

  get size(): number { return this.terms.length; }

  /** The id of `t`, adding it (with the next id) when new. */
  add(t: string): number {
    let h = FNV_OFFSET;
    for (let i = 0; i < t.length; i++) { h ^= t.charCodeAt(i); h = Math.imul(h, FNV_PRIME); }
    const table = this.table, mask = this.mask, terms = this.terms;
    let p = h & mask;
    for (;;) {
      const id = table[2 * p];
      if (id < 0) break;
      if (table[2 * p + 1] === h && terms[id] === t) return id;
      p = (p + 1) & mask;
    }
    return this.insert(t, h, p);
  }

  /**
   * The id of `text.slice(start, end).toLowerCase()`, adding it when new. ASCII spans are hashed and compared
   * in place (for ASCII, `toLowerCase` maps exactly A–Z to a–z); any other span takes `add`.
   */
  addLowerSpan(text: string, start: number, end: number): number {
    let h = FNV_OFFSET;
    for (let i = start; i < end; i++) {
      let c = text.charCodeAt(i);
      if (c >= 128) return this.add(text.slice(start, end).toLowerCase());
      if (c >= 65 && c <= 90) c += 32;
      h ^= c; h = Math.imul(h, FNV_PRIME);
    }
    const table = this.table, mask = this.mask, terms = this.terms, len = end - start;
    let p = h & mask;
    probe: for (;;) {
      const id = table[2 * p];
      if (id < 0) break;
      if (table[2 * p + 1] === h) {
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
    return this.insert(text.slice(start, end).toLowerCase(), h, p);
  }

  /** Adds `t` (hash `h`) at the empty slot `p`. */
  private insert(t: string, h: number, p: number): number {
    const id = this.terms.length;
    this.terms.push(t);
    this.table[2 * p] = id;
    this.table[2 * p + 1] = h;
    // Keep the load factor under 1/2 so probes stay short.
    if (this.terms.length * 2 > this.mask) this.grow();
    return id;
  }

  private grow(): void {
    const old = this.table;
    const cap = old.length, mask = cap - 1; // twice the slots: the table holds two words per slot
    const table = new Int32Array(2 * cap).fill(-1);
    for (let q = 0; q < old.length; q += 2) {
      const id = old[q];
      if (id < 0) continue;
      const h = old[q + 1];
      let p = h & mask;
      while (table[2 * p] >= 0) p = (p + 1) & mask;
      table[2 * p] = id;
      table[2 * p + 1] = h;
    }
    this.table = table;
    this.mask = mask;
  }
}
