/**
 * Reader of format 1's shard snapshot (docs/format.md "Document shard snapshot (format 1)"): the whole shard
 * state (every id's source, version, seq_no, routing, and young tombstones) plus the translog position it
 * covers. Format 2 keeps documents in segments; this is read once, to convert a shard written by format 1.
 *
 *   header (8: magic 'TDSS', version) · meta chunk · entry chunks · end chunk (len 0)
 *   chunk = len u32 BE · crc32c u32 BE · msgpack bytes
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { unpack } from '../codec/msgpack.ts';
import { crc32c } from '../codec/crc32c.ts';
import { checkFileHeader } from '../codec/file-header.ts';
import { DOC_SNAPSHOT_FILE, DOC_SNAPSHOT_MAGIC, DOC_SNAPSHOT_MIN_VERSION, DOC_SNAPSHOT_VERSION, FILE_HEADER_SIZE } from '../codec/format-ids.ts';
import { CorruptionError } from '../errors.ts';
import type { DocEntry } from './doc-shard.ts';

export interface SnapshotMeta { maxSeqNo: number; walSegment: number; walOffset: number }

type Row = [string, number, number, number, string | null, Uint8Array | null, number | null];

/** Reads the snapshot of `dir` (null when none was written yet); calls `onEntry` for every row. */
export async function readSnapshot(dir: string, onEntry: (id: string, e: DocEntry) => void): Promise<SnapshotMeta | null> {
  const file = join(dir, DOC_SNAPSHOT_FILE);
  let buf: Buffer;
  try { buf = await readFile(file); } catch (e) { if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null; throw e; }
  checkFileHeader(buf, file, DOC_SNAPSHOT_MAGIC, DOC_SNAPSHOT_MIN_VERSION, DOC_SNAPSHOT_VERSION);
  let off = FILE_HEADER_SIZE;
  const chunk = (): Uint8Array => {
    if (off + 8 > buf.length) throw new CorruptionError(file, off, 'truncated chunk header');
    const len = buf.readUInt32BE(off);
    const crc = buf.readUInt32BE(off + 4);
    if (off + 8 + len > buf.length) throw new CorruptionError(file, off, `chunk of ${len} bytes runs past the end`);
    const bytes = buf.subarray(off + 8, off + 8 + len);
    if (crc32c(bytes) !== crc) throw new CorruptionError(file, off, 'chunk checksum mismatch');
    off += 8 + len;
    return bytes;
  };
  const meta = unpack<SnapshotMeta>(chunk());
  for (;;) {
    const bytes = chunk();
    if (bytes.byteLength === 0) break;
    for (const [id, version, seqNo, primaryTerm, routing, source, deletedAt] of unpack<Row[]>(bytes)) {
      const e: DocEntry = { source: source ? new Uint8Array(source) : null, version, seqNo, primaryTerm };
      if (routing !== null) e.routing = routing;
      if (deletedAt !== null) e.deletedAt = deletedAt;
      onEntry(id, e);
    }
  }
  return meta;
}
