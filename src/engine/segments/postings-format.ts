/**
 * Encoding of one term's postings (docs/format.md "Document segments", `.doc` and `.pos` regions).
 *
 * `.doc` payload: encoding u8, then
 *   - 0 (deltas): docFreq docs as uvarint deltas (the first from -1, so every delta is ≥ 1);
 *   - 1 (roaring): the docs as a roaring bitmap in the portable format (chosen when smaller: dense terms);
 *   then, for fields with frequencies, docFreq uvarints of freq-1.
 * `.pos` payload: for each posting in doc order, its freq positions as uvarint deltas (the first from 0).
 *
 * Decoders fill caller-owned typed arrays; the hot loops are hand-written uvarint reads (32-bit values only).
 */
import { CorruptionError } from '../errors.ts';
import { RoaringBitmap32 } from '../postings/segment.ts';

export const POSTINGS_DELTAS = 0;
export const POSTINGS_ROARING = 1;

/** Below this many docs a roaring bitmap is never smaller than deltas, so it is not even tried. */
const ROARING_MIN_DOCS = 512;

/** A growable byte buffer for 32-bit uvarints (the segment writer's scratch; not re-entrant). */
export class VarintBuffer {
  buf = new Uint8Array(1024);
  len = 0;

  reset(): this { this.len = 0; return this; }

  ensure(n: number): void {
    if (this.len + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.len + n) cap *= 2;
    const next = new Uint8Array(cap);
    next.set(this.buf.subarray(0, this.len));
    this.buf = next;
  }

  u8(x: number): void { this.ensure(1); this.buf[this.len++] = x; }

  /** `x` must be an integer in [0, 2^32). */
  uvarint(x: number): void {
    this.ensure(5);
    const b = this.buf;
    let l = this.len;
    while (x >= 0x80) { b[l++] = (x & 0x7f) | 0x80; x >>>= 7; }
    b[l++] = x;
    this.len = l;
  }

  bytes(src: Uint8Array): void { this.ensure(src.byteLength); this.buf.set(src, this.len); this.len += src.byteLength; }

  /** A copy of the written bytes. */
  take(): Uint8Array { return this.buf.slice(0, this.len); }
}

/**
 * Encodes docs[start..end) (ascending) and, when `freqs` is given, their frequencies into `out`.
 * Picks the smaller of deltas and roaring for large lists.
 */
export function encodeDocs(out: VarintBuffer, docs: Uint32Array, start: number, end: number, freqs: Uint32Array | null): void {
  const n = end - start;
  let useRoaring = false;
  let bitmap: InstanceType<typeof RoaringBitmap32> | null = null;
  if (n >= ROARING_MIN_DOCS) {
    bitmap = new RoaringBitmap32(docs.subarray(start, end));
    bitmap.runOptimize();
    // Deltas take at least one byte per doc; compare against that lower bound plus the wide gaps.
    useRoaring = bitmap.getSerializationSizeInBytes(true) < deltaBytes(docs, start, end);
  }
  if (useRoaring) {
    out.u8(POSTINGS_ROARING);
    out.bytes(bitmap!.serialize(true));
  } else {
    out.u8(POSTINGS_DELTAS);
    let prev = -1;
    for (let i = start; i < end; i++) { out.uvarint(docs[i] - prev); prev = docs[i]; }
  }
  if (freqs) for (let i = start; i < end; i++) out.uvarint(freqs[i] - 1);
}

function deltaBytes(docs: Uint32Array, start: number, end: number): number {
  let n = 0, prev = -1;
  for (let i = start; i < end; i++) {
    const d = docs[i] - prev;
    n += d < 0x80 ? 1 : d < 0x4000 ? 2 : d < 0x200000 ? 3 : d < 0x10000000 ? 4 : 5;
    prev = docs[i];
  }
  return n;
}

