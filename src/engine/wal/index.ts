/**
 * Segmented write-ahead log with group commit (docs/format.md "WAL segment", "WAL record").
 *
 * Contract for owners (doc shards, TSDB head, workflow queue): open, then `replay` to rebuild state (this also
 * truncates a torn tail left by a crash), then append. Appends resolve only once fsynced; concurrent appends
 * share one fsync. Each process writes into fresh segments: segments that existed at open are never appended
 * to, so recovery only ever touches bytes that no live writer owns. Checkpointing: `pos = await cut()`,
 * persist state, `truncateBefore(pos)`.
 */
import { promises as fsp } from 'node:fs';
import { CorruptionError, InvalidArgumentError } from '../errors.ts';
import { checkFileHeader } from '../codec/file-header.ts';
import {
  FILE_HEADER_SIZE, WAL_DEFAULT_SEGMENT_SIZE_BYTES, WAL_SEGMENT_MAGIC, WAL_SEGMENT_MIN_VERSION, WAL_SEGMENT_VERSION,
} from '../codec/format-ids.ts';
import { findGap, gapError, listSegments, segmentPath } from './segment-files.ts';
import { syncDir } from '../store/durable-files.ts';
import { WalWriter, type WalPosition, type WalRecordInput } from './writer.ts';
import { replaySegments, type RecordCallback } from './reader.ts';

export type { WalPosition, WalRecordInput } from './writer.ts';
export { segmentName } from './segment-files.ts';

export interface WalOptions {
  dir: string;
  /** Soft cap of a segment file (a larger single record gets a segment of its own). Default 128 MiB. */
  segmentSizeBytes?: number;
  /** Snappy-compress payloads (each record is stored raw when compression would not shrink it). */
  compress?: boolean;
  /**
   * Extend the segment being written with zeros this many bytes at a time, ahead of the records (trimmed when
   * the segment is closed): an fsync of bytes written over an allocated extent flushes no file-system
   * metadata, where one that grows the file also commits the file system's journal (2× the latency on ext4,
   * more on a busy disk). A crash leaves zeros after the last record, which recovery treats as a torn tail.
   */
  preallocateBytes?: number;
  /** Truncate at mid-log corruption (dropping every later record) instead of throwing CorruptionError. */
  repair?: boolean;
  /** Recovery warnings (torn tail truncated, repair performed). Default: process.emitWarning. */
  onWarning?: (msg: string) => void;
  /**
   * Called once when a batch fails to write or fsync, after its files were put back and before its appends
   * reject: the owner drops what it applied in memory (by reopening from disk) before any caller hears.
   */
  onFailure?: (err: unknown) => void;
}

export interface WalStats { bytesWritten: number; fsyncs: number; records: number; segments: number }

export class Wal {
  private readonly dir: string;
  private readonly repair: boolean;
  private readonly onWarning: (msg: string) => void;
  private readonly writer: WalWriter;
  /** Segment files present, ascending. */
  private readonly segments: number[];
  private readonly tailSegment: number;
  private ownSegments = 0;

  private constructor(opts: WalOptions, segments: number[], onWarning: (msg: string) => void) {
    this.dir = opts.dir;
    this.repair = opts.repair ?? false;
    this.onWarning = onWarning;
    this.segments = segments;
    this.tailSegment = segments.length > 0 ? segments[segments.length - 1] : -1;
    const segmentSizeBytes = opts.segmentSizeBytes ?? WAL_DEFAULT_SEGMENT_SIZE_BYTES;
    if (!(segmentSizeBytes > FILE_HEADER_SIZE)) {
      throw InvalidArgumentError.of('INVALID_ARGUMENT', [`WAL segmentSizeBytes must exceed ${FILE_HEADER_SIZE}, got ${segmentSizeBytes}`]);
    }
    this.writer = new WalWriter({
      dir: opts.dir,
      firstSegment: this.tailSegment + 1,
      segmentSizeBytes,
      compress: opts.compress ?? false,
      preallocateBytes: opts.preallocateBytes ?? 0,
      onSegmentCreated: (seq) => { this.segments.push(seq); this.ownSegments++; },
      onFailure: opts.onFailure ?? (() => undefined),
    });
    trackWal(this);
  }

