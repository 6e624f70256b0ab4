/**
 * WAL replay (docs/format.md "WAL record", "Recovery").
 *
 * Segments are read in order in chunks; each record's CRC is checked and snappy payloads are decompressed.
 * When a record does not check out at offset X the reader decides between two cases:
 *  - torn tail: X is in the last segment that existed when the WAL was opened and no valid record starts
 *    anywhere after X (a half-written last write, a short record at EOF, or trailing zeros). The segment is
 *    truncated at X with a warning — those bytes were never acknowledged, since an append resolves only
 *    after its fsync.
 *  - corruption: anything else (a valid record follows the damage, or the damage is in an earlier
 *    segment). Replay throws `CorruptionError(segment file, X)`; with `repair` it truncates at X, deletes the
 *    later segments and warns instead.
 */
import { promises as fsp } from 'node:fs';
import { CorruptionError } from '../errors.ts';
import { checkFileHeader } from '../codec/file-header.ts';
import { SNAPPY_SYNC_BUDGET_BYTES, uncompressSync, yieldToLoop } from '../codec/snappy.ts';
import {
  FILE_HEADER_SIZE, WAL_RECORD_FLAG_SNAPPY, WAL_RECORD_HEADER_SIZE, WAL_RECORD_TYPE_MASK,
  WAL_SEGMENT_MAGIC, WAL_SEGMENT_MIN_VERSION, WAL_SEGMENT_VERSION,
} from '../codec/format-ids.ts';
import { checkRecord, recordLength, REC_OK, REC_SHORT, REC_ZERO } from './record.ts';
import { segmentPath } from './segment-files.ts';
import { syncDir } from '../store/durable-files.ts';
import type { WalPosition } from './writer.ts';

/** Size of the chunks segments are read in (grown for a larger record). */
const READ_CHUNK_BYTES = 4 * 1024 * 1024;

export type RecordCallback = (type: number, payload: Uint8Array, pos: WalPosition) => void;

export interface ReplayPlan {
  dir: string;
  /** Segments to read, ascending. */
  segments: readonly number[];
  from: WalPosition | null;
  /** Last segment that existed when the WAL was opened (-1: none); only its tail may be torn. */
  tailSegment: number;
  /** Segment being written by this process and its durable end (read no further than that). */
  liveSegment: number;
  liveEnd: number;
  /** True when this process has created segments (then repair may not drop segments). */
  hasOwnSegments: boolean;
  repair: boolean;
  onWarning: (msg: string) => void;
  /** Called with the segments a repair deleted. */
  onSegmentsDeleted: (seqs: number[]) => void;
}

export interface ReplayResult { records: number; bytes: number }

/** Replays the plan's segments in order; see the file comment for damage handling. */
export async function replaySegments(plan: ReplayPlan, onRecord: RecordCallback): Promise<ReplayResult> {
  const result: ReplayResult = { records: 0, bytes: 0 };
  const fromSeg = plan.from ? plan.from.segment : -1;
  for (let i = 0; i < plan.segments.length; i++) {
    const seq = plan.segments[i];
    if (seq < fromSeg) continue;
    const startOffset = seq === fromSeg ? Math.max(plan.from!.offset, FILE_HEADER_SIZE) : FILE_HEADER_SIZE;
    const stop = await replaySegment(plan, seq, startOffset, onRecord, result);
    if (stop) break;
  }
  return result;
}

/** Reads one segment. Returns true when replay must stop (a repair dropped the rest of the log). */
async function replaySegment(
  plan: ReplayPlan, seq: number, startOffset: number, onRecord: RecordCallback, result: ReplayResult,
): Promise<boolean> {
  const file = segmentPath(plan.dir, seq);
  const fh = await fsp.open(file, 'r');
  try {
    const end = seq === plan.liveSegment ? plan.liveEnd : (await fh.stat()).size;
    const header = Buffer.alloc(Math.min(FILE_HEADER_SIZE, end));
    await readFully(fh, header, 0);
    try {
      checkFileHeader(header, file, WAL_SEGMENT_MAGIC, WAL_SEGMENT_MIN_VERSION, WAL_SEGMENT_VERSION);
    } catch (err) {
      if (!(err instanceof CorruptionError)) throw err;
      return await handleDamage(plan, seq, fh, 0, end, err.details.reason as string);
    }
    const damage = await readRecords(fh, file, seq, startOffset, end, onRecord, result);
    if (damage === null) return false;
    return await handleDamage(plan, seq, fh, damage.offset, end, damage.reason);
  } finally {
    await fh.close();
  }
}

/**
 * Emits the records of `[startOffset, end)`. Returns null at a clean end, or the offset and reason of the
 * first record that does not check out.
 */
