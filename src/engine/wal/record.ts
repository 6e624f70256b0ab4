/**
 * WAL record framing (docs/format.md "WAL record"):
 *
 *   ┌──────────────────┬────────────┬───────────────┬─────────────────┐
 *   │ type|flags u8    │ len u32 BE │ crc32c u32 BE │ payload (len B) │
 *   └──────────────────┴────────────┴───────────────┴─────────────────┘
 *
 * The low 7 bits of the first byte are the caller's record type (1..127; 0 is never written, so a zero byte
 * where a header should start means "no more records"), bit 7 says the payload is snappy-compressed. `len` is
 * the stored (possibly compressed) payload length. The CRC-32C covers the first five header bytes and the
 * stored payload, so a damaged type or length is caught as well as damaged data.
 */
import { crc32c, crc32cShort } from '../codec/crc32c.ts';
import { WAL_RECORD_HEADER_SIZE } from '../codec/format-ids.ts';

/** Record types callers may use. */
export const MIN_RECORD_TYPE = 1;
export const MAX_RECORD_TYPE = 127;

/**
 * Writes the frame of one record into `dst` at `off` (`dst` must have room for header + payload) and returns
 * the offset after it. `typeFlags` is the type with the snappy bit already or-ed in.
 */
export function encodeRecord(dst: Uint8Array, off: number, typeFlags: number, payload: Uint8Array): number {
  const len = payload.length;
  dst[off] = typeFlags;
  writeU32(dst, off + 1, len);
  const crc = crc32c(payload, crc32cShort(dst, off, off + 5));
  writeU32(dst, off + 5, crc);
  dst.set(payload, off + WAL_RECORD_HEADER_SIZE);
  return off + WAL_RECORD_HEADER_SIZE + len;
}

/** Outcome of looking at the bytes at one offset (numeric codes: no allocation per record). */
export const REC_OK = 0;
/** Fewer than a header's worth of bytes, or the header's length runs past the end of the available bytes. */
export const REC_SHORT = 1;
/** The type|flags byte is zero: padding or a never-written region. */
export const REC_ZERO = 2;
/** Checksum mismatch or a type/flags byte with unknown bits. */
export const REC_BAD = 3;

/**
 * Checks the record at `src[off..end)`. On REC_OK the payload is `src[off+9 .. off+9+recordLength(src, off))`.
 * `end` bounds the bytes that are available (the rest of the file or of a read chunk).
 */
export function checkRecord(src: Uint8Array, off: number, end: number): number {
  if (end - off < WAL_RECORD_HEADER_SIZE) return end > off && src[off] === 0 ? REC_ZERO : REC_SHORT;
  const typeFlags = src[off];
  if (typeFlags === 0) return REC_ZERO;
  if ((typeFlags & 0x7f) === 0) return REC_BAD;
  const len = readU32(src, off + 1);
  if (len > end - off - WAL_RECORD_HEADER_SIZE) return REC_SHORT;
  const start = off + WAL_RECORD_HEADER_SIZE;
  const crc = crc32c(src.subarray(start, start + len), crc32cShort(src, off, off + 5));
  return crc === readU32(src, off + 5) ? REC_OK : REC_BAD;
}

/** Stored payload length of the record whose header starts at `off` (header must be present). */
export function recordLength(src: Uint8Array, off: number): number {
  return readU32(src, off + 1);
}

export function writeU32(dst: Uint8Array, off: number, v: number): void {
  dst[off] = (v >>> 24) & 0xff;
  dst[off + 1] = (v >>> 16) & 0xff;
  dst[off + 2] = (v >>> 8) & 0xff;
  dst[off + 3] = v & 0xff;
}

export function readU32(src: Uint8Array, off: number): number {
  return ((src[off] << 24) | (src[off + 1] << 16) | (src[off + 2] << 8) | src[off + 3]) >>> 0;
}
