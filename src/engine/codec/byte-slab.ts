/**
 * Copies of many small byte strings (document sources) packed into large shared slabs. One ArrayBuffer per
 * small copy costs a malloc'd backing store plus V8's bookkeeping for each, and once a million of them are freed
 * glibc keeps the fragmented arenas resident (measured: 2 M freed 100-byte arrays leave ~500 MB of anonymous
 * memory; the same copies in shared slabs leave none). A slab is freed by the garbage collector once no copy in
 * it is referenced — the indexing buffer's copies all go when it is written to disk.
 */
export class ByteSlab {
  private slab: Uint8Array = new Uint8Array(0);
  private used = 0;

  /** `slabBytes` above glibc's mmap threshold, so a freed slab goes straight back to the system. */
  constructor(private readonly slabBytes = 256 * 1024) {}

  /** A copy of `src` that does not keep `src`'s buffer alive. */
  copy(src: Uint8Array): Uint8Array {
    const n = src.byteLength;
    // Larger than a quarter slab: its own buffer (rare for documents; keeps slabs dense).
    if (n > this.slabBytes >>> 2) return new Uint8Array(src);
    if (this.used + n > this.slab.byteLength) {
      this.slab = new Uint8Array(this.slabBytes);
      this.used = 0;
    }
    const out = this.slab.subarray(this.used, this.used + n);
    out.set(src);
    this.used += n;
    return out;
  }
}
