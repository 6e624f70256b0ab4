/**
 * Positioned reads of an immutable file through a read-ahead window, standing in for Prometheus's mmap of
 * block files: a select walks series entries and chunks in ascending file order, and one `readSync` per
 * 4-byte length plus one per body (thousands per query) cost more than the data itself. The window grows
 * while reads move forward within reach of it (up to `MAX_WINDOW_BYTES`) and shrinks back after a jump, so
 * scattered lookups do not copy large windows.
 */
import { readSync } from 'node:fs';

const MIN_WINDOW_BYTES = 4096;
const MAX_WINDOW_BYTES = 512 * 1024;

export class ReadAheadFile {
  private buf: Buffer = Buffer.alloc(0);
  /** File offset of `buf[0]`; `len` valid bytes. */
  private start = 0;
  private len = 0;
  private window = MIN_WINDOW_BYTES;

  constructor(private readonly fd: number, readonly sizeBytes: number) {}

  /**
   * Up to `n` bytes at `off` (fewer only at the end of the file). The view stays valid after later reads:
   * a refill allocates a new window rather than overwriting the old one.
   */
  read(off: number, n: number): Buffer {
    if (off >= this.start && off + n <= this.start + this.len) return this.buf.subarray(off - this.start, off - this.start + n);
    // Invariant: forward reads near the window are the sequential pattern; anything else starts small again.
    const forward = this.len > 0 && off >= this.start && off < this.start + this.len + this.window;
    this.window = forward ? Math.min(this.window * 2, MAX_WINDOW_BYTES) : MIN_WINDOW_BYTES;
    const want = Math.max(n, Math.min(this.window, this.sizeBytes - off));
    const buf = Buffer.allocUnsafe(want);
    const got = want > 0 ? readSync(this.fd, buf, 0, want, off) : 0;
    this.buf = buf; this.start = off; this.len = got;
    return buf.subarray(0, Math.min(n, got));
  }
}
