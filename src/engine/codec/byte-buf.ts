/**
 * Growable byte writer and bounded reader for record and file encodings (TSDB, document segments): uvarints and zig-zag
 * varints over exact JS integers (|x| < 2^53), length-prefixed UTF-8 strings, big-endian u32 and raw
 * float64 bits (copied as bytes so NaN payloads such as the stale marker survive).
 */
import { CorruptionError } from '../errors.ts';

const enc = new TextEncoder();
const dec = new TextDecoder();
/** Longest string `ByteReader.str` builds by hand when it is ASCII. */
const SHORT_STR = 32;

/** Longest string `asciiInto` copies by hand. */
const BY_HAND_MAX = 32;

/**
 * Copies `s` into `dst` at `at` when it is ASCII and at most BY_HAND_MAX characters, returning its length,
 * else -1 (the bytes written so far are left behind for the caller to overwrite; `dst` must have room for
 * `s.length` bytes). For short strings, what the copy by hand saves is the call into the encoder
 * (`TextEncoder`, `Buffer.write`), which costs more than the bytes; past about 30 characters the call is the
 * cheaper (a commit-log record of 110-character keys: 0.95 µs per write through `Buffer.write`, 1.3 by hand).
 */
export function asciiInto(dst: Uint8Array, at: number, s: string): number {
  const n = s.length;
  if (n > BY_HAND_MAX) return -1;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x80) return -1;
    dst[at + i] = c;
  }
  return n;
}

export class ByteWriter {
  buf: Uint8Array;
  len = 0;
  private dv: DataView;

  constructor(initial = 256) {
    this.buf = new Uint8Array(initial);
    this.dv = new DataView(this.buf.buffer);
  }

  /** Room for `n` more bytes at `len` (for callers that write into `buf` directly). */
  ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
    this.dv = new DataView(next.buffer);
  }

  u8(x: number): void { this.ensure(1); this.buf[this.len++] = x; }

  u32be(x: number): void { this.ensure(4); this.dv.setUint32(this.len, x >>> 0); this.len += 4; }

  uvarint(x: number): void {
    if (!(x >= 0 && x <= Number.MAX_SAFE_INTEGER * 2)) throw new RangeError(`uvarint out of range: ${x}`);
    this.ensure(10);
    while (x >= 0x80) { this.buf[this.len++] = (x % 128) | 0x80; x = Math.floor(x / 128); }
    this.buf[this.len++] = x;
  }

  varint(x: number): void { this.uvarint(x >= 0 ? x * 2 : -x * 2 - 1); }

  /** A float64, little-endian. */
  f64(x: number): void { this.ensure(8); this.dv.setFloat64(this.len, x, true); this.len += 8; }

  private srcOf: Float64Array | null = null;
  private srcBytes: Uint8Array = new Uint8Array(0);

  /** The 8 bytes of a float64 exactly as stored in `src[i]` (little-endian; no float round trip). */
  f64From(src: Float64Array, i: number): void {
    this.ensure(8);
    if (this.srcOf !== src) { this.srcOf = src; this.srcBytes = new Uint8Array(src.buffer, src.byteOffset, src.byteLength); }
    const b = this.srcBytes, o = i * 8, d = this.buf, l = this.len;
    d[l] = b[o]; d[l + 1] = b[o + 1]; d[l + 2] = b[o + 2]; d[l + 3] = b[o + 3];
    d[l + 4] = b[o + 4]; d[l + 5] = b[o + 5]; d[l + 6] = b[o + 6]; d[l + 7] = b[o + 7];
    this.len = l + 8;
  }

  str(s: string): void {
    const n = s.length;
    if (n <= SHORT_STR) {
      // Short ASCII (terms, ids) is copied by hand: the encoder's call and result buffer cost more than the
      // bytes (term dictionaries and stored `_id`s were 2% of a bulk load's worker CPU). Length < 128: one byte.
      this.ensure(n + 1);
      if (asciiInto(this.buf, this.len + 1, s) === n) { this.buf[this.len] = n; this.len += 1 + n; return; }
    }
    const b = enc.encode(s);
    this.uvarint(b.length);
    this.bytes(b);
  }

  bytes(b: Uint8Array): void { this.ensure(b.length); this.buf.set(b, this.len); this.len += b.length; }

  /** The UTF-8 bytes of `s`, with no length before them (text assembled piece by piece). */
  utf8(s: string): void {
    this.ensure(s.length * 3);
    this.len += enc.encodeInto(s, this.buf.subarray(this.len)).written;
  }

  /** A copy of what was written. */
  finish(): Uint8Array { return this.buf.slice(0, this.len); }
}

/**
 * The uvarint at `b[at]` within `b[at, end)`, as its value and the index after it; null when the bytes end
 * first or it runs past `maxBytes` (the length prefixes read straight from a file's bytes).
 */
export function uvarintAt(b: Uint8Array, at: number, end = b.length, maxBytes = 10): { value: number; next: number } | null {
  let value = 0, mul = 1;
  for (let p = at; p < end && p < at + maxBytes; p++) {
    value += (b[p] & 0x7f) * mul;
    if ((b[p] & 0x80) === 0) return { value, next: p + 1 };
    mul *= 128;
  }
  return null;
}

export class ByteReader {
  pos: number;
  /** Made at the first fixed-width read: most readers (a series entry) read only varints. */
  private dv_: DataView | null = null;

  constructor(readonly buf: Uint8Array, readonly file: string, start = 0, readonly end = buf.length) {
    this.pos = start;
  }

  private get dv(): DataView {
    return this.dv_ ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
  }

  private need(n: number): void {
    if (this.pos + n > this.end) throw new CorruptionError(this.file, this.pos, `unexpected end of data (need ${n} bytes)`);
  }

  get remaining(): number { return this.end - this.pos; }

  u8(): number { this.need(1); return this.buf[this.pos++]; }

  u32be(): number { this.need(4); const x = this.dv.getUint32(this.pos); this.pos += 4; return x; }

  uvarint(): number {
    let x = 0, mul = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.u8();
      x += (b & 0x7f) * mul;
      if ((b & 0x80) === 0) return x;
      mul *= 128;
    }
    throw new CorruptionError(this.file, this.pos, 'varint overflow');
  }

  varint(): number { const u = this.uvarint(); return u % 2 === 0 ? u / 2 : -(u + 1) / 2; }

  /** A float64, little-endian. */
  f64(): number { this.need(8); const x = this.dv.getFloat64(this.pos, true); this.pos += 8; return x; }

  f64Into(dst: Float64Array, i: number): void {
    this.need(8);
    new Uint8Array(dst.buffer, dst.byteOffset + i * 8, 8).set(this.buf.subarray(this.pos, this.pos + 8));
    this.pos += 8;
  }

  str(): string {
    const n = this.uvarint();
    this.need(n);
    const start = this.pos;
    this.pos += n;
    // Short ASCII strings (terms, ids) are built in JS: 2–3× faster than a TextDecoder call per string.
    if (n <= SHORT_STR) {
      const b = this.buf;
      let s = '';
      for (let i = start; i < start + n; i++) {
        const c = b[i];
        if (c >= 0x80) return dec.decode(b.subarray(start, start + n));
        s += String.fromCharCode(c);
      }
      return s;
    }
    return dec.decode(this.buf.subarray(start, start + n));
  }

  skip(n: number): void { this.need(n); this.pos += n; }

  bytes(n: number): Uint8Array { this.need(n); const b = this.buf.subarray(this.pos, this.pos + n); this.pos += n; return b; }
}
