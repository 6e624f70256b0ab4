/**
 * Prometheus's XOR chunk encoding (`tsdb/chunkenc/xor.go`, identical in 2.42), bit for bit: a 2-byte
 * big-endian sample count, then a bit stream of timestamps (varint, uvarint delta, then delta-of-delta in
 * 14/17/20/64-bit buckets) and Gorilla XOR'd values (with leading/trailing-zero window reuse). The byte
 * layout is documented in docs/format.md ("XOR chunk").
 *
 * 64-bit values are handled as two uint32 words through a Float64Array/Uint32Array alias: this is ~25x
 * faster than BigInt here and allocation-free. Timestamps are JS numbers (exact integers up to 2^53 ms).
 */
import { BitWriter } from './bitstream.ts';

export const XOR_MAX_SAMPLES = 120;

const F64 = new Float64Array(1);
const U32 = new Uint32Array(F64.buffer);
// The alias assumes little-endian word order (U32[0] = low word); every platform Node ships on is.
if (new Uint8Array(new Uint32Array([1]).buffer)[0] !== 1) throw new Error('xor-chunk needs a little-endian host');
const TWO32 = 4294967296;

/**
 * Appends samples to one chunk. Callers guarantee increasing timestamps (the head checks order first).
 * It is its own bit writer, and keeps the previous value's words as int32 (`| 0`): V8 stores such fields
 * as small integers, where uint32 words above 2^31 would each take a boxed heap number — every head series
 * holds one open appender, so that is one object and two boxes fewer per series.
 */
export class XorAppender extends BitWriter {
  count = 0;
  t = 0;
  tDelta = 0;
  private vHi = 0;
  private vLo = 0;
  /** The value window of the last XOR written (0xff before one has been), read back by `resume` callers. */
  leading = 0xff;
  trailing = 0;

  constructor(initialBytes = 40) {
    super(initialBytes);
    this.bitLen = 16;
  }

  /**
   * Continues (or starts, with `count` 0) a chunk whose bytes are `buf[base, base + ceil(bits / 8))`, with room
   * up to `end`, from writer state the caller kept: the head keeps its series' open chunks in a shared slab
   * and their state in the series, and appends through one appender. `t` and `vHi`/`vLo` are the last
   * sample's time and value words; `tDelta`, `leading` and `trailing` what this appender had after it.
   */
  resume(buf: Uint8Array, base: number, end: number, bits: number, count: number, t: number, tDelta: number,
    vHi: number, vLo: number, leading: number, trailing: number): void {
    this.buf = buf; this.base = base; this.end = end; this.bitLen = base * 8 + bits;
    this.count = count; this.t = t; this.tDelta = tDelta;
    this.vHi = vHi; this.vLo = vLo; this.leading = leading; this.trailing = trailing;
  }

  append(t: number, v: number): void {
    const w: BitWriter = this;
    F64[0] = v;
    const hi = U32[1], lo = U32[0];
    if (this.count === 0) {
      writeUvarint(w, t >= 0 ? t * 2 : -t * 2 - 1);
      w.writeBits(hi, 32);
      w.writeBits(lo, 32);
    } else if (this.count === 1) {
      this.tDelta = t - this.t;
      writeUvarint(w, this.tDelta);
      this.writeValue(hi, lo);
    } else {
      const tDelta = t - this.t;
      this.writeDod(tDelta - this.tDelta);
      this.tDelta = tDelta;
      this.writeValue(hi, lo);
    }
    this.t = t;
    this.vHi = hi | 0;
    this.vLo = lo | 0;
    this.count++;
    w.buf[w.base] = this.count >>> 8;
    w.buf[w.base + 1] = this.count & 0xff;
  }

  // bytes(): the encoded chunk, a view into the growing buffer (copy it to keep it) — BitWriter's.

  private writeDod(dod: number): void {
    const w: BitWriter = this;
    if (dod === 0) w.writeBit(0);
    else if (dod >= -8191 && dod <= 8192) { w.writeBits(0b10, 2); w.writeBits(dod & 0x3fff, 14); }
    else if (dod >= -65535 && dod <= 65536) { w.writeBits(0b110, 3); w.writeBits(dod & 0x1ffff, 17); }
    else if (dod >= -524287 && dod <= 524288) { w.writeBits(0b1110, 4); w.writeBits(dod & 0xfffff, 20); }
    else {
      w.writeBits(0b1111, 4);
      const hi = Math.floor(dod / TWO32);
      w.writeBits(hi >>> 0, 32);
      w.writeBits((dod - hi * TWO32) >>> 0, 32);
    }
  }

