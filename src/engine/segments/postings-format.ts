/**
 * Encoding of one term's postings (docs/format.md "Document segments", `.doc` and `.pos`).
 *
 * Docs payload: encoding u8, then
 *   - 0 (deltas): per doc a uvarint; without frequencies it is the delta from the previous doc (the first from
 *     -1, so every delta is ≥ 1); with frequencies it is delta·2 + 1 when the frequency is 1, delta·2 when it
 *     is not, followed then by a uvarint of freq−2 (Lucene 3's doc/freq interleaving: a frequency of 1, the
 *     common case, costs one bit);
 *   - 1 (roaring): the docs as a roaring bitmap in the portable format (chosen when smaller: dense terms),
 *     followed, with frequencies, by docFreq uvarints of freq−1.
 * Positions payload: for each posting in doc order, its freq positions as uvarint deltas (the first from 0).
 *
 * Terms with few postings carry both payloads inline in their dictionary entry instead of regions of their own
 * (INLINE_MAX_DOCS), which saves the region framing and pointers of the long tail of rare terms.
 *
 * Decoders fill caller-owned typed arrays; the hot loops are hand-written uvarint reads (32-bit values only).
 */
import { CorruptionError } from '../errors.ts';
import { bitmapOf, portableBitmap } from '../codec/roaring.ts';

export const POSTINGS_DELTAS = 0;
export const POSTINGS_ROARING = 1;

/** Terms with at most this many docs keep their postings inline in the term dictionary. */
export const INLINE_MAX_DOCS = 16;

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
    while (x >= 0x80) { b[l++] = (x & 0x7f) | 0x80; x = x >>> 7; }
    b[l++] = x;
    this.len = l;
  }

  bytes(src: Uint8Array): void { this.ensure(src.byteLength); this.buf.set(src, this.len); this.len += src.byteLength; }

  /** A copy of the written bytes. */
  take(): Uint8Array { return this.buf.slice(0, this.len); }
}

/**
 * Encodes docs[0..n) (ascending) and, when `freqs` is given, their frequencies into `out`. Picks the smaller
 * of deltas and roaring for large lists.
 */
export function encodeDocs(out: VarintBuffer, docs: Uint32Array, n: number, freqs: Uint32Array | null): void {
  if (n >= ROARING_MIN_DOCS) {
    const bitmap = bitmapOf(docs.subarray(0, n));
    bitmap.runOptimize();
    // Deltas take at least one byte per doc (plus frequencies); a bitmap wins for dense terms.
    if (bitmap.getSerializationSizeInBytes(true) < deltaBytes(docs, n)) {
      out.u8(POSTINGS_ROARING);
      out.bytes(bitmap.serialize(true));
      if (freqs) for (let i = 0; i < n; i++) out.uvarint(freqs[i] - 1);
      return;
    }
  }
  out.u8(POSTINGS_DELTAS);
  let prev = -1;
  if (!freqs) {
    for (let i = 0; i < n; i++) { out.uvarint(docs[i] - prev); prev = docs[i]; }
    return;
  }
  for (let i = 0; i < n; i++) {
    const delta = docs[i] - prev;
    prev = docs[i];
    if (freqs[i] === 1) out.uvarint(delta * 2 + 1);
    else { out.uvarint(delta * 2); out.uvarint(freqs[i] - 2); }
  }
}

function deltaBytes(docs: Uint32Array, n: number): number {
  let bytes = 0, prev = -1;
  for (let i = 0; i < n; i++) {
    const d = docs[i] - prev;
    bytes += d < 0x80 ? 1 : d < 0x4000 ? 2 : d < 0x200000 ? 3 : d < 0x10000000 ? 4 : 5;
    prev = docs[i];
  }
  return bytes;
}

/**
 * Decodes a docs payload (src[start..end)) of `docFreq` postings into `docs` and, when non-null, `freqs`
 * (both at least docFreq long). `file`/`offset` name the region in errors.
 */
export function decodeDocs(src: Uint8Array, start: number, end: number, docFreq: number, docs: Uint32Array, freqs: Uint32Array | null, file: string, offset: number): void {
  let p = start + 1;
  const enc = src[start];
  if (enc === POSTINGS_ROARING) {
    const bm = portableBitmap(Buffer.from(src.buffer, src.byteOffset + p, end - p));
    if (bm.size !== docFreq) throw new CorruptionError(file, offset, `postings hold ${bm.size} docs, dictionary says ${docFreq}`);
    bm.toUint32Array(docs.subarray(0, docFreq));
    p += bm.getSerializationSizeInBytes(true);
    if (freqs) p = decodeUvarints(src, p, freqs, docFreq, 1);
  } else if (enc === POSTINGS_DELTAS) {
    let prev = -1;
    for (let i = 0; i < docFreq; i++) {
      let b = src[p++], x = b & 0x7f;
      if (b >= 0x80) { b = src[p++]; x |= (b & 0x7f) << 7;
        if (b >= 0x80) { b = src[p++]; x |= (b & 0x7f) << 14;
          if (b >= 0x80) { b = src[p++]; x |= (b & 0x7f) << 21;
            if (b >= 0x80) { b = src[p++]; x += (b & 0x0f) * 0x10000000; } } } }
      if (freqs === null) { prev += x; docs[i] = prev; continue; }
      prev += Math.floor(x / 2);
      docs[i] = prev;
      if ((x & 1) === 1) { freqs[i] = 1; continue; }
      b = src[p++]; let f = b & 0x7f;
      if (b >= 0x80) { b = src[p++]; f |= (b & 0x7f) << 7;
        if (b >= 0x80) { b = src[p++]; f |= (b & 0x7f) << 14;
          if (b >= 0x80) { b = src[p++]; f |= (b & 0x7f) << 21;
            if (b >= 0x80) { b = src[p++]; f += (b & 0x0f) * 0x10000000; } } } }
      freqs[i] = f + 2;
    }
  } else {
    throw new CorruptionError(file, offset, `unknown postings encoding ${enc}`);
  }
  if (p > end) throw new CorruptionError(file, offset, 'postings run past their region');
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

/**
 * Appends the positions of one posting (positions[from, to), ascending) to a positions payload. Deltas restart
 * at each posting, so the payloads of consecutive postings (or of whole terms) concatenate.
 */
export function encodePostingPositions(out: VarintBuffer, positions: Uint32Array, from: number, to: number): void {
  let prev = 0;
  for (let j = from; j < to; j++) { out.uvarint(positions[j] - prev); prev = positions[j]; }
}

/**
 * Decodes a positions payload (src[start..end)) for postings with the given frequencies: fills `posStart`
 * (docFreq+1 entries) and returns the positions array.
 */
export function decodePositions(src: Uint8Array, start: number, end: number, freqs: Uint32Array, docFreq: number, posStart: Uint32Array, file: string, offset: number): Uint32Array {
  let total = 0;
  for (let i = 0; i < docFreq; i++) { posStart[i] = total; total += freqs[i]; }
  posStart[docFreq] = total;
  const positions = new Uint32Array(total);
  const p = decodeUvarints(src, start, positions, total, 0);
  if (p > end) throw new CorruptionError(file, offset, 'positions run past their region');
  for (let i = 0; i < docFreq; i++) {
    // Deltas restart at each posting.
    for (let j = posStart[i] + 1; j < posStart[i + 1]; j++) positions[j] += positions[j - 1];
  }
  return positions;
}
