/**
 * Live-docs files (`_<segment>_<delGen>.liv`, docs/format.md "Document segments"): which docs of a segment are
 * not deleted, as of a commit. Written (fsynced) by the flush that commits new deletes, under a new
 * generation, so the file the previous commit names is never overwritten.
 *
 * Payload (one region after the header): maxDoc uvarint, deleted count uvarint, then ceil(maxDoc / 8) bytes,
 * bit (d & 7) of byte d >> 3 set when doc d is live.
 */
import { join } from 'node:path';
import { ByteReader, ByteWriter } from '../codec/byte-buf.ts';
import { SEGMENT_LIVE_DOCS_MAGIC, SEGMENT_MIN_VERSION, SEGMENT_VERSION } from '../codec/format-ids.ts';
import { CorruptionError } from '../errors.ts';
import { SegmentFileReader, SegmentFileWriter } from './segment-file.ts';

export function liveDocsFile(name: string, delGen: number): string {
  return `${name}_${delGen.toString(36)}.liv`;
}

/** Writes `live` (1 = live per doc) as generation `delGen` of segment `name`, fsynced. */
export function writeLiveDocs(dir: string, name: string, delGen: number, live: Uint8Array): void {
  const w = new ByteWriter(16 + (live.length >> 3));
  let deleted = 0;
  for (let d = 0; d < live.length; d++) if (live[d] === 0) deleted++;
  w.uvarint(live.length);
  w.uvarint(deleted);
  const bits = new Uint8Array((live.length + 7) >> 3);
  for (let d = 0; d < live.length; d++) if (live[d] !== 0) bits[d >> 3] |= 1 << (d & 7);
  w.bytes(bits);
  const f = new SegmentFileWriter(join(dir, liveDocsFile(name, delGen)), SEGMENT_LIVE_DOCS_MAGIC, SEGMENT_VERSION);
  f.region(w.finish());
  f.finish(true);
}

/** Reads generation `delGen` of segment `name`'s live docs, checking its size and deleted count. */
export function readLiveDocs(dir: string, name: string, delGen: number, maxDoc: number, delCount: number): Uint8Array {
  const path = join(dir, liveDocsFile(name, delGen));
  let f: SegmentFileReader;
  try { f = new SegmentFileReader(path, SEGMENT_LIVE_DOCS_MAGIC, SEGMENT_MIN_VERSION, SEGMENT_VERSION); } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') throw new CorruptionError(path, 0, 'live-docs file is missing');
    throw e;
  }
  let payload: Uint8Array;
  try { payload = f.readRegion({ off: 8, len: f.sizeBytes - 8 }); } finally { f.close(); }
  const r = new ByteReader(payload, path);
  const n = r.uvarint(), deleted = r.uvarint();
  if (n !== maxDoc || deleted !== delCount) throw new CorruptionError(path, 8, `live docs for ${n} docs with ${deleted} deleted, commit says ${maxDoc} and ${delCount}`);
  const bits = r.bytes((n + 7) >> 3);
  const live = new Uint8Array(n);
  let seen = 0;
  for (let d = 0; d < n; d++) { live[d] = (bits[d >> 3] >> (d & 7)) & 1; if (live[d] === 0) seen++; }
  if (seen !== deleted) throw new CorruptionError(path, 8, `bitmap has ${seen} deleted docs, header says ${deleted}`);
  return live;
}