  private writeValue(hi: number, lo: number): void {
    const w: BitWriter = this;
    const dh = (hi ^ this.vHi) >>> 0, dl = (lo ^ this.vLo) >>> 0;
    if (dh === 0 && dl === 0) { w.writeBit(0); return; }
    w.writeBit(1);
    let lead = dh !== 0 ? Math.clz32(dh) : 32 + Math.clz32(dl);
    const trail = dl !== 0 ? 31 - Math.clz32(dl & -dl) : 32 + (31 - Math.clz32(dh & -dh));
    if (lead >= 32) lead = 31; // 5-bit field, as Prometheus clamps
    if (this.leading !== 0xff && lead >= this.leading && trail >= this.trailing) {
      w.writeBit(0);
      writeShifted(w, dh, dl, this.trailing, 64 - this.leading - this.trailing);
      return;
    }
    this.leading = lead;
    this.trailing = trail;
    w.writeBit(1);
    w.writeBits(lead, 5);
    const sig = 64 - lead - trail;
    w.writeBits(sig & 63, 6); // 64 significant bits are written as 0
    writeShifted(w, dh, dl, trail, sig);
  }
}

/** Writes the low `n` bits of the 64-bit (hi, lo) shifted right by `shift`. */
function writeShifted(w: BitWriter, hi: number, lo: number, shift: number, n: number): void {
  let sh: number, sl: number;
  if (shift === 0) { sh = hi; sl = lo; }
  else if (shift < 32) { sl = ((lo >>> shift) | (hi << (32 - shift))) >>> 0; sh = hi >>> shift; }
  else { sl = hi >>> (shift - 32); sh = 0; }
  if (n > 32) { w.writeBits(sh, n - 32); w.writeBits(sl, 32); }
  else w.writeBits(sl, n);
}

function writeUvarint(w: BitWriter, x: number): void {
  while (x >= 0x80) {
    w.writeByte((x % 128) | 0x80);
    x = Math.floor(x / 128);
  }
  w.writeByte(x);
}

/** Sample count of an encoded chunk. */
export function xorCount(b: Uint8Array): number {
  return (b[0] << 8) | b[1];
}

/**
 * Decoding reads through a DataView over a zero-padded scratch copy of the chunk: one big-endian 32-bit load
 * per peek (V8 compiles `getUint32` to a load + bswap) and no bounds surprises at the end of the chunk.
 */
let scratch = new Uint8Array(4096);
let view = new DataView(scratch.buffer);

function loadScratch(b: Uint8Array): DataView {
  if (b.length + 16 > scratch.length) {
    scratch = new Uint8Array(Math.max(b.length + 16, scratch.length * 2));
    view = new DataView(scratch.buffer);
  }
  scratch.set(b);
  scratch.fill(0, b.length, b.length + 16);
  return view;
}

/**
 * Values are written as two uint32 words into an alias of the caller's output array: going through a
 * float64 scratch would make every value a 2×4-byte store followed by an 8-byte load, which defeats the
 * CPU's store forwarding.
 */
let aliasOf: Float64Array | null = null;
let alias: Uint32Array = new Uint32Array(0);

function outWords(outV: Float64Array): Uint32Array {
  if (aliasOf !== outV) { aliasOf = outV; alias = new Uint32Array(outV.buffer, outV.byteOffset, outV.length * 2); }
  return alias;
}

/** The 32 bits starting at bit `pos`. */
function peek32(dv: DataView, pos: number): number {
  const i = pos >>> 3, off = pos & 7;
  const w = dv.getUint32(i);
  return off === 0 ? w : ((w << off) | (dv.getUint8(i + 4) >>> (8 - off))) >>> 0;
}

/**
 * Decodes a whole chunk into `outT`/`outV` from index `at` (each at least `at + xorCount(b)` long); returns
 * the count. Pass an offset rather than a subarray: one flat output array then keeps one word alias.
 * One hand-tuned loop with the bit cursor in locals: this is the query hot path (target ≥ 50 M samples/s),
 * which is why it is longer than the usual function and inlines the bit reads.
 */
