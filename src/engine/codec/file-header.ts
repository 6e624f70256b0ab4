/**
 * The 8-byte header every Tessera file starts with (docs/format.md "File header"):
 *
 *   ┌──────────────┬────────────┬──────────┬───────────────┐
 *   │ magic u32 BE │ version u8 │ flags u8 │ reserved u16  │
 *   └──────────────┴────────────┴──────────┴───────────────┘
 */
import { CorruptionError, FormatVersionError } from '../errors.ts';
import { FILE_HEADER_SIZE } from './format-ids.ts';

export interface FileHeader { magic: number; version: number; flags: number }

/** Writes the header at `dst[off..off+8)` and returns the offset after it. */
export function encodeFileHeaderInto(dst: Uint8Array, off: number, magic: number, version: number, flags = 0): number {
  dst[off] = (magic >>> 24) & 0xff;
  dst[off + 1] = (magic >>> 16) & 0xff;
  dst[off + 2] = (magic >>> 8) & 0xff;
  dst[off + 3] = magic & 0xff;
  dst[off + 4] = version & 0xff;
  dst[off + 5] = flags & 0xff;
  dst[off + 6] = 0;
  dst[off + 7] = 0;
  return off + FILE_HEADER_SIZE;
}

/** A fresh 8-byte header. */
export function encodeFileHeader(magic: number, version: number, flags = 0): Buffer {
  const buf = Buffer.alloc(FILE_HEADER_SIZE);
  encodeFileHeaderInto(buf, 0, magic, version, flags);
  return buf;
}

/** Reads a header without validating it. `src` must hold at least 8 bytes from `off`. */
export function decodeFileHeader(src: Uint8Array, off = 0): FileHeader {
  const magic = ((src[off] << 24) | (src[off + 1] << 16) | (src[off + 2] << 8) | src[off + 3]) >>> 0;
  return { magic, version: src[off + 4], flags: src[off + 5] };
}

/**
 * Validates the header at the start of `src` (the first bytes of `file`): throws `CorruptionError` (offset 0)
 * when it is short, the magic differs or the reserved bytes are not zero, and `FormatVersionError` when the
 * version is outside `[minVersion, maxVersion]`. Returns the decoded header.
 */
export function checkFileHeader(
  src: Uint8Array, file: string, magic: number, minVersion: number, maxVersion: number,
): FileHeader {
  if (src.length < FILE_HEADER_SIZE) {
    throw new CorruptionError(file, 0, `file header is ${src.length} bytes, want ${FILE_HEADER_SIZE}`);
  }
  const h = decodeFileHeader(src, 0);
  if (h.magic !== magic) {
    throw new CorruptionError(file, 0, `bad magic 0x${hex32(h.magic)}, want 0x${hex32(magic)}`);
  }
  if (h.version < minVersion || h.version > maxVersion) {
    throw new FormatVersionError(file, h.version, minVersion, maxVersion);
  }
  if (src[6] !== 0 || src[7] !== 0) throw new CorruptionError(file, 6, 'reserved header bytes are not zero');
  return h;
}

function hex32(n: number): string {
  return n.toString(16).toUpperCase().padStart(8, '0');
}
