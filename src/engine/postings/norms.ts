/**
 * Lucene 7 field-length norms: one byte per document (`SmallFloat.intToByte4`), exact up to 40 tokens
 * and quantised to 4 significant bits above (elasticsearch.md §4.4), plus the BM25 length cache that
 * Lucene precomputes for the 256 byte values.
 */

function longToInt4(i: number): number {
  const nb = 32 - Math.clz32(i);
  if (nb < 4) return i;
  const shift = nb - 4;
  let enc = (i >>> shift) & 0x07;
  enc |= (shift + 1) << 3;
  return enc;
}

function int4ToLong(e: number): number {
  const bits = e & 7;
  const shift = (e >>> 3) - 1;
  return shift === -1 ? bits : (bits | 8) * 2 ** shift;
}

const NUM_FREE = 255 - longToInt4(0x7fffffff); // 24

/** Field length (tokens) → norm byte. */
export function encodeNorm(len: number): number {
  return len < NUM_FREE ? len : NUM_FREE + longToInt4(len - NUM_FREE);
}

/** Norm byte → the field length BM25 uses. */
export function decodeNorm(b: number): number {
  return b < NUM_FREE ? b : NUM_FREE + int4ToLong(b - NUM_FREE);
}

/** Decoded lengths of the 256 byte values (Lucene's LENGTH_TABLE). */
export const NORM_LENGTH_TABLE: Float32Array = (() => {
  const t = new Float32Array(256);
  for (let i = 0; i < 256; i++) t[i] = decodeNorm(i);
  return t;
})();
