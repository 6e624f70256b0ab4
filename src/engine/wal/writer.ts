/**
 * The WAL writer: group commit over segment files (docs/format.md "WAL segment", "WAL record").
 *
 * Appends go through group commit (group-commit.ts): a batch is compressed, framed into one buffer, written
 * with one `write` per segment touched and made durable with one `datasync`. A write or fsync failure puts the
 * files back to where the batch started (failed-batch.ts), then makes the writer unusable: the batch and every
 * later append reject (DISK_FULL when the disk is full). The owner then reopens the log from disk, which is
 * how the log recovers once space is back: the refused records are gone from memory and from the files.
 */
import type { promises as fsp } from 'node:fs';
import { InternalError, InvalidArgumentError } from '../errors.ts';
import { compressSync, SNAPPY_SYNC_BUDGET_BYTES, yieldToLoop } from '../codec/snappy.ts';
import {
  FILE_HEADER_SIZE, WAL_RECORD_FLAG_SNAPPY, WAL_RECORD_HEADER_SIZE,
} from '../codec/format-ids.ts';
import { encodeRecord, MAX_RECORD_TYPE, MIN_RECORD_TYPE } from './record.ts';
import { createSegment, segmentName, writeFully } from './segment-files.ts';
import { BatchUndo, walWriteError, type BatchStart } from './failed-batch.ts';
import { GroupCommit } from './group-commit.ts';

export interface WalPosition { segment: number; offset: number }
export interface WalRecordInput { type: number; payload: Uint8Array }

/** One queued append (a single record, a batch of records, or a segment cut). */
interface Entry {
  records: readonly WalRecordInput[];
  cut: boolean;
}

export interface WalWriterOptions {
  dir: string;
  firstSegment: number;
  segmentSizeBytes: number;
  compress: boolean;
  /** Zeros written ahead of the records, this many bytes at a time (0: the file grows with each write). */
  preallocateBytes?: number;
  /** Called after a segment file has been created (and its directory entry fsynced). */
  onSegmentCreated: (seq: number) => void;
  /** Called once when a batch fails, after the rollback and before its appends reject. */
  onFailure: (err: unknown) => void;
}

export class WalWriter {
  readonly dir: string;
  private readonly segmentSizeBytes: number;
  private readonly compress: boolean;
  private readonly onSegmentCreated: (seq: number) => void;
  /** Segment being written (or the one the next write will create when `fh` is null). */
  private seq: number;
  private fh: fsp.FileHandle | null = null;
  /** Durable end of the current segment: every byte before it has been written and fsynced. */
  private offset = FILE_HEADER_SIZE;
  private readonly commits = new GroupCommit<Entry, WalPosition>((batch) => this.writeBatch(batch), () => this.checkUsable());
  private closed = false;
  private scratch: Buffer = Buffer.allocUnsafe(64 * 1024);
  bytesWritten = 0;
  fsyncs = 0;
  records = 0;
  private bufferedRecords = 0;
  private readonly undo: BatchUndo;
  private readonly preallocateBytes: number;
  /** End of the current segment file (past `offset` when zeros were written ahead). */
  private allocated = 0;

  constructor(opts: WalWriterOptions) {
    this.dir = opts.dir;
    this.preallocateBytes = opts.preallocateBytes ?? 0;
    this.seq = opts.firstSegment;
    this.segmentSizeBytes = opts.segmentSizeBytes;
    this.compress = opts.compress;
    this.onSegmentCreated = opts.onSegmentCreated;
    this.undo = new BatchUndo(this.dir, segmentName, opts.onFailure);
  }

  /** Where the next record will go (durable end of the current segment). */
  position(): WalPosition {
    return { segment: this.seq, offset: this.offset };
  }

  /** The segment being written and its durable end; `open` is false before the segment file exists. */
  live(): { segment: number; end: number; open: boolean } {
    return { segment: this.seq, end: this.offset, open: this.fh !== null };
  }