  /**
   * Opens (creating the directory if needed) without replaying. Checks every segment header (magic:
   * CorruptionError, version: FormatVersionError) and that segment numbers are contiguous; removes a last
   * segment whose creation was torn (shorter than its header, or all zeros) with a warning.
   */
  static async open(opts: WalOptions): Promise<Wal> {
    const onWarning = opts.onWarning ?? ((msg: string) => process.emitWarning(msg, 'TesseraWalWarning'));
    await fsp.mkdir(opts.dir, { recursive: true });
    const segments = await listSegments(opts.dir);
    await dropTornLastSegment(opts.dir, segments, onWarning);
    const gap = findGap(segments);
    if (gap >= 0) {
      if (!opts.repair) throw gapError(opts.dir, segments, gap);
      onWarning(`WAL: repair: ${gapError(opts.dir, segments, gap).message}; deleting the segments after the gap`);
      await deleteSegments(opts.dir, segments.splice(gap));
    }
    for (let i = 0; i < segments.length; i++) {
      const bad = await checkSegmentHeader(opts.dir, segments[i]);
      if (bad === null) continue;
      if (!opts.repair || !(bad instanceof CorruptionError)) throw bad;
      onWarning(`WAL: repair: ${bad.message}; deleting this and the later segments`);
      await deleteSegments(opts.dir, segments.splice(i));
      break;
    }
    return new Wal(opts, segments, onWarning);
  }

  /** The oldest segment present (0 until a flush trims the log), or null when there is none. */
  firstSegment(): number | null {
    return this.segments.length > 0 ? this.segments[0] : null;
  }

  append(type: number, payload: Uint8Array): Promise<WalPosition> {
    return this.writer.append([{ type, payload }]);
  }

  /** Several records, one fsync; resolves with the position of the first. A torn tail may keep a prefix. */
  appendBatch(records: readonly WalRecordInput[]): Promise<WalPosition> {
    return this.writer.append(records);
  }

  /**
   * Calls `onRecord` for every record from `from` (inclusive; null = the start of the log) in log order and
   * resolves with the number of records and of framed bytes read. A raw payload aliases a read buffer that is
   * never reused (safe to keep); `type` is 1..127. Truncates a torn tail with a warning; throws
   * CorruptionError (file, offset) at damage inside the log unless `repair` is set.
   */
  replay(from: WalPosition | null, onRecord: RecordCallback): Promise<{ records: number; bytes: number }> {
    const live = this.writer.live();
    return replaySegments({
      dir: this.dir,
      segments: this.segments.slice(),
      from,
      tailSegment: this.tailSegment,
      liveSegment: live.open ? live.segment : -1,
      liveEnd: live.end,
      hasOwnSegments: this.ownSegments > 0,
      repair: this.repair,
      onWarning: this.onWarning,
      onSegmentsDeleted: (seqs) => this.forgetSegments(seqs),
    }, onRecord);
  }

  position(): WalPosition {
    return this.writer.position();
  }

  /** Closes the current segment after everything queued; resolves with the start of the next segment. */
  cut(): Promise<WalPosition> {
    return this.writer.cut();
  }

  /** True when every record appended so far is durable. */
  idle(): boolean {
    return this.writer.idle();
  }

  /** Resolves when the appends queued so far (and any made meanwhile) are settled. */
  drain(): Promise<void> {
    return this.writer.drain();
  }

  /** The error of a batch that failed (appends are refused since), or null. */
  failure(): unknown {
    return this.writer.failure();
  }

  /** Deletes the whole segments strictly before `pos.segment` (never the one being written). */
  async truncateBefore(pos: WalPosition): Promise<void> {
    const limit = Math.min(pos.segment, this.writer.position().segment);
    const doomed = this.segments.filter((s) => s < limit);
    if (doomed.length === 0) return;
    await deleteSegments(this.dir, doomed);
    this.forgetSegments(doomed);
  }

  stats(): WalStats {
    const w = this.writer;
    return { bytesWritten: w.bytesWritten, fsyncs: w.fsyncs, records: w.records, segments: this.segments.length };
  }