async function readRecords(
  fh: fsp.FileHandle, file: string, seq: number, startOffset: number, end: number, onRecord: RecordCallback, result: ReplayResult,
): Promise<{ offset: number; reason: string } | null> {
  let pos = startOffset;
  let chunkBytes = READ_CHUNK_BYTES;
  let sinceYield = 0;
  while (pos < end) {
    const avail = Math.min(chunkBytes, end - pos);
    // A fresh buffer per chunk: raw payloads handed to onRecord alias it and stay valid after the callback.
    const buf = Buffer.allocUnsafe(avail);
    await readFully(fh, buf, pos);
    let off = 0;
    // Invariant: buf[0..off) holds whole, checked records that have been emitted.
    while (off < avail) {
      const st = checkRecord(buf, off, avail);
      if (st !== REC_OK) {
        if (st === REC_SHORT && pos + avail < end) break; // continues in the next chunk
        return { offset: pos + off, reason: describe(st) };
      }
      const len = recordLength(buf, off);
      const typeFlags = buf[off];
      const start = off + WAL_RECORD_HEADER_SIZE;
      let payload: Uint8Array = buf.subarray(start, start + len);
      if ((typeFlags & WAL_RECORD_FLAG_SNAPPY) !== 0) {
        payload = decompress(payload, file, pos + off);
        sinceYield += payload.length;
      }
      onRecord(typeFlags & WAL_RECORD_TYPE_MASK, payload, { segment: seq, offset: pos + off });
      result.records++;
      result.bytes += WAL_RECORD_HEADER_SIZE + len;
      off = start + len;
    }
    if (off === 0) {
      // One record larger than the chunk: read it whole next time (its length fits, else it was damage).
      chunkBytes = WAL_RECORD_HEADER_SIZE + recordLength(buf, 0);
    } else {
      chunkBytes = READ_CHUNK_BYTES;
    }
    pos += off;
    if (sinceYield >= SNAPPY_SYNC_BUDGET_BYTES) {
      await yieldToLoop(); // lets native snappy buffers be released (codec/snappy.ts memory trap)
      sinceYield = 0;
    }
  }
  return null;
}

function decompress(stored: Uint8Array, file: string, offset: number): Uint8Array {
  try {
    return uncompressSync(stored);
  } catch (err) {
    // The CRC matched, so the writer stored bytes snappy cannot read: still corruption of the log.
    throw new CorruptionError(file, offset, `snappy payload does not decode: ${String(err)}`);
  }
}

/**
 * Classifies damage at `offset` of segment `seq` (see the file comment) and acts on it. Returns true when
 * replay must stop.
 */
async function handleDamage(
  plan: ReplayPlan, seq: number, fh: fsp.FileHandle, offset: number, end: number, reason: string,
): Promise<boolean> {
  const file = segmentPath(plan.dir, seq);
  const isTail = seq === plan.tailSegment && seq !== plan.liveSegment;
  if (isTail && offset >= FILE_HEADER_SIZE) {
    const rest = Buffer.allocUnsafe(end - offset);
    await readFully(fh, rest, offset);
    if (findRecord(rest, 1) < 0) {
      plan.onWarning(`WAL: truncating torn tail of ${file} at offset ${offset} ` +
        `(${end - offset} bytes, ${reason}); these bytes were never acknowledged`);
      await truncateFile(file, offset);
      return false;
    }
  }
  const err = new CorruptionError(file, offset, reason);
  if (!plan.repair || seq > plan.tailSegment || plan.hasOwnSegments) throw err;
  plan.onWarning(`WAL: repair: ${err.message}; truncating there and deleting the later segments`);
  const deleted: number[] = [];
  if (offset < FILE_HEADER_SIZE) {
    await fsp.rm(file);
    deleted.push(seq);
  } else {
    await truncateFile(file, offset);
  }
  for (let s = seq + 1; s <= plan.tailSegment; s++) {
    await fsp.rm(segmentPath(plan.dir, s), { force: true });
    deleted.push(s);
  }
  await syncDir(plan.dir);
  plan.onSegmentsDeleted(deleted);
  return true;
}

/**
 * First offset ≥ `from` in `buf` where a complete record with a matching CRC starts, or -1. Used only after
 * damage, to tell a torn tail (nothing valid follows) from corruption inside the log.
 */
export function findRecord(buf: Uint8Array, from: number): number {
  const n = buf.length;
  for (let p = from; p + WAL_RECORD_HEADER_SIZE <= n; p++) {
    if ((buf[p] & WAL_RECORD_TYPE_MASK) === 0) continue; // cheap reject before the CRC
    if (checkRecord(buf, p, n) === REC_OK) return p;
  }
  return -1;
}

function describe(status: number): string {
  if (status === REC_SHORT) return 'record runs past the end of the segment';
  if (status === REC_ZERO) return 'zero bytes where a record header should start';
  return 'record checksum mismatch';
}

async function truncateFile(file: string, length: number): Promise<void> {
  const fh = await fsp.open(file, 'r+');
  try {
    await fh.truncate(length);
    await fh.datasync();
  } finally {
    await fh.close();
  }
}

/** Fills `buf` from file offset `position`; a short file is a caller bug here (sizes come from stat). */
async function readFully(fh: fsp.FileHandle, buf: Buffer, position: number): Promise<void> {
  let off = 0;
  while (off < buf.length) {
    const { bytesRead } = await fh.read(buf, off, buf.length - off, position + off);
    if (bytesRead === 0) throw new CorruptionError(`fd ${fh.fd}`, position + off, 'unexpected end of file');
    off += bytesRead;
  }
}
