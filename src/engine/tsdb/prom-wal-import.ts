/**
 * Import of the WAL of a Prometheus data directory (docs/format.md "Prometheus's WAL directory"): when the TSDB
 * directory has a `wal/` as Prometheus 2.x leaves it, each shard reads it (newest checkpoint, then the segments
 * after it) and appends, through its normal append path (so its own WAL makes them durable), the series the
 * client routes to it with their samples and tombstones. The Prometheus directory is only read. A marker in the
 * shard directory records the WAL state imported, so an unchanged WAL is not read again.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Labels } from './api.ts';
import { PROM_WAL_IMPORT_MARKER } from '../codec/format-ids.ts';
import { listBlockDirs } from './block.ts';
import { readMeta } from './block-meta.ts';
import type { AppendResult, Tsdb } from './db.ts';
import { syncDir, writeFileAtomic } from '../store/durable-files.ts';
import { labelsToFlat, shardOfSeries } from './labels.ts';
import { checkpointDirName, listWalDir, readCheckpoint } from './prom-wal.ts';
import { readSegmentFile } from './prom-wal-reader.ts';
import {
  decodeSamplesRecord, decodeSeriesRecord, decodeTombstonesRecord, recordType, REC_SAMPLES, REC_SERIES, REC_TOMBSTONES,
  SampleBatch, type TombstoneRec,
} from './prom-wal-records.ts';
import { segmentFileName } from './prom-wal-writer.ts';

/** The state of a WAL directory an import is keyed by: the newest checkpoint and every segment after it. */
export interface WalState { checkpoint: string | null; segments: [name: string, sizeBytes: number][] }

export interface PromWalImportSummary {
  series: number; samples: number; tombstones: number;
  outOfBounds: number; outOfOrder: number; duplicate: number;
  /** Records of types Tessera does not hold (exemplars, metadata, native histograms). */
  skippedRecords: number;
}

interface Marker { version: 1; state: WalState; shards: number; importedAtMs: number; summary: PromWalImportSummary }

/** Samples per append call: one shard WAL record and fsync (shared) per batch. */
const BATCH_SAMPLES = 65_536;

/**
 * Imports shard `shard` of `shards`' part of `<tsdbRoot>/wal` into `db` unless the marker says this WAL state
 * was imported already. Returns what was imported, or null when there was nothing to do.
 */
export async function importPrometheusWal(db: Tsdb, tsdbRoot: string, shard: number, shards: number,
  onWarning: (msg: string) => void = (m) => process.emitWarning(m, 'TesseraWalImport')): Promise<PromWalImportSummary | null> {
  const walDir = path.join(tsdbRoot, 'wal');
  const state = await walState(walDir);
  if (state === null) return null;
  const markerFile = path.join(db.dir, PROM_WAL_IMPORT_MARKER);
  const prev = await fsp.readFile(markerFile, 'utf8').then((t) => JSON.parse(t) as Marker, () => null);
  if (prev && prev.shards === shards && JSON.stringify(prev.state) === JSON.stringify(state)) return null;
  const imp = new Importer(db, shard, shards, await blocksMaxTime(tsdbRoot));
  if (state.checkpoint !== null) await readCheckpoint(path.join(walDir, state.checkpoint), imp.onRecord);
  for (const [name] of state.segments) {
    const file = path.join(walDir, name);
    const r = await readSegmentFile(file, imp.onRecord);
    if (r.damage) {
      onWarning(`Prometheus WAL import: ${file} is damaged at offset ${r.damage.offset} (${r.damage.reason}); importing what precedes it`);
      break;
    }
  }
  const summary = await imp.finish();
  const marker: Marker = { version: 1, state, shards, importedAtMs: Date.now(), summary };
  await writeFileAtomic(markerFile, new TextEncoder().encode(JSON.stringify(marker, null, '\t')));
  await syncDir(db.dir);
  onWarning(`Prometheus WAL import into ${db.dir}: ${summary.series} series, ${summary.samples} samples` +
    (summary.skippedRecords ? `, ${summary.skippedRecords} records of unsupported types (exemplars, metadata, native histograms) skipped` : ''));
  return summary;
}

/** The WAL's state, or null when `walDir` holds no Prometheus WAL. */
export async function walState(walDir: string): Promise<WalState | null> {
  const { segments, checkpoints } = await listWalDir(walDir);
  if (segments.length === 0 && checkpoints.length === 0) return null;
  const cp = checkpoints.length ? checkpoints[checkpoints.length - 1] : -1;
  const state: WalState = { checkpoint: cp >= 0 ? checkpointDirName(cp) : null, segments: [] };
  for (const s of segments) {
    if (s <= cp) continue; // covered by the checkpoint (Prometheus deletes them after it)
    const name = segmentFileName(s);
    state.segments.push([name, (await fsp.stat(path.join(walDir, name))).size]);
  }
  return state;
}

