/**
 * The TSDB's write-ahead log in Prometheus's own on-disk format (docs/format.md "TSDB WAL (Prometheus's
 * wlog)"), so Prometheus 2.x replays a shard's WAL and Tessera replays Prometheus's:
 *
 *   wal/00000000, 00000001, …          segments: 32 KiB pages of record fragments (prom-wal-pages.ts)
 *   wal/checkpoint.NNNNNNNN/00000000 …  a checkpoint is itself a WAL, holding what the head still needs from
 *                                      every segment ≤ N; replay reads it, then the segments after N
 *
 * Opening creates a new segment after the last segment or checkpoint (never appending to an old one, as
 * Prometheus does). Replay checks every fragment: damage in the last segment that existed at open is a torn
 * tail, truncated at the start of the damaged record with a warning (nothing after it was acknowledged: an
 * append resolves after its fsync); damage in an earlier segment or a checkpoint is a CorruptionError, unless
 * `repair` is set, which truncates there and deletes the later segments (Prometheus's `WL.Repair`).
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { CorruptionError, InvalidArgumentError } from '../errors.ts';
import { PROM_WAL_CHECKPOINT_PREFIX, PROM_WAL_PAGE_SIZE, PROM_WAL_SEGMENT_SIZE_BYTES } from '../codec/format-ids.ts';
import { trackWal, untrackWal } from '../wal/index.ts';
import { walWriteError } from '../wal/failed-batch.ts';
import { syncDir } from '../store/durable-files.ts';
import { readSegmentFile, type RecordCallback } from './prom-wal-reader.ts';
import { PromWalWriter, segmentFileName } from './prom-wal-writer.ts';
import { noWalCounts, type TsdbWal, type WalReplayResult, type WalStats } from './wal-port.ts';

export interface PromWalOptions {
  dir: string;
  /** snappy-compress records (`--storage.tsdb.wal-compression`; a record stays raw when snappy does not shrink it). */
  compress?: boolean;
  /** Segment size, rounded up to whole 32 KiB pages (the flag is shared with the other logs); default 128 MiB. */
  segmentSizeBytes?: number;
  /** Truncate at damage inside the log (dropping every later record) instead of throwing CorruptionError. */
  repair?: boolean;
  /** Recovery warnings (torn tail truncated, repair). Default: process.emitWarning. */
  onWarning?: (msg: string) => void;
  /**
   * Called once when a batch fails to write or fsync, after its files were put back and before its appends
   * reject: the owner drops the head (reopening it from disk) before any caller hears.
   */
  onFailure?: (err: unknown) => void;
}

const SEGMENT_RE = /^\d{8,}$/;
const CHECKPOINT_RE = /^checkpoint\.(\d{8,})$/;

export const checkpointDirName = (seq: number): string => `${PROM_WAL_CHECKPOINT_PREFIX}${segmentFileName(seq)}`;

/** What a WAL directory holds: segment numbers and checkpoint numbers, ascending. */
export interface WalDirListing { segments: number[]; checkpoints: number[] }

/** Lists a WAL directory (missing → empty). Checkpoints must be directories, as Prometheus requires. */
export async function listWalDir(dir: string): Promise<WalDirListing> {
  const out: WalDirListing = { segments: [], checkpoints: [] };
  const entries = await fsp.readdir(dir, { withFileTypes: true }).catch(() => []);
  for (const e of entries) {
    if (SEGMENT_RE.test(e.name) && e.isFile()) out.segments.push(Number(e.name));
    const m = CHECKPOINT_RE.exec(e.name);
    if (m && e.isDirectory()) out.checkpoints.push(Number(m[1]));
  }
  out.segments.sort((a, b) => a - b);
  out.checkpoints.sort((a, b) => a - b);
  return out;
}

/** Reads every segment of a checkpoint directory; any damage is corruption (a checkpoint is written whole). */
export async function readCheckpoint(dir: string, onRecord: RecordCallback): Promise<{ records: number; bytes: number }> {
  const { segments } = await listWalDir(dir);
  checkContiguous(dir, segments);
  let records = 0, bytes = 0;
  for (const s of segments) {
    const file = path.join(dir, segmentFileName(s));
    const r = await readSegmentFile(file, onRecord);
    if (r.damage) throw new CorruptionError(file, r.damage.offset, r.damage.reason);
    records += r.records; bytes += r.bytes;
  }
  return { records, bytes };
}

