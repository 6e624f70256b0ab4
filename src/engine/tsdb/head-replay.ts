/**
 * Head recovery and checkpoints over the TSDB WAL (wal-port.ts). Recovery replays the newest checkpoint, then
 * the segments after it, applying series, samples and tombstones records to the head; other record types
 * (exemplars, metadata, native histograms in a WAL Prometheus wrote) are skipped and counted. A checkpoint
 * holds the head as it is after a block was cut: every series, every sample still in the head (one samples
 * record per head chunk) and the tombstones. Samples the head already holds (a checkpoint and the segments
 * after it may overlap) are recognised as duplicates and skipped, which makes replay idempotent.
 */
import { CorruptionError } from '../errors.ts';
import { APPEND_OK, Head } from './head.ts';
import type { TsdbWal } from './wal-port.ts';
import {
  decodeSamplesRecord, decodeSeriesRecord, decodeTombstonesRecord, encodeSamplesRecord, encodeSeriesRecord,
  encodeTombstonesRecord, recordType, REC_SAMPLES, REC_SERIES, REC_TOMBSTONES, SampleBatch,
  type SeriesRec, type TombstoneRec,
} from './prom-wal-records.ts';
import { decodeXor, xorCount } from './xor-chunk.ts';

export interface WalReplayStatus { min: number; max: number; current: number }

/** Applies TSDB WAL records to a head; `refMap` maps logged refs to live series' head slots. */
export class Replayer {
  readonly refMap = new Map<number, number>();
  private readonly batch = new SampleBatch();
  /** Records of types the head does not hold (exemplars, metadata, histograms). */
  skipped = 0;
  constructor(private readonly head: Head) {}

  apply(rec: Uint8Array, file: string): void {
    try {
      this.applyRecord(rec, file);
    } catch (err) {
      if (err instanceof CorruptionError) throw err;
      throw new CorruptionError(file, 0, `record does not apply: ${(err as Error).message}`);
    }
  }

  private applyRecord(rec: Uint8Array, file: string): void {
    const type = recordType(rec);
    if (type === REC_SERIES) {
      for (const s of decodeSeriesRecord(rec, file)) this.refMap.set(s.ref, this.head.create(s.ref, s.labels));
    } else if (type === REC_SAMPLES) {
      const b = this.batch;
      decodeSamplesRecord(rec, file, b);
      const head = this.head;
      for (let i = 0; i < b.n; i++) {
        const s = this.refMap.get(b.refs[i]);
        if (s === undefined) continue; // its series record went with a truncated segment: nothing to attach to
        if (head.appendable(s, b.ts[i], b.vs[i], head.minValidTime) === APPEND_OK) head.appendUnchecked(s, b.ts[i], b.vs[i]);
      }
    } else if (type === REC_TOMBSTONES) {
      for (const t of decodeTombstonesRecord(rec, file)) {
        const s = this.refMap.get(t.ref);
        if (s !== undefined) this.head.addTombstone(this.head.refAt(s), [t.mint, t.maxt]);
      }
    } else {
      this.skipped++;
    }
  }
}

/** Rebuilds the head from the WAL; returns the segment range read, as `/api/v1/status/walreplay` shows it. */
export async function replayInto(head: Head, wal: TsdbWal): Promise<WalReplayStatus> {
  const rp = new Replayer(head);
  const r = await wal.replay((rec, file) => rp.apply(rec, file));
  // Only a WAL Prometheus wrote holds such records (a shard directory Prometheus ran on, say): say what was left out.
  if (rp.skipped > 0) process.emitWarning(`WAL replay skipped ${rp.skipped} records of types Tessera does not hold (exemplars, metadata, native histograms)`, 'TesseraWalWarning');
  if (r.lastSegment < 0) return { min: 0, max: 0, current: 0 };
  return { min: r.firstSegment, max: r.lastSegment, current: r.lastSegment };
}

/**
 * The head's state as checkpoint records, produced lazily (a checkpoint of a large head is written in pieces).
 * Series created while it is consumed are included or not; either way they are in the WAL after the cut.
 */
export function* headCheckpointRecords(head: Head): Generator<Uint8Array> {
  let series: SeriesRec[] = [];
  for (const slot of head.slots()) {
    series.push({ ref: head.refAt(slot), labels: head.labelsAt(slot) });
    if (series.length === 4096) { yield encodeSeriesRecord(series); series = []; }
  }
  if (series.length) yield encodeSeriesRecord(series);
  let idx = new Uint32Array(0);
  for (const slot of head.slots()) {
    const ref = head.refAt(slot);
    for (const { bytes } of head.chunksWithBytes(slot)) {
      const n = xorCount(bytes);
      const ts = new Float64Array(n), vs = new Float64Array(n);
      decodeXor(bytes, ts, vs);
      if (idx.length < n) { idx = new Uint32Array(Math.max(n, 256)); for (let i = 0; i < idx.length; i++) idx[i] = i; }
      yield encodeSamplesRecord(new Float64Array(n).fill(ref), ts, vs, idx, n);
    }
  }
  const tombs: TombstoneRec[] = [];
  for (const [ref, ivs] of head.tombstones) for (const iv of ivs) tombs.push({ ref, mint: iv[0], maxt: iv[1] });
  if (tombs.length) yield encodeTombstonesRecord(tombs);
}

/** Checkpoints the WAL with the (already truncated) head; called after a block was cut. */
export async function checkpointWal(head: Head, wal: TsdbWal): Promise<void> {
  await wal.checkpoint(headCheckpointRecords(head));
}