  /** Queues records; resolves with the position of the first one once all are fsynced. */
  append(records: readonly WalRecordInput[]): Promise<WalPosition> {
    const err = this.checkUsable() ?? validate(records);
    if (err) return Promise.reject(err);
    return this.enqueue(records, false);
  }

  /** Queues a segment cut after everything already queued; resolves with the start of the new segment. */
  cut(): Promise<WalPosition> {
    const err = this.checkUsable();
    if (err) return Promise.reject(err);
    return this.enqueue([], true);
  }

  /** True when no append is queued or being written: every record appended so far is durable. */
  idle(): boolean {
    return this.commits.idle();
  }

  /** Resolves when the write loop next runs dry (appends made meanwhile are written first). */
  drain(): Promise<void> {
    return this.commits.drain();
  }

  /** The error that failed a batch (the log refuses appends since), or null. */
  failure(): unknown {
    return this.commits.failure;
  }

  /**
   * Waits for queued appends, then closes the segment file. Later appends reject. After a failed batch whose
   * files could not be put back, retries that and throws when it fails again: the log must not be reopened
   * while the refused records are still on disk.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.commits.drain();
    if (this.fh) {
      const fh = this.fh;
      this.fh = null;
      await this.trim(fh);
      await fh.close();
    }
    await this.undo.retry();
  }

  private checkUsable(): Error | null {
    // The batch's own error (DISK_FULL stays DISK_FULL) until the owner reopens the log.
    if (this.commits.failure !== null) return walWriteError(this.dir, this.commits.failure);
    if (this.closed) return InternalError.of('INTERNAL', [`WAL ${this.dir} is closed`]);
    return null;
  }

  private enqueue(records: readonly WalRecordInput[], cut: boolean): Promise<WalPosition> {
    return this.commits.push({ records, cut });
  }

  /**
   * Encodes and writes one batch, switching segments where a record would overflow the current one or a
   * cut was queued. Returns, per entry, the position of its first record (or of the new segment for a cut).
   */
  private async writeBatch(batch: Entry[]): Promise<WalPosition[]> {
    const start: BatchStart = { seq: this.seq, offset: this.fh ? this.offset : 0 };
    try {
      return await this.writeRecords(batch);
    } catch (err) {
      const fh = this.fh;
      this.fh = null;
      throw await this.undo.fail(err, start, this.seq, fh);
    }
  }

  private async writeRecords(batch: Entry[]): Promise<WalPosition[]> {
    const { stored, flags, totalBytes } = await this.encodePayloads(batch);
    if (this.scratch.length < totalBytes) this.scratch = Buffer.allocUnsafe(Math.max(totalBytes, this.scratch.length * 2));
    const buf = this.scratch;
    const positions: WalPosition[] = new Array(batch.length);
    let used = 0; // bytes of buf not yet written; they belong at this.offset in the current segment
    let r = 0;
    for (let i = 0; i < batch.length; i++) {
      const e = batch[i];
      if (e.cut) {
        if (this.fh && this.offset + used > FILE_HEADER_SIZE) {
          await this.flushBuffered(buf, used);
          used = 0;
          await this.rotate();
        }
        positions[i] = { segment: this.seq, offset: this.offset + used };
        continue;
      }
      if (e.records.length === 0) positions[i] = { segment: this.seq, offset: this.offset + used };
      for (let k = 0; k < e.records.length; k++, r++) {
        const frameBytes = WAL_RECORD_HEADER_SIZE + stored[r].length;
        const segEnd = this.offset + used;
        if (this.fh === null || (segEnd + frameBytes > this.segmentSizeBytes && segEnd > FILE_HEADER_SIZE)) {
          if (this.fh) {
            await this.flushBuffered(buf, used);
            used = 0;
            await this.rotate();
          }
          await this.openSegment();
        }
        if (k === 0) positions[i] = { segment: this.seq, offset: this.offset + used };
        used = encodeRecord(buf, used, e.records[k].type | flags[r], stored[r]);
        this.bufferedRecords++;
      }
    }
    if (used > 0) await this.flushBuffered(buf, used);
    return positions;
  }

