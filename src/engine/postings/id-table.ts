/**
 * `_id` → root doc of an indexing buffer or of the in-memory segment built from it (Elasticsearch's live version
 * map, per buffer): open addressing with linear probing over a power-of-two table of doc numbers, each beside
 * its id's hash, the keys being the ids the docs hold in their `ByteColumn`. No string and no Map entry per id: a `Map<string, number>`
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

function hashOf(bytes: Uint8Array, n: number): number {
  let h = FNV_OFFSET;
  for (let i = 0; i < n; i++) { h ^= bytes[i]; h = Math.imul(h, FNV_PRIME); }
  return h;
}

export class IdTable {
  /**
   * Slot p is `slots[2p]`, the doc code (EMPTY, the doc, or −2 − doc), and `slots[2p + 1]`, its id's hash: a
   * probe past another id compares hashes, not the ids' bytes. Looking up an id the table does not hold (every
   * new document, in the buffer and in each in-memory segment) walked a few occupied slots, and reading each
   * one's id from its column took several cache misses (a shard worker's version lookups, `locate`).
   */
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
    this.slots = new Int32Array(2 * n).fill(EMPTY);
    this.mask = n - 1;
  }

  /** The slot of `id` (just encoded into `key`, `n` bytes, hash `h`), or the empty slot where it would go. */
  private find(n: number, h: number): number {
    const slots = this.slots, mask = this.mask;
    for (let p = h & mask; ; p = (p + 1) & mask) {
      const v = slots[2 * p];
      if (v === EMPTY) return p;
      if (slots[2 * p + 1] === h && this.ids.equals(v >= 0 ? v : -2 - v, key, n)) return p;
    }
  }

  /** The live root doc of `id`, or −1. */
  get(id: string): number {
    useKey(id);
    const v = this.slots[2 * this.find(keyLength, keyHash)];
    return v >= 0 ? v : -1;
  }

  /** Makes `doc` (whose id in the column is `id`) the live copy of `id`. */
  set(id: string, doc: number): void {
    if (2 * (this.used + 1) > this.mask + 1) this.grow();
    useKey(id);
    const p = this.find(keyLength, keyHash);
    if (this.slots[2 * p] === EMPTY) { this.used++; this.slots[2 * p + 1] = keyHash; }
    this.slots[2 * p] = doc;
  }

  /** Marks the live copy of `id` deleted; returns its doc, or −1 when it had none. */
  delete(id: string): number {
    useKey(id);
    const p = this.find(keyLength, keyHash);
    const v = this.slots[2 * p];
    if (v < 0) return -1;
    this.slots[2 * p] = -2 - v;
    return v;
  }

  /** This table over `ids` (a frozen copy of its column, holding the same docs' ids); this one is not used again. */
  over(ids: ByteColumn): IdTable {
    return new IdTable(ids, 0, this);
  }

  /** Moves every slot into a table twice the size, placed by its stored hash (no id is read again). */
  private grow(): void {
    const old = this.slots;
    const slots = new Int32Array(old.length * 2).fill(EMPTY), mask = 2 * (this.mask + 1) - 1;
    for (let o = 0; o < old.length; o += 2) {
      const v = old[o];
      if (v === EMPTY) continue;
      const h = old[o + 1];
      let p = h & mask;
      while (slots[2 * p] !== EMPTY) p = (p + 1) & mask;
      slots[2 * p] = v; slots[2 * p + 1] = h;
    }
    this.slots = slots;
    this.mask = mask;
  }
}
