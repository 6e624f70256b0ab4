/**
 * One scrape target's response bodies, read into a buffer its loop keeps from scrape to scrape, as
 * Prometheus's scrape loop reuses its body buffers (sized by the previous scrape). Joining a body's chunks into
 * a fresh buffer every scrape (a 100,000-series target sends ~5 MB each second) cost the main thread a new
 * mapping of that size, its page faults and its unmapping, and left that much external memory for the garbage
 * collector to account for, every scrape.
 *
 * The buffer grows as bodies need, and is given back once bodies have stayed well under its size, so one
 * unusually large body does not stay resident for the target's life. Not re-entrant: one body at a time.
 */
const MIN_BYTES = 64 * 1024;
/** Bodies in a row that used under a quarter of the buffer before it is given back. */
const SHRINK_AFTER = 8;

export class BodyBuffer {
  private buf: Buffer = Buffer.alloc(0);
  private n = 0;
  private smallBodies = 0;

  /** Starts a new body (the previous view becomes invalid); `expectedBytes` (its length when known, else 0) sizes the buffer. */
  start(expectedBytes: number): void {
    if (this.n > 0 && this.n < this.buf.length >>> 2) this.smallBodies++;
    else this.smallBodies = 0;
    if (this.smallBodies >= SHRINK_AFTER) { this.buf = Buffer.alloc(0); this.smallBodies = 0; }
    this.n = 0;
    if (expectedBytes > this.buf.length) this.buf = Buffer.allocUnsafeSlow(expectedBytes);
  }

  append(chunk: Uint8Array): void {
    const need = this.n + chunk.length;
    if (need > this.buf.length) {
      const next = Buffer.allocUnsafeSlow(Math.max(need, MIN_BYTES, Math.floor(this.buf.length * 1.5)));
      this.buf.copy(next, 0, 0, this.n);
      this.buf = next;
    }
    this.buf.set(chunk, this.n);
    this.n = need;
  }

  /** The body read since `start`: a view of the kept buffer, valid until the next `start`. */
  view(): Buffer {
    return this.buf.subarray(0, this.n);
  }

  /** Bytes held between scrapes (for tests). */
  get capacity(): number { return this.buf.length; }
}