  /** Compresses payloads when enabled and worth it (a record is stored raw when snappy does not shrink it). */
  private async encodePayloads(batch: Entry[]): Promise<{ stored: Uint8Array[]; flags: Uint8Array; totalBytes: number }> {
    let n = 0;
    for (let i = 0; i < batch.length; i++) n += batch[i].records.length;
    const stored: Uint8Array[] = new Array(n);
    const flags = new Uint8Array(n);
    let totalBytes = 0;
    let sinceYield = 0;
    let r = 0;
    for (let i = 0; i < batch.length; i++) {
      const recs = batch[i].records;
      for (let k = 0; k < recs.length; k++, r++) {
        let p = recs[k].payload;
        if (this.compress && p.length > 0) {
          // Sync snappy is a few µs per record where the async call costs a thread-pool round trip each; the
          // memory trap (codec/snappy.ts) is avoided by yielding every SNAPPY_SYNC_BUDGET_BYTES, and the
          // write/fsync that follows every batch turns the loop as well.
          if (sinceYield >= SNAPPY_SYNC_BUDGET_BYTES) {
            await yieldToLoop();
            sinceYield = 0;
          }
          sinceYield += p.length;
          const c = compressSync(p);
          if (c.length < p.length) {
            p = c;
            flags[r] = WAL_RECORD_FLAG_SNAPPY;
          }
        }
        stored[r] = p;
        totalBytes += WAL_RECORD_HEADER_SIZE + p.length;
      }
    }
    return { stored, flags, totalBytes };
  }

  /** Writes `buf[0..used)` at the durable end of the current segment and fsyncs it. */
  private async flushBuffered(buf: Buffer, used: number): Promise<void> {
    const fh = this.fh!;
    if (this.preallocateBytes > 0 && this.offset + used > this.allocated) {
      // Zeros ahead first, so that this write and its fsync (and the next ones) land inside the file.
      const grow = Math.ceil((this.offset + used - this.allocated) / this.preallocateBytes) * this.preallocateBytes;
      const zeros = Buffer.alloc(Math.min(grow, this.preallocateBytes));
      for (let at = this.allocated; at < this.allocated + grow; at += zeros.length) await writeFully(fh, zeros, 0, zeros.length, at);
      this.allocated += grow;
    }
    await writeFully(fh, buf, 0, used, this.offset);
    await fh.datasync();
    this.fsyncs++;
    this.bytesWritten += used;
    this.records += this.bufferedRecords;
    this.bufferedRecords = 0;
    this.offset += used;
  }

  private async rotate(): Promise<void> {
    const fh = this.fh!;
    this.fh = null;
    await this.trim(fh);
    await fh.close();
    this.seq++;
    this.offset = FILE_HEADER_SIZE;
  }

  /** Cuts the zeros written ahead off a segment being closed, so that only the last segment may end in zeros. */
  private async trim(fh: fsp.FileHandle): Promise<void> {
    if (this.allocated <= this.offset) return;
    await fh.truncate(this.offset);
    await fh.datasync();
    this.fsyncs++;
    this.allocated = this.offset;
  }

  private async openSegment(): Promise<void> {
    this.fh = await createSegment(this.dir, this.seq);
    this.fsyncs += 2; // file header + directory entry
    this.bytesWritten += FILE_HEADER_SIZE;
    this.offset = FILE_HEADER_SIZE;
    this.allocated = FILE_HEADER_SIZE;
    this.onSegmentCreated(this.seq);
  }
}

function validate(records: readonly WalRecordInput[]): Error | null {
  for (let i = 0; i < records.length; i++) {
    const t = records[i].type;
    if (!Number.isInteger(t) || t < MIN_RECORD_TYPE || t > MAX_RECORD_TYPE) {
      return InvalidArgumentError.of('INVALID_ARGUMENT', [`WAL record type must be an integer in 1..127, got ${t}`]);
    }
    if (!(records[i].payload instanceof Uint8Array)) {
      return InvalidArgumentError.of('INVALID_ARGUMENT', ['WAL record payload must be a Uint8Array']);
    }
  }
  return null;
}
