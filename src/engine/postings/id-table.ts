/**
 * `_id` → root doc of an indexing buffer or of the in-memory segment built from it (Elasticsearch's live version
 * map, per buffer): open addressing with linear probing over a power-of-two Int32Array of doc numbers, the keys
 * being the ids the docs hold in their `ByteColumn`. No string and no Map entry per id: a `Map<string, number>`
 * of a million buffered ids was among the largest survivors of the young generation on the bulk path (its
 * backing stores regrown, every key string kept until the segment went to disk).
 *
 * A slot holds −1 (empty), the doc (live), or −2 − doc: the id's copy was deleted while buffered; the slot keeps
 * the doc as the key's holder, and a later copy of the same id takes the slot over.
 */
import type { ByteColumn } from '../codec/byte-column.ts';

const FNV_OFFSET = 0x811c9dc5 | 0;
const FNV_PRIME = 0x01000193;
const EMPTY = -1;

/** The last id looked up, UTF-8 in `key` (grown on demand; one table works at a time per thread), its length and hash. */
let key = new Uint8Array(256);
let keyId: string | null = null, keyLength = 0, keyHash = 0;

/**
 * Makes `id` the key: a shard looks one id up in the buffer and in each in-memory segment in turn, and
 * encodes and hashes it once for all of them.
 */
function useKey(id: string): void {
  if (id === keyId) return;
  keyLength = encodeKey(id);
  keyHash = hashOf(key, keyLength);
  keyId = id;
}

/** Encodes `id` into `key`; returns its byte length. */
function encodeKey(id: string): number {
  const n = id.length;
  if (n * 3 > key.length) key = new Uint8Array(Math.max(n * 3, key.length * 2));
  for (let i = 0; i < n; i++) {
    const c = id.charCodeAt(i);
    if (c >= 128) return Buffer.from(key.buffer, key.byteOffset, key.byteLength).write(id, 'utf8');
    key[i] = c;
  }
  return n;
}

/** An id being rehashed (`IdTable.grow`). */
let rehashScratch = new Uint8Array(256);

function hashOf(bytes: Uint8Array, n: number): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < n; i++) { h ^= bytes[i]; h = Math.imul(h, FNV_PRIME); }
  return h;
}

export class IdTable {
  private slots: Int32Array;
  private mask: number;
  /** Occupied slots (dead ones included). */
  private used = 0;

  /** `expected`: how many ids to make room for before the first growth; `from`: a table whose slots to take over (`over`). */
  constructor(private readonly ids: ByteColumn, expected = 0, from?: IdTable) {
    if (from) {
      this.slots = from.slots; this.mask = from.mask; this.used = from.used;
      return;
    }
    let n = 1024;
    while (n < 2 * expected + 2) n *= 2;
    this.slots = new Int32Array(n).fill(EMPTY);
    this.mask = n - 1;
  }

  /** The slot of `id` (just encoded into `key`, `n` bytes, hash `h`), or the empty slot where it would go. */
  private find(n: number, h: number): number {
    const slots = this.slots, mask = this.mask;
    for (let p = h & mask; ; p = (p + 1) & mask) {
      const v = slots[p];
      if (v === EMPTY || this.ids.equals(v >= 0 ? v : -2 - v, key, n)) return p;
    }
  }

  /** The live root doc of `id`, or −1. */
  get(id: string): number {
    useKey(id);
    const v = this.slots[this.find(keyLength, keyHash)];
    return v >= 0 ? v : -1;
  }

  /** Makes `doc` (whose id in the column is `id`) the live copy of `id`. */
  set(id: string, doc: number): void {
    if (2 * (this.used + 1) > this.slots.length) this.grow();
    useKey(id);
    const p = this.find(keyLength, keyHash);
    if (this.slots[p] === EMPTY) this.used++;
    this.slots[p] = doc;
  }

  /** Marks the live copy of `id` deleted; returns its doc, or −1 when it had none. */
  delete(id: string): number {
    useKey(id);
    const p = this.find(keyLength, keyHash);
    const v = this.slots[p];
    if (v < 0) return -1;
    this.slots[p] = -2 - v;
    return v;
  }

  /** This table over `ids` (a frozen copy of its column, holding the same docs' ids); this one is not used again. */
  over(ids: ByteColumn): IdTable {
    return new IdTable(ids, 0, this);
  }

  /**
   * Rehashes every id into a table twice the size. Each id is copied into `rehashScratch` rather than viewed
   * (a subarray per buffered id, tens of thousands of them whenever a buffer outgrew its table).
   */
  private grow(): void {
    const old = this.slots;
    this.slots = new Int32Array(old.length * 2).fill(EMPTY);
    this.mask = this.slots.length - 1;
    for (const v of old) {
      if (v === EMPTY) continue;
      const doc = v >= 0 ? v : -2 - v;
      const len = this.ids.lengthOf(doc);
      if (len > rehashScratch.length) rehashScratch = new Uint8Array(2 * len);
      const n = this.ids.copyInto(doc, rehashScratch);
      for (let p = hashOf(rehashScratch, n) & this.mask; ; p = (p + 1) & this.mask) {
        if (this.slots[p] === EMPTY) { this.slots[p] = v; break; }
      }
    }
  }
}