function checkContiguous(dir: string, segs: readonly number[]): void {
  for (let i = 1; i < segs.length; i++) {
    if (segs[i] !== segs[i - 1] + 1) {
      throw new CorruptionError(path.join(dir, segmentFileName(segs[i - 1] + 1)), 0, 'WAL segment is missing (segments are not sequential)');
    }
  }
}

/**
 * Writes `records` as `checkpoint.<seq>` in `walDir`: into `checkpoint.<seq>.tmp/`, fsynced, then renamed over
 * any older directory of that name, and the WAL directory fsynced.
 */
export async function writeCheckpoint(walDir: string, seq: number, records: Iterable<Uint8Array>, compress: boolean): Promise<void> {
  const final = path.join(walDir, checkpointDirName(seq));
  const tmp = `${final}.tmp`;
  await fsp.rm(tmp, { recursive: true, force: true });
  await fsp.mkdir(tmp);
  const w = new PromWalWriter(tmp, 0, PROM_WAL_SEGMENT_SIZE_BYTES, compress, () => {});
  await w.start();
  try {
    let batch: Uint8Array[] = [], bytes = 0;
    for (const r of records) {
      batch.push(r);
      bytes += r.length;
      // Large batches: each `log` is one fsync.
      if (bytes >= 8 << 20) { await w.log(batch); batch = []; bytes = 0; }
    }
    if (batch.length) await w.log(batch);
  } finally {
    await w.close();
  }
  await syncDir(tmp);
  await fsp.rm(final, { recursive: true, force: true });
  await fsp.rename(tmp, final);
  await syncDir(walDir);
}

export class PromWal implements TsdbWal {
  private readonly writer: PromWalWriter;
  private readonly onWarning: (msg: string) => void;
  /** Segments on disk, ascending (the writer's included). */
  private segments: number[];
  private readonly counts = noWalCounts();
  /** Last segment that existed at open (-1: none). */
  private readonly lastAtOpen: number;
  /**
   * Last segment with data at open: only its end may be torn. Empty segments after it do not count — opening
   * creates one before replay, so a crash during replay would otherwise turn a torn tail into "corruption".
   */
  private readonly tail: number;

  private constructor(private readonly opts: PromWalOptions, listing: WalDirListing, tail: number, private checkpoints: number[]) {
    this.onWarning = opts.onWarning ?? ((msg) => process.emitWarning(msg, 'TesseraWalWarning'));
    this.segments = listing.segments;
    this.lastAtOpen = listing.segments.length ? listing.segments[listing.segments.length - 1] : -1;
    this.tail = tail;
    const lastCp = checkpoints.length ? checkpoints[checkpoints.length - 1] : -1;
    const size = Math.ceil((opts.segmentSizeBytes ?? PROM_WAL_SEGMENT_SIZE_BYTES) / PROM_WAL_PAGE_SIZE) * PROM_WAL_PAGE_SIZE;
    this.writer = new PromWalWriter(opts.dir, Math.max(this.lastAtOpen, lastCp) + 1, size, opts.compress ?? true, (s) => this.segments.push(s),
      opts.onFailure ?? (() => undefined));
  }

  /** Opens `dir` (creating it), removes unfinished checkpoints and starts a new segment. Does not replay. */
  static async open(opts: PromWalOptions): Promise<PromWal> {
    const size = opts.segmentSizeBytes ?? PROM_WAL_SEGMENT_SIZE_BYTES;
    if (!(size > 0)) throw InvalidArgumentError.of('INVALID_ARGUMENT', [`WAL segment size must be positive, got ${size}`]);
    await fsp.mkdir(opts.dir, { recursive: true });
    for (const name of await fsp.readdir(opts.dir)) {
      if (name.startsWith(PROM_WAL_CHECKPOINT_PREFIX) && name.endsWith('.tmp')) await fsp.rm(path.join(opts.dir, name), { recursive: true, force: true });
    }
    const listing = await listWalDir(opts.dir);
    let tail = -1;
    for (let i = listing.segments.length - 1; i >= 0 && tail < 0; i--) {
      const seg = listing.segments[i];
      if (i === 0 || (await fsp.stat(path.join(opts.dir, segmentFileName(seg)))).size > 0) tail = seg;
    }
    const wal = new PromWal(opts, listing, tail, listing.checkpoints);
    // Creating the first segment fails on a full disk: DISK_FULL, so the caller retries instead of a 500.
    await wal.writer.start().catch((e: unknown) => { throw walWriteError(opts.dir, e); });
    trackWal(wal);
    return wal;
  }

