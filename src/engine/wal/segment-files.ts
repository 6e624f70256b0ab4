/**
 * WAL segment files on disk: naming, listing, creation (docs/format.md "WAL segment").
 *
 * A segment is named by its sequence number zero-padded to WAL_SEGMENT_NAME_DIGITS decimal digits
 * ("00000000", "00000001", …), so lexical order is log order. Other files in the directory are ignored, which
 * leaves room for owners to keep checkpoints beside their segments.
 */
import { promises as fsp } from 'node:fs';
import { syncDir } from '../store/durable-files.ts';
import { join } from 'node:path';
import { CorruptionError } from '../errors.ts';
import { encodeFileHeader } from '../codec/file-header.ts';
import { WAL_SEGMENT_MAGIC, WAL_SEGMENT_NAME_DIGITS, WAL_SEGMENT_VERSION } from '../codec/format-ids.ts';

const SEGMENT_NAME = new RegExp(`^\\d{${WAL_SEGMENT_NAME_DIGITS},}$`);

/** File name of segment `seq`. */
export function segmentName(seq: number): string {
  return String(seq).padStart(WAL_SEGMENT_NAME_DIGITS, '0');
}

/** Absolute path of segment `seq` in `dir`. */
export function segmentPath(dir: string, seq: number): string {
  return join(dir, segmentName(seq));
}

/** Sequence numbers of the segments in `dir`, ascending. Does not check that they are contiguous. */
export async function listSegments(dir: string): Promise<number[]> {
  const names = await fsp.readdir(dir);
  const seqs: number[] = [];
  for (let i = 0; i < names.length; i++) {
    if (SEGMENT_NAME.test(names[i])) seqs.push(Number(names[i]));
  }
  return seqs.sort((a, b) => a - b);
}

/** First index `i > 0` where `seqs[i] !== seqs[i-1] + 1`, or -1 when the list is contiguous. */
export function findGap(seqs: readonly number[]): number {
  for (let i = 1; i < seqs.length; i++) if (seqs[i] !== seqs[i - 1] + 1) return i;
  return -1;
}

/** Throws `CorruptionError` naming the first missing segment. */
export function gapError(dir: string, seqs: readonly number[], gapIndex: number): CorruptionError {
  const missing = segmentName(seqs[gapIndex - 1] + 1);
  return new CorruptionError(join(dir, missing), 0, `WAL segment is missing (segments are not sequential)`);
}

/**
 * Creates segment `seq` (it must not exist), writes and fsyncs its file header, and fsyncs the directory.
 * Returns the open handle positioned for appends (the caller writes at explicit offsets).
 */
export async function createSegment(dir: string, seq: number): Promise<fsp.FileHandle> {
  const fh = await fsp.open(segmentPath(dir, seq), 'wx');
  try {
    const header = encodeFileHeader(WAL_SEGMENT_MAGIC, WAL_SEGMENT_VERSION);
    await writeFully(fh, header, 0, header.length, 0);
    await fh.datasync();
    await syncDir(dir);
    return fh;
  } catch (err) {
    await fh.close();
    throw err;
  }
}

/** Writes `buf[off..off+len)` at file `position`, looping over short writes. */
export async function writeFully(
  fh: fsp.FileHandle, buf: Uint8Array, off: number, len: number, position: number,
): Promise<void> {
  while (len > 0) {
    const { bytesWritten } = await fh.write(buf, off, len, position);
    off += bytesWritten;
    len -= bytesWritten;
    position += bytesWritten;
  }
}