/** Max time of the blocks directly under the TSDB directory: older WAL samples are already in them. */
async function blocksMaxTime(tsdbRoot: string): Promise<number> {
  let maxt = -Infinity;
  for (const dir of await listBlockDirs([tsdbRoot])) maxt = Math.max(maxt, (await readMeta(dir)).maxTime);
  return maxt;
}

/** Routes decoded records into append batches for one shard. */
class Importer {
  /** Prometheus ref → labels of the series this shard owns (others are absent). */
  private readonly mine = new Map<number, Labels>();
  private readonly tombs: { labels: Labels; mint: number; maxt: number }[] = [];
  private readonly decoded = new SampleBatch();
  private series: Labels[] = [];
  private slot = new Map<number, number>();
  private sidx = new Uint32Array(BATCH_SAMPLES);
  private ts = new Float64Array(BATCH_SAMPLES);
  private vs = new Float64Array(BATCH_SAMPLES);
  private n = 0;
  private readonly pending: Promise<AppendResult>[] = [];
  private readonly sum: PromWalImportSummary = { series: 0, samples: 0, tombstones: 0, outOfBounds: 0, outOfOrder: 0, duplicate: 0, skippedRecords: 0 };
  private readonly minValidMs: number;

  constructor(private readonly db: Tsdb, private readonly shard: number, private readonly shards: number, blocksMaxMs: number) {
    this.minValidMs = Math.max(db.head.minValidTime, blocksMaxMs);
  }

  readonly onRecord = (rec: Uint8Array, file: string): void => {
    const type = recordType(rec);
    if (type === REC_SERIES) {
      for (const s of decodeSeriesRecord(rec, file)) {
        if (shardOfSeries(labelsToFlat(s.labels), this.shards) !== this.shard) continue;
        if (!this.mine.has(s.ref)) this.sum.series++;
        this.mine.set(s.ref, s.labels);
      }
    } else if (type === REC_SAMPLES) {
      const d = this.decoded;
      decodeSamplesRecord(rec, file, d);
      for (let i = 0; i < d.n; i++) {
        const labels = this.mine.get(d.refs[i]);
        if (labels === undefined) continue; // another shard's series (or one whose record was lost)
        let j = this.slot.get(d.refs[i]);
        if (j === undefined) { j = this.series.length; this.series.push(labels); this.slot.set(d.refs[i], j); }
        this.sidx[this.n] = j; this.ts[this.n] = d.ts[i]; this.vs[this.n] = d.vs[i];
        if (++this.n === BATCH_SAMPLES) this.flush();
      }
    } else if (type === REC_TOMBSTONES) {
      for (const t of decodeTombstonesRecord(rec, file)) {
        const labels = this.mine.get(t.ref);
        if (labels !== undefined) this.tombs.push({ labels, mint: t.mint, maxt: t.maxt });
      }
    } else {
      this.sum.skippedRecords++;
    }
  };

  /**
   * Appends the batch. The head applies it synchronously and the WAL write is queued, so batches from one
   * segment share fsyncs; the promises are awaited at the end.
   */
  private flush(): void {
    if (this.n === 0) return;
    const n = this.n;
    const batch = { series: this.series, sidx: this.sidx.slice(0, n), ts: this.ts.slice(0, n), vs: this.vs.slice(0, n) };
    this.pending.push(this.db.append(batch, this.minValidMs));
    this.series = []; this.slot = new Map(); this.n = 0;
  }

  async finish(): Promise<PromWalImportSummary> {
    this.flush();
    for (const r of await Promise.all(this.pending)) {
      this.sum.samples += r.added; this.sum.outOfBounds += r.outOfBounds; this.sum.outOfOrder += r.outOfOrder; this.sum.duplicate += r.duplicate;
    }
    const recs: TombstoneRec[] = [];
    for (const t of this.tombs) {
      const s = this.db.head.seriesOf(t.labels);
      if (s >= 0) recs.push({ ref: this.db.head.refAt(s), mint: t.mint, maxt: t.maxt }); // no samples here: nothing to delete
    }
    await this.db.deleteHeadSeries(recs);
    this.sum.tombstones = recs.length;
    return this.sum;
  }
}
