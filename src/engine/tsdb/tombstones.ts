/**
 * A block's `tombstones` file in Prometheus's format (docs/format.md "TSDB blocks"; Prometheus
 * `tsdb/docs/format/tombstones.md`): magic, version, one `series ref · mint · maxt` entry per deleted
 * interval, then the CRC32C of the entries. Rewritten whole (atomically) on every delete, as Prometheus does.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { Interval } from './chunk-meta.ts';
import { addInterval } from './chunk-meta.ts';
import { ByteReader, ByteWriter } from '../codec/byte-buf.ts';
import { crc32c } from '../codec/crc32c.ts';
import { CorruptionError, FormatVersionError } from '../errors.ts';
import { writeFileAtomic } from '../store/durable-files.ts';
import { PROM_TOMBSTONES_MAGIC, PROM_TOMBSTONES_VERSION } from '../codec/format-ids.ts';

export type Tombstones = Map<number, Interval[]>;

const HEADER_BYTES = 5;

export function encodeTombstonesFile(ts: Tombstones): Uint8Array {
  const w = new ByteWriter(64 + ts.size * 16);
  w.u32be(PROM_TOMBSTONES_MAGIC);
  w.u8(PROM_TOMBSTONES_VERSION);
  for (const ref of [...ts.keys()].sort((a, b) => a - b)) {
    for (const iv of ts.get(ref)!) { w.uvarint(ref); w.varint(iv[0]); w.varint(iv[1]); }
  }
  // As Prometheus: the checksum covers the entries, not the magic or the version byte.
  w.u32be(crc32c(w.buf.subarray(HEADER_BYTES, w.len)));
  return w.finish();
}

export function decodeTombstones(b: Uint8Array, file: string): Tombstones {
  const dv = new DataView(b.buffer, b.byteOffset, b.byteLength);
  if (b.length < HEADER_BYTES + 4) throw new CorruptionError(file, 0, `tombstones file too short (${b.length} bytes)`);
  if (dv.getUint32(0) !== PROM_TOMBSTONES_MAGIC) throw new CorruptionError(file, 0, `invalid magic number ${dv.getUint32(0).toString(16)}`);
  if (b[4] !== PROM_TOMBSTONES_VERSION) throw new FormatVersionError(file, b[4], PROM_TOMBSTONES_VERSION, PROM_TOMBSTONES_VERSION);
  const end = b.length - 4;
  if (dv.getUint32(end) !== crc32c(b.subarray(HEADER_BYTES, end))) throw new CorruptionError(file, end, 'tombstones checksum mismatch');
  const r = new ByteReader(b, file, HEADER_BYTES, end);
  const out: Tombstones = new Map();
  while (r.remaining > 0) {
    const ref = r.uvarint();
    const iv: Interval = [r.varint(), r.varint()];
    out.set(ref, addInterval(out.get(ref) ?? [], iv));
  }
  return out;
}

export async function readTombstones(dir: string): Promise<Tombstones> {
  return readTombstonesFile(dir).tombstones;
}

/** The tombstones of the block in `dir` (none without the file) and the file's size. */
export function readTombstonesFile(dir: string): { tombstones: Tombstones; bytes: number } {
  const file = path.join(dir, 'tombstones');
  let b: Uint8Array;
  try { b = new Uint8Array(readFileSync(file)); } catch { return { tombstones: new Map(), bytes: 0 }; }
  return { tombstones: decodeTombstones(b, file), bytes: b.length };
}

export async function writeTombstones(dir: string, ts: Tombstones): Promise<void> {
  await writeFileAtomic(path.join(dir, 'tombstones'), encodeTombstonesFile(ts));
}

export function countIntervals(ts: Tombstones): number {
  let n = 0;
  for (const ivs of ts.values()) n += ivs.length;
  return n;
}
