/**
 * Commit points (`segments_<gen>`, docs/format.md "Document segments"): the segments of the last flush, each
 * with the generation of its live-docs file, and the translog position and max sequence number the commit
 * covers. Restart opens exactly these segments and replays the translog from that position.
 *
 * A commit point is written to `segments_<gen>.tmp`, fsynced, renamed and the directory fsynced, so a crash
 * leaves the previous commit or the new one, never a partial file. Payload (one region after the header):
 * generation uvarint, translog segment uvarint, translog offset uvarint, maxSeqNo + 1 uvarint, segment count
 * uvarint, then per segment: name (uvarint length + UTF-8), delGen, delCount, delRoots (uvarints).
 */
import { readdirSync } from 'node:fs';
import { syncDirSync, writeFileAtomicSync } from '../store/durable-files.ts';
import { join } from 'node:path';
import { ByteReader, ByteWriter } from '../codec/byte-buf.ts';
import { crc32c } from '../codec/crc32c.ts';
import { encodeFileHeader } from '../codec/file-header.ts';
import { COMMIT_POINT_MAGIC, COMMIT_POINT_MIN_VERSION, COMMIT_POINT_PREFIX, COMMIT_POINT_VERSION } from '../codec/format-ids.ts';
import { SegmentFileReader } from './segment-file.ts';

export interface CommittedSegment {
  name: string;
  /** Generation of the segment's `.liv` file; 0 = no deletes. */
  delGen: number;
  delCount: number;
  delRoots: number;
}

export interface CommitPoint {
  generation: number;
  translogSegment: number;
  translogOffset: number;
  maxSeqNo: number;
  segments: CommittedSegment[];
}

export function commitFileName(generation: number): string {
  return COMMIT_POINT_PREFIX + generation.toString(36);
}

/** Generations of the commit points in `dir`, newest first (temporary files excluded). */
export function listCommits(dir: string): number[] {
  const out: number[] = [];
  for (const f of readdirSync(dir)) {
    if (!f.startsWith(COMMIT_POINT_PREFIX) || f.endsWith('.tmp')) continue;
    const g = parseInt(f.slice(COMMIT_POINT_PREFIX.length), 36);
    if (Number.isSafeInteger(g) && commitFileName(g) === f) out.push(g);
  }
  return out.sort((a, b) => b - a);
}

export function encodeCommitPoint(c: CommitPoint): Uint8Array {
  const w = new ByteWriter(256);
  w.uvarint(c.generation);
  w.uvarint(c.translogSegment);
  w.uvarint(c.translogOffset);
  w.uvarint(c.maxSeqNo + 1);
  w.uvarint(c.segments.length);
  for (const s of c.segments) { w.str(s.name); w.uvarint(s.delGen); w.uvarint(s.delCount); w.uvarint(s.delRoots); }
  return w.finish();
}

export function readCommitPoint(dir: string, generation: number): CommitPoint {
  const path = join(dir, commitFileName(generation));
  const f = new SegmentFileReader(path, COMMIT_POINT_MAGIC, COMMIT_POINT_MIN_VERSION, COMMIT_POINT_VERSION);
  let payload: Uint8Array;
  try { payload = f.readRegion({ off: 8, len: f.sizeBytes - 8 }); } finally { f.close(); }
  const r = new ByteReader(payload, path);
  const c: CommitPoint = { generation: r.uvarint(), translogSegment: r.uvarint(), translogOffset: r.uvarint(), maxSeqNo: r.uvarint() - 1, segments: [] };
  for (let n = r.uvarint(); n > 0; n--) c.segments.push({ name: r.str(), delGen: r.uvarint(), delCount: r.uvarint(), delRoots: r.uvarint() });
  return c;
}

/** Writes commit point `c` durably (temp file, fsync, rename, directory fsync). */
export function writeCommitPoint(dir: string, c: CommitPoint): void {
  const payload = encodeCommitPoint(c);
  const head = new Uint8Array(8);
  const dv = new DataView(head.buffer);
  dv.setUint32(0, payload.byteLength, true);
  dv.setUint32(4, crc32c(payload), true);
  const final = join(dir, commitFileName(c.generation));
  writeFileAtomicSync(final, [encodeFileHeader(COMMIT_POINT_MAGIC, COMMIT_POINT_VERSION), head, payload]);
  syncDirSync(dir);
}
