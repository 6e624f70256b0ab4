/**
 * The framing of Tessera's own whole-file TSDB formats, now read only to upgrade them (layout-1 index,
 * tombstones and checkpoint): an 8-byte header `magic u32 BE · version u8 · flags u8 · reserved u16`, the body,
 * then `TEND u32 BE · crc32c u32 BE` over every byte before the footer. 
 */
import { crc32c } from '../codec/crc32c.ts';
import { CorruptionError, FormatVersionError } from '../errors.ts';
import { TSDB_FOOTER_MAGIC } from '../codec/format-ids.ts';

/** Checks header and footer; returns the body's [start, end) offsets. */
export function checkFile(b: Uint8Array, file: string, magic: number, minVersion: number, maxVersion: number): { start: number; end: number; version: number } {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b.length < 16) throw new CorruptionError(file, 0, `file too short (${b.length} bytes)`);
  if (dv.getUint32(0) !== magic) throw new CorruptionError(file, 0, `bad magic 0x${dv.getUint32(0).toString(16)}`);
  const version = b[4];
  if (version < minVersion || version > maxVersion) throw new FormatVersionError(file, version, minVersion, maxVersion);
  const end = b.length - 8;
  if (dv.getUint32(end) !== TSDB_FOOTER_MAGIC) throw new CorruptionError(file, end, 'bad footer magic');
  const want = dv.getUint32(end + 4);
  const got = crc32c(Buffer.from(b.buffer, b.byteOffset, end));
  if (want !== got) throw new CorruptionError(file, end + 4, `checksum mismatch (stored ${want}, computed ${got})`);
  return { start: 8, end, version };
}