  log(records: readonly Uint8Array[]): Promise<void> {
    return this.writer.log(records);
  }

  async replay(onRecord: RecordCallback): Promise<WalReplayResult> {
    const res: WalReplayResult = { records: 0, bytes: 0, firstSegment: -1, lastSegment: -1 };
    const cp = this.checkpoints.length ? this.checkpoints[this.checkpoints.length - 1] : -1;
    if (cp >= 0) {
      const r = await readCheckpoint(path.join(this.opts.dir, checkpointDirName(cp)), onRecord);
      res.records += r.records; res.bytes += r.bytes;
    }
    const todo = this.segments.filter((s) => s > cp && s <= this.lastAtOpen);
    // Prometheus reads the segments from checkpoint + 1 on, each of which must exist.
    if (todo.length) checkContiguous(this.opts.dir, cp >= 0 ? [cp, ...todo] : todo);
    for (const seg of todo) {
      const file = path.join(this.opts.dir, segmentFileName(seg));
      const r = await readSegmentFile(file, onRecord);
      res.records += r.records; res.bytes += r.bytes;
      if (res.firstSegment < 0) res.firstSegment = seg;
      res.lastSegment = seg;
      if (r.damage === null) continue;
      await this.handleDamage(seg, file, r.damage.offset, r.damage.reason);
      break;
    }
    return res;
  }

  /** Torn tail: truncate. Earlier damage: throw, or with `repair` truncate and drop the later segments. */
  private async handleDamage(seg: number, file: string, offset: number, reason: string): Promise<void> {
    this.counts.corruptions++;
    if (seg !== this.tail) {
      const err = new CorruptionError(file, offset, reason);
      if (!this.opts.repair) throw err;
      this.onWarning(`WAL: repair: ${err.message}; truncating there and deleting the later segments`);
      const later = this.segments.filter((s) => s > seg && s <= this.lastAtOpen);
      for (const s of later) await fsp.rm(path.join(this.opts.dir, segmentFileName(s)), { force: true });
      this.segments = this.segments.filter((s) => !later.includes(s));
    } else {
      this.onWarning(`WAL: truncating torn tail of ${file} at offset ${offset} (${reason}); those bytes were never acknowledged`);
    }
    const fh = await fsp.open(file, 'r+');
    try { await fh.truncate(offset); await fh.datasync(); } finally { await fh.close(); }
    await syncDir(this.opts.dir);
  }

  async checkpoint(records: Iterable<Uint8Array>): Promise<void> {
    const last = await this.writer.cut();
    const n = this.counts;
    await counted(() => writeCheckpoint(this.opts.dir, last, records, this.opts.compress ?? true), () => n.checkpointsCreated++, () => n.checkpointCreationsFailed++);
    // As Prometheus: the segments the checkpoint covers go first, then the older checkpoints.
    await counted(async () => {
      const doomed = this.segments.filter((s) => s <= last);
      for (const s of doomed) await fsp.rm(path.join(this.opts.dir, segmentFileName(s)), { force: true });
      this.segments = this.segments.filter((s) => s > last);
    }, () => n.truncations++, () => n.truncationsFailed++);
    await counted(async () => {
      for (const c of this.checkpoints) if (c < last) await fsp.rm(path.join(this.opts.dir, checkpointDirName(c)), { recursive: true, force: true });
      this.checkpoints = [last];
    }, () => n.checkpointDeletions++, () => n.checkpointDeletionsFailed++);
    await syncDir(this.opts.dir);
  }

  stats(): WalStats {
    const w = this.writer;
    return { bytesWritten: w.bytesWritten, fsyncs: w.fsyncs, records: w.records, segments: this.segments.length, counts: { ...this.counts }, segmentCurrent: w.segment, fsyncSeconds: w.fsyncSeconds };
  }

  async close(): Promise<void> {
    await this.writer.close();
    untrackWal(this);
  }
}

/** Runs `step`, counting the attempt before it and a failure when it throws (the error is passed on). */
async function counted(step: () => Promise<unknown>, attempt: () => void, failure: () => void): Promise<void> {
  attempt();
  try { await step(); } catch (e) { failure(); throw e; }
}
