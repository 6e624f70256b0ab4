/**
 * A byte string per doc (an indexing buffer's stored sources and `_id`s), packed into shared slabs, with each
 * value's place in three typed columns: no JS object per value.
 *
 * A buffered doc's values live until its in-memory segment is written to disk, seconds later, so anything
 * allocated per doc for them survives the young generation: a subarray and a string per doc (~140 bytes) were
 * copied twice by the scavenger and then marked by every major collection (a heap profile of the bulk path put
 * them among the largest survivors). Slabs and typed columns are a few large objects the collector never scans.
 */
import { grown } from './typed-grow.ts';

const EMPTY = new Uint8Array(0);

export class ByteColumn {
  /** The slabs; a value larger than a quarter slab gets one of its own. */
  private readonly slabs: Uint8Array[] = [];
  /** The slab being filled, its index in `slabs` and its bytes used. */
  private slab: Uint8Array = EMPTY;
  private current = -1;
  private used = 0;
  /** Per doc: its value's slab (−1: no value), start and length. */
  private slabOf: Int32Array;
  private start: Int32Array;
  private len: Int32Array;
  /** Bytes of all values held. */
  bytes = 0;

  /**
   * `prev`: a column already frozen into a segment, whose per-doc columns (not slabs: the segment keeps those)
   * this one takes over instead of growing new ones.
   */
  constructor(private readonly slabBytes = 256 * 1024, prev?: ByteColumn) {
    if (prev) {
      this.slabOf = prev.slabOf.fill(-1); this.start = prev.start; this.len = prev.len;
    } else {
      this.slabOf = new Int32Array(256).fill(-1); this.start = new Int32Array(256); this.len = new Int32Array(256);
    }
  }

  private room(doc: number, n: number): number {
    if (doc >= this.slabOf.length) {
      const m = Math.max(doc + 1, this.slabOf.length * 2), old = this.slabOf.length;
      this.slabOf = grown(this.slabOf, m).fill(-1, old); this.start = grown(this.start, m); this.len = grown(this.len, m);
    }
    if (n > this.slabBytes >>> 2) return this.place(doc, this.slabs.push(new Uint8Array(n)) - 1, 0, n);
    if (this.current < 0 || this.used + n > this.slab.byteLength) {
      this.slab = new Uint8Array(this.slabBytes);
      this.current = this.slabs.push(this.slab) - 1;
      this.used = 0;
    }
    const at = this.used;
    this.used += n;
    return this.place(doc, this.current, at, n);
  }

  private place(doc: number, slab: number, at: number, n: number): number {
    this.slabOf[doc] = slab; this.start[doc] = at; this.len[doc] = n;
    this.bytes += n;
    return slab;
  }

  /** Stores a copy of `src` as `doc`'s value (a doc's value is set once). */
  set(doc: number, src: Uint8Array): void {
    const s = this.room(doc, src.byteLength);
    this.slabs[s].set(src, this.start[doc]);
  }

  /** Stores `s` as `doc`'s value, UTF-8 encoded. */
  setString(doc: number, s: string): void {
    const n = s.length;
    let ascii = true;
    for (let i = 0; i < n; i++) if (s.charCodeAt(i) >= 128) { ascii = false; break; }
    if (!ascii) { this.set(doc, Buffer.from(s, 'utf8')); return; }
    const slab = this.slabs[this.room(doc, n)], at = this.start[doc];
    for (let i = 0; i < n; i++) slab[at + i] = s.charCodeAt(i);
  }

  has(doc: number): boolean { return doc < this.slabOf.length && this.slabOf[doc] >= 0; }

  /** `doc`'s value as a view into its slab (valid as long as this column), or null. */
  get(doc: number): Uint8Array | null {
    if (!this.has(doc)) return null;
    const at = this.start[doc];
    return this.slabs[this.slabOf[doc]].subarray(at, at + this.len[doc]);
  }

  /** `doc`'s value decoded as UTF-8 ('' when it has none). */
  getString(doc: number): string {
    if (!this.has(doc)) return '';
    const slab = this.slabs[this.slabOf[doc]], at = this.start[doc], n = this.len[doc];
    // Ids are short and almost always ASCII: a code-unit loop beats a decoder call for them.
    if (n <= 64) {
      let s = '';
      for (let i = 0; i < n; i++) {
        const c = slab[at + i];
        if (c >= 128) return Buffer.from(slab.buffer, slab.byteOffset + at, n).toString('utf8');
        s += String.fromCharCode(c);
      }
      return s;
    }
    return Buffer.from(slab.buffer, slab.byteOffset + at, n).toString('utf8');
  }

  /** Whether `doc`'s value is the `n` bytes of `key`. */
  equals(doc: number, key: Uint8Array, n: number): boolean {
    if (!this.has(doc) || this.len[doc] !== n) return false;
    const slab = this.slabs[this.slabOf[doc]], at = this.start[doc];
    for (let i = 0; i < n; i++) if (slab[at + i] !== key[i]) return false;
    return true;
  }

  /**
   * The values of docs [0, maxDoc) as a column of their own (sharing these slabs, which this column stops
   * writing into); this column is then only good as the `prev` of the next one.
   */
  frozen(maxDoc: number): ByteColumn {
    const c = new ByteColumn(this.slabBytes);
    c.slabs.push(...this.slabs);
    c.slabOf = this.slabOf.slice(0, maxDoc); c.start = this.start.slice(0, maxDoc); c.len = this.len.slice(0, maxDoc);
    c.bytes = this.bytes;
    return c;
  }
}
