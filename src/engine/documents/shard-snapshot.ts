/**
 * The shard snapshot file written by a flush (docs/format.md "Document shard snapshot"): the whole shard
 * state (every id's source, version, seq_no, routing, and young tombstones) plus the translog position the
 * state covers. Restart loads it and replays the translog from that position.
 *
 *   header (8: magic 'TDSS', version) · meta chunk · entry chunks · end chunk (len 0)
 *   chunk = len u32 BE · crc32c u32 BE · msgpack bytes
 * The file is written to a temporary name, fsynced and renamed, so a crash leaves the old or the new one.
 */
import { open, readFile, rename, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { pack, unpack } from '../codec/msgpack.ts';
import { crc32c } from '../codec/crc32c.ts';
import { checkFileHeader, encodeFileHeader } from '../codec/file-header.ts';
import { DOC_SNAPSHOT_FILE, DOC_SNAPSHOT_MAGIC, DOC_SNAPSHOT_MIN_VERSION, DOC_SNAPSHOT_VERSION, FILE_HEADER_SIZE } from '../codec/format-ids.ts';
import { CorruptionError } from '../errors.ts';
import type { DocEntry } from './doc-shard.ts';

export interface SnapshotMeta { maxSeqNo: number; walSegment: number; walOffset: number }

const CHUNK_DOCS = 4096;

type Row = [string, number, number, number, string | null, Uint8Array | null, number | null];

/** Writes `entries` (captured synchronously by the caller) and returns the file size. */
export async function writeSnapshot(dir: string, meta: SnapshotMeta, entries: [string, DocEntry][]): Promise<number> {
  const file = join(dir, DOC_SNAPSHOT_FILE);
  const tmp = `${file}.tmp`;
  const fh = await open(tmp, 'w');
  let size = 0;
  try {
    const put = async (bytes: Uint8Array): Promise<void> => {
      const head = Buffer.allocUnsafe(8);
      head.writeUInt32BE(bytes.byteLength, 0);
      head.writeUInt32BE(crc32c(bytes), 4);
      await fh.write(head);
      if (bytes.byteLength) await fh.write(bytes);
      size += 8 + bytes.byteLength;
    };
    await fh.write(encodeFileHeader(DOC_SNAPSHOT_MAGIC, DOC_SNAPSHOT_VERSION));
    size += FILE_HEADER_SIZE;
    await put(pack(meta));
    for (let i = 0; i < entries.length; i += CHUNK_DOCS) {
      const rows: Row[] = [];
      const end = Math.min(entries.length, i + CHUNK_DOCS);
      for (let j = i; j < end; j++) {
        const [id, e] = entries[j];
        rows.push([id, e.version, e.seqNo, e.primaryTerm, e.routing ?? null, e.source, e.deletedAt ?? null]);
      }
      await put(pack(rows));
    }
    await put(new Uint8Array(0));
    await fh.sync();
  } finally {
    await fh.close();
  }
  await rename(tmp, file);
  const d = await open(dir, 'r');
  try { await d.sync(); } finally { await d.close(); }
  return size;
}

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

export async function snapshotSize(dir: string): Promise<number> {
  try { return (await stat(join(dir, DOC_SNAPSHOT_FILE))).size; } catch { return 0; }
}
