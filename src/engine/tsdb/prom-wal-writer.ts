/**
 * The TSDB WAL's writer (docs/format.md "TSDB WAL (Prometheus's wlog)"): Prometheus's segment and page layout
 * (prom-wal-pages.ts) with group commit.
 *
 * `log` queues records through group commit (wal/group-commit.ts) and resolves once they are durable: a batch
 * compresses each record (kept raw when snappy does not shrink it, as Prometheus does), lays the fragments
 * out, writes them with one positional write per segment touched and one `datasync` — so concurrent appends
 * share an fsync, where Prometheus itself never fsyncs an append. A record that no longer fits in the segment starts the next one (a record never spans segments);
 * a closed segment ends with a zero-padded page. A write or fsync failure puts the files back to where the
 * batch started (wal/failed-batch.ts), then makes the writer unusable: the batch and every later call reject
 * (after a failed fsync the state of the page cache is unknown) until the owner reopens the log from disk.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { InternalError } from '../errors.ts';
import { compressSync, SNAPPY_SYNC_BUDGET_BYTES, yieldToLoop } from '../codec/snappy.ts';
import { FragmentEncoder } from './prom-wal-pages.ts';
import { RecentObservations } from '../model/recent-observations.ts';
import { syncDir } from '../store/durable-files.ts';
import { GroupCommit } from '../wal/group-commit.ts';
import { BatchUndo, walWriteError, type BatchStart } from '../wal/failed-batch.ts';

interface Entry {
  records: readonly Uint8Array[];
  cut: boolean;
}

/** Buffered bytes after which a batch is written out before it ends (bounds the scratch buffer). */
const WRITE_CHUNK_BYTES = 8 * 1024 * 1024;

export const segmentFileName = (seq: number): string => String(seq).padStart(8, '0');

export class PromWalWriter {
  private readonly enc = new FragmentEncoder();
  private fh: fsp.FileHandle | null = null;
  private readonly commits = new GroupCommit<Entry, number>((batch) => this.writeBatch(batch),
    (f) => walWriteError(this.dir, f));
  private readonly undo: BatchUndo;
  private closed = false;
  private started = false;
  bytesWritten = 0;
  fsyncs = 0;
  /** Each segment fsync's duration in seconds (`prometheus_tsdb_wal_fsync_duration_seconds`). */
  readonly fsyncSeconds = new RecentObservations();
  records = 0;

  /** `seq` is the segment the writer creates first; `onSegment` hears of every segment it creates. */
  constructor(readonly dir: string, private seq: number, private readonly segmentBytes: number,
    private readonly compress: boolean, private readonly onSegment: (seq: number) => void,
    onFailure: (err: unknown) => void = () => undefined) {
    this.undo = new BatchUndo(dir, segmentFileName, onFailure);
  }

  /** The segment being written. */
  get segment(): number { return this.seq; }

  /** Creates the first segment (Prometheus also creates it when the log opens). */
  async start(): Promise<void> {
    await this.openSegment();
    this.started = true;
  }

  /** Queues records (each a whole TSDB record, type byte first); resolves when all are fsynced. */
  log(records: readonly Uint8Array[]): Promise<void> {
    return this.enqueue(records, false).then(() => undefined);
  }

  /** Closes the current segment after everything queued and starts the next; resolves with the closed one. */
  cut(): Promise<number> {
    return this.enqueue([], true);
  }

  /** The error that failed a batch (the log refuses appends since), or null. */
  failure(): unknown {
    return this.commits.failure;
  }

  /**
   * Waits for queued records, pads the last page and closes the segment. Later calls reject. After a failed
   * batch whose files could not be put back, retries that and throws when it fails again.
   */
  async close(): Promise<void> {
    this.closed = true;
    await this.commits.drain();
    await this.undo.retry();
    const fh = this.fh;
    if (fh === null) return;
    this.fh = null;
    try {
      if (this.commits.failure === null) {
        this.enc.padPage();
        await this.writeOut(fh);
        await this.fsync(fh);
      }
    } finally {
      await fh.close();
    }
  }

  private enqueue(records: readonly Uint8Array[], cut: boolean): Promise<number> {
    if (this.closed || !this.started) return Promise.reject(InternalError.of('INTERNAL', [`WAL ${this.dir} is not open`]));
    return this.commits.push({ records, cut });
  }

  /** Writes one batch; per entry the closed segment of a cut, else the segment written to. */
  private async writeBatch(batch: Entry[]): Promise<number[]> {
    const start: BatchStart = { seq: this.seq, offset: this.enc.pos };
    try {
      return await this.writeRecords(batch);
    } catch (err) {
      const fh = this.fh;
      this.fh = null;
      throw await this.undo.fail(err, start, this.seq, fh);
    }
  }

  private async writeRecords(batch: Entry[]): Promise<number[]> {
    const enc = this.enc;
    const out: number[] = new Array(batch.length);
    let sinceYield = 0;
    for (let i = 0; i < batch.length; i++) {
      const e = batch[i];
      if (e.cut) { out[i] = await this.nextSegment(); continue; }
      for (let k = 0; k < e.records.length; k++) {
        let stored = e.records[k];
        let snappy = false;
        if (this.compress && stored.length > 0) {
          // Sync snappy with a yield every budget (codec/snappy.ts memory trap); the fsync below turns the loop too.
          if (sinceYield >= SNAPPY_SYNC_BUDGET_BYTES) { await yieldToLoop(); sinceYield = 0; }
          sinceYield += stored.length;
          const c = compressSync(stored);
          if (c.length < stored.length) { stored = c; snappy = true; }
        }
        enc.padIfFull();
        if (enc.pos > 0 && !enc.fits(stored.length, this.segmentBytes)) await this.nextSegment();
        enc.append(stored, snappy);
        this.records++;
        if (enc.used >= WRITE_CHUNK_BYTES) await this.writeOut(this.fh!);
      }
      out[i] = this.seq;
    }
    if (enc.used > 0) {
      await this.writeOut(this.fh!);
      await this.fsync(this.fh!);
    }
    return out;
  }

  private async fsync(fh: fsp.FileHandle): Promise<void> {
    const t0 = performance.now();
    await fh.datasync();
    this.fsyncs++;
    this.fsyncSeconds.observe((performance.now() - t0) / 1000);
  }

  /** Pads and fsyncs the current segment, closes it and creates the next; returns the closed segment. */
  private async nextSegment(): Promise<number> {
    const fh = this.fh!;
    this.enc.padPage();
    await this.writeOut(fh);
    await this.fsync(fh);
    this.fh = null;
    await fh.close();
    const closed = this.seq;
    this.seq++;
    await this.openSegment();
    return closed;
  }

  private async openSegment(): Promise<void> {
    this.fh = await fsp.open(path.join(this.dir, segmentFileName(this.seq)), 'wx');
    await syncDir(this.dir);
    this.fsyncs++;
    this.enc.startSegment();
    this.onSegment(this.seq);
  }

  /** Writes the buffered bytes at their segment offset. */
  private async writeOut(fh: fsp.FileHandle): Promise<void> {
    const enc = this.enc;
    let off = 0;
    while (off < enc.used) {
      const { bytesWritten } = await fh.write(enc.buf, off, enc.used - off, enc.base + off);
      off += bytesWritten;
    }
    this.bytesWritten += enc.used;
    enc.flushed();
  }
}
