/**
 * A Bloom filter over a segment's `_id`s (docs/format.md "Document segments", in `.tip`), so a write of a new
 * id (the common case: bulk loads) checks every segment without reading any `_id` block. About 10 bits and 7
 * probes per id: ~1% false positives, 1.25 bytes of memory per document.
 *
 * Probes use double hashing over two 32-bit hashes of the id's UTF-16 code units (FNV-1a and a
 * multiply-xorshift mix); bit i of the filter is bit (i & 31) of word i >>> 5.
 */

const BITS_PER_KEY = 10;
const PROBES = 7;

/** First probe hash of an id (computed once per lookup, shared by every segment's filter). */
export function bloomHash1(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193); }
  return h >>> 0;
}

/** Second (odd) probe hash of an id. */
export function bloomHash2(s: string): number {
  let h = 0x9e3779b9 ^ s.length;
  for (let i = 0; i < s.length; i++) { h = Math.imul(h ^ s.charCodeAt(i), 0x85ebca6b); h ^= h >>> 13; }
  h = Math.imul(h ^ (h >>> 16), 0xc2b2ae35);
  // Odd, so successive probes cover the table.
  return ((h ^ (h >>> 16)) | 1) >>> 0;
}

export class BloomFilter {
  constructor(readonly words: Uint32Array) {}

  static forKeys(n: number): BloomFilter {
    const bits = Math.max(64, Math.ceil((n * BITS_PER_KEY) / 32) * 32);
    return new BloomFilter(new Uint32Array(bits / 32));
  }

  add(key: string): void {
    const m = this.words.length * 32;
    const a = bloomHash1(key), b = bloomHash2(key);
    for (let i = 0; i < PROBES; i++) {
      const bit = (a + Math.imul(i, b)) >>> 0;
      const k = bit % m;
      this.words[k >>> 5] |= 1 << (k & 31);
    }
  }

  /** False: `key` is certainly absent. True: it may be present. */
  mayContain(key: string): boolean {
    return this.mayContainHashed(bloomHash1(key), bloomHash2(key));
  }

  /** `mayContain` with the key's two hashes already computed. */
  mayContainHashed(a: number, b: number): boolean {
    const m = this.words.length * 32;
    for (let i = 0; i < PROBES; i++) {
      const bit = (a + Math.imul(i, b)) >>> 0;
      const k = bit % m;
      if ((this.words[k >>> 5] & (1 << (k & 31))) === 0) return false;
    }
    return true;
  }
}