/**
 * Decodes a `.doc` payload of `docFreq` postings into `docs` and (when non-null) `freqs`, both at least
 * docFreq long. `file`/`offset` name the region in errors.
 */
export function decodeDocs(src: Uint8Array, docFreq: number, docs: Uint32Array, freqs: Uint32Array | null, file: string, offset: number): void {
  let p = 1;
  if (src[0] === POSTINGS_ROARING) {
    // Portable format: the reader needs the exact serialized length, so it is the rest of the payload
    // before the frequencies; deserialize and size-check against docFreq.
    const bm = RoaringBitmap32.deserialize(Buffer.from(src.buffer, src.byteOffset + 1, src.byteLength - 1), true);
    if (bm.size !== docFreq) throw new CorruptionError(file, offset, `postings hold ${bm.size} docs, dictionary says ${docFreq}`);
    bm.toUint32Array(docs.subarray(0, docFreq));
    p = 1 + bm.getSerializationSizeInBytes(true);
  } else if (src[0] === POSTINGS_DELTAS) {
    let prev = -1;
    for (let i = 0; i < docFreq; i++) {
      let b = src[p++], x = b & 0x7f;
      if (b >= 0x80) { b = src[p++]; x |= (b & 0x7f) << 7;
        if (b >= 0x80) { b = src[p++]; x |= (b & 0x7f) << 14;
          if (b >= 0x80) { b = src[p++]; x |= (b & 0x7f) << 21;
            if (b >= 0x80) { b = src[p++]; x += (b & 0x0f) * 0x10000000; } } } }
      prev += x;
      docs[i] = prev;
    }
  } else {
    throw new CorruptionError(file, offset, `unknown postings encoding ${src[0]}`);
  }
  if (freqs) p = decodeUvarints(src, p, freqs, docFreq, 1);
  if (p > src.byteLength) throw new CorruptionError(file, offset, 'postings run past their region');
}

/** Reads `n` uvarints from src at `p` into out[0..n), each plus `add`; returns the position after them. */
export function decodeUvarints(src: Uint8Array, p: number, out: Uint32Array, n: number, add: number): number {
  for (let i = 0; i < n; i++) {
    let b = src[p++], x = b & 0x7f;
    if (b >= 0x80) { b = src[p++]; x |= (b & 0x7f) << 7;
      if (b >= 0x80) { b = src[p++]; x |= (b & 0x7f) << 14;
        if (b >= 0x80) { b = src[p++]; x |= (b & 0x7f) << 21;
          if (b >= 0x80) { b = src[p++]; x += (b & 0x0f) * 0x10000000; } } } }
    out[i] = x + add;
  }
  return p;
}

/** Encodes the positions of postings [start, end) (posStart/positions as in `TermPostings`). */
export function encodePositions(out: VarintBuffer, posStart: Uint32Array, positions: Uint32Array, start: number, end: number): void {
  for (let i = start; i < end; i++) {
    let prev = 0;
    for (let j = posStart[i]; j < posStart[i + 1]; j++) { out.uvarint(positions[j] - prev); prev = positions[j]; }
  }
}

/**
 * Decodes a `.pos` payload for postings with the given frequencies: fills `posStart` (docFreq+1 entries) and
 * returns the positions array.
 */
export function decodePositions(src: Uint8Array, freqs: Uint32Array, docFreq: number, posStart: Uint32Array, file: string, offset: number): Uint32Array {
  let total = 0;
  for (let i = 0; i < docFreq; i++) { posStart[i] = total; total += freqs[i]; }
  posStart[docFreq] = total;
  const positions = new Uint32Array(total);
  const p = decodeUvarints(src, 0, positions, total, 0);
  if (p > src.byteLength) throw new CorruptionError(file, offset, 'positions run past their region');
  for (let i = 0; i < docFreq; i++) {
    // Deltas restart at each posting.
    for (let j = posStart[i] + 1; j < posStart[i + 1]; j++) positions[j] += positions[j - 1];
  }
  return positions;
}