  /** Flushes what is queued and closes the current segment. */
  async close(): Promise<void> {
    await this.writer.close();
    untrackWal(this);
  }

  private forgetSegments(seqs: readonly number[]): void {
    for (let i = 0; i < seqs.length; i++) {
      const at = this.segments.indexOf(seqs[i]);
      if (at >= 0) this.segments.splice(at, 1);
    }
  }
}

/** Null when the header of segment `seq` is valid, else the error describing it. */
async function checkSegmentHeader(dir: string, seq: number): Promise<Error | null> {
  const file = segmentPath(dir, seq);
  const fh = await fsp.open(file, 'r');
  try {
    const buf = Buffer.alloc(FILE_HEADER_SIZE);
    const { bytesRead } = await fh.read(buf, 0, FILE_HEADER_SIZE, 0);
    checkFileHeader(buf.subarray(0, bytesRead), file, WAL_SEGMENT_MAGIC, WAL_SEGMENT_MIN_VERSION, WAL_SEGMENT_VERSION);
    return null;
  } catch (err) {
    if (err instanceof Error) return err;
    throw err;
  } finally {
    await fh.close();
  }
}

/**
 * A crash between creating a segment and fsyncing its header leaves a last segment that is shorter than the
 * header or all zeros; it holds no record, so it is removed (with a warning) rather than reported as corrupt.
 */
async function dropTornLastSegment(dir: string, segments: number[], onWarning: (msg: string) => void): Promise<void> {
  if (segments.length === 0) return;
  const seq = segments[segments.length - 1];
  const file = segmentPath(dir, seq);
  const size = (await fsp.stat(file)).size;
  const head = await readHead(file, Math.min(size, FILE_HEADER_SIZE));
  if (size >= FILE_HEADER_SIZE && !isZero(head)) return;
  // Only a header-less file is read whole, so a normal open never reads segment bodies.
  if (size > FILE_HEADER_SIZE && !isZero(await fsp.readFile(file))) return; // left for the header check to report
  onWarning(`WAL: removing ${file}: its creation was torn (${size} bytes, no header)`);
  await deleteSegments(dir, [seq]);
  segments.pop();
}

async function deleteSegments(dir: string, seqs: readonly number[]): Promise<void> {
  for (let i = 0; i < seqs.length; i++) await fsp.rm(segmentPath(dir, seqs[i]), { force: true });
  await syncDir(dir);
}

async function readHead(file: string, n: number): Promise<Buffer> {
  const fh = await fsp.open(file, 'r');
  try {
    const buf = Buffer.alloc(n);
    const { bytesRead } = await fh.read(buf, 0, n, 0);
    return buf.subarray(0, bytesRead);
  } finally {
    await fh.close();
  }
}

function isZero(buf: Uint8Array): boolean {
  for (let i = 0; i < buf.length; i++) if (buf[i] !== 0) return false;
  return true;
}

// Per-thread accounting for Tessera's own /metrics: every WAL opened on this thread, open or closed — this
// log and the TSDB's Prometheus-format one, which registers itself here.
const OPEN_WALS = new Set<{ stats(): WalStats }>();
const CLOSED_TOTALS = { bytesWritten: 0, fsyncs: 0, records: 0 };

/** Counts an open log in `walThreadTotals` (call once when it opens). */
export function trackWal(w: { stats(): WalStats }): void {
  OPEN_WALS.add(w);
}

/** Moves a closing log's final figures into the closed totals (idempotent). */
export function untrackWal(w: { stats(): WalStats }): void {
  if (!OPEN_WALS.delete(w)) return;
  const st = w.stats();
  CLOSED_TOTALS.bytesWritten += st.bytesWritten;
  CLOSED_TOTALS.fsyncs += st.fsyncs;
  CLOSED_TOTALS.records += st.records;
}

/** Bytes, fsyncs and records written by all WALs of the calling thread since it started. */
export function walThreadTotals(): { bytesWritten: number; fsyncs: number; records: number } {
  const t = { ...CLOSED_TOTALS };
  for (const w of OPEN_WALS) {
    const st = w.stats();
    t.bytesWritten += st.bytesWritten;
    t.fsyncs += st.fsyncs;
    t.records += st.records;
  }
  return t;
}
