/**
 * MSB-first bit stream over bytes, as Prometheus's `tsdb/chunkenc/bstream.go`: the first bit written is the
 * high bit of byte 0. Values are written and read in pieces of at most 32 bits so that every operation stays
 * in V8's int32 fast path (no BigInt); 64-bit quantities are split into a high and a low word by the caller.
 */

/**
 * Appends bits to a growable byte buffer. Unused low bits of the last byte are zero. The stream may live in
 * a region `[base, end)` of a larger buffer (the head's chunk slab): then bytes from the write position up to
 * `end` must be zero, and a subclass's `grow` moves the stream when it runs out of room.
 */
export class BitWriter {
  buf: Uint8Array;
  /** Bit position in `buf` of the next bit (the stream's first bit is at `base * 8`). */
  bitLen = 0;
  /** Byte offset in `buf` where the stream starts. */
  base = 0;
  /** Byte offset in `buf` where the stream's room ends. */
  end: number;

  constructor(initialBytes = 32) {
    this.buf = new Uint8Array(initialBytes);
    this.end = initialBytes;
  }

  /** Writes the low `n` bits of `v` (1 ≤ n ≤ 32), most significant first. */
  writeBits(v: number, n: number): void {
    this.ensure(n);
    const buf = this.buf;
    const pos = this.bitLen;
    this.bitLen = pos + n;
    if (n < 32) v &= (1 << n) - 1;
    let i = pos >>> 3;
    const off = pos & 7;
    if (off !== 0) {
      // fill the partly written byte first
      const free = 8 - off;
      if (n <= free) { buf[i] |= v << (free - n); return; }
      n -= free;
      buf[i++] |= v >>> n;
    }
    // whole bytes; bytes past the write position are still zero, so plain stores suffice
    while (n >= 8) { n -= 8; buf[i++] = v >>> n; }
    if (n > 0) buf[i] = v << (8 - n);
  }

  writeBit(bit: number): void {
    this.ensure(1);
    if (bit) this.buf[this.bitLen >>> 3] |= 0x80 >>> (this.bitLen & 7);
    this.bitLen++;
  }

  writeByte(b: number): void {
    this.writeBits(b & 0xff, 8);
  }

  /** Bytes written so far (a view, valid until the next write). */
  bytes(): Uint8Array {
    return this.buf.subarray(this.base, (this.bitLen + 7) >>> 3);
  }

  private ensure(nBits: number): void {
    const need = ((this.bitLen + nBits + 7) >>> 3) + 1;
    if (need > this.end) this.grow(need);
  }

  /** Makes room up to byte offset `need` (exclusive) of the stream's buffer; may move the stream. */
  protected grow(need: number): void {
    let cap = this.buf.length * 2;
    while (cap < need) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, (this.bitLen + 7) >>> 3));
    this.buf = next;
    this.end = cap;
  }
}