export function decodeXor(b: Uint8Array, outT: Float64Array, outV: Float64Array, at = 0): number {
  const n = (b[0] << 8) | b[1];
  if (n === 0) return 0;
  const dv = loadScratch(b);
  const ow = outWords(outV);
  let pos = 16;
  // sample 0: zig-zag varint timestamp, raw 64-bit value
  let ux = 0, mul = 1, byte = 0;
  do { byte = dv.getUint8(pos >>> 3); pos += 8; ux += (byte & 0x7f) * mul; mul *= 128; } while (byte & 0x80);
  let t = ux % 2 === 0 ? ux / 2 : -(ux + 1) / 2;
  let vHi = peek32(dv, pos), vLo = peek32(dv, pos + 32);
  pos += 64;
  ow[2 * at + 1] = vHi; ow[2 * at] = vLo;
  outT[at] = t;
  if (n === 1) return 1;
  let tDelta = 0;
  mul = 1;
  do { byte = dv.getUint8(pos >>> 3); pos += 8; tDelta += (byte & 0x7f) * mul; mul *= 128; } while (byte & 0x80);
  let leading = 0, trailing = 0;
  for (let i = 1; i < n; i++) {
    if (i > 1) {
      const w = peek32(dv, pos);
      if ((w & 0x80000000) === 0) pos += 1;
      else if ((w & 0x40000000) === 0) { let d = (w >>> 16) & 0x3fff; if (d > 8192) d -= 16384; tDelta += d; pos += 16; }
      else if ((w & 0x20000000) === 0) { let d = (w >>> 12) & 0x1ffff; if (d > 65536) d -= 131072; tDelta += d; pos += 20; }
      else if ((w & 0x10000000) === 0) { let d = (w >>> 8) & 0xfffff; if (d > 524288) d -= 1048576; tDelta += d; pos += 24; }
      else { tDelta += (peek32(dv, pos + 4) | 0) * TWO32 + peek32(dv, pos + 36); pos += 68; }
    }
    t += tDelta;
    outT[at + i] = t;
    // value
    const c = peek32(dv, pos);
    if ((c & 0x80000000) === 0) { pos += 1; ow[2 * (at + i)] = vLo; ow[2 * (at + i) + 1] = vHi; continue; }
    if ((c & 0x40000000) === 0) pos += 2;
    else {
      leading = (c >>> 25) & 31;
      let sig = (c >>> 19) & 63;
      if (sig === 0) sig = 64;
      trailing = 64 - leading - sig;
      pos += 13;
    }
    const sig = 64 - leading - trailing;
    let xh = 0, xl = 0;
    if (sig > 32) { xh = peek32(dv, pos) >>> (64 - sig); xl = peek32(dv, pos + sig - 32); }
    else xl = peek32(dv, pos) >>> (32 - sig);
    pos += sig;
    if (trailing >= 32) { xh = xl << (trailing - 32); xl = 0; }
    else if (trailing > 0) { xh = (xh << trailing) | (xl >>> (32 - trailing)); xl = xl << trailing; }
    vHi = (vHi ^ xh) >>> 0; vLo = (vLo ^ xl) >>> 0;
    ow[2 * (at + i)] = vLo; ow[2 * (at + i) + 1] = vHi;
  }
  return n;
}

/**
 * Decodes chunk `b` into `outT`/`outV` from index `at` and keeps only its samples in `[mint, maxt]`, moved down
 * in place (typed-array to typed-array copies keep NaN payloads: stale markers); returns the new end.
 */
export function decodeXorInRange(b: Uint8Array, outT: Float64Array, outV: Float64Array, at: number, mint: number, maxt: number): number {
  const cnt = decodeXor(b, outT, outV, at);
  if (cnt === 0 || (outT[at] >= mint && outT[at + cnt - 1] <= maxt)) return at + cnt;
  let k = at;
  for (let i = at; i < at + cnt; i++) {
    const ti = outT[i];
    if (ti < mint || ti > maxt) continue;
    if (k !== i) { outT[k] = ti; outV[k] = outV[i]; }
    k++;
  }
  return k;
}
