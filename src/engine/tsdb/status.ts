/**
 * Raw figures for `/api/v1/status/tsdb` from one shard's head: per label name, per value, the number of head
 * series carrying the pair (the main thread merges shards and ranks the top 10, as Prometheus's
 * `index.PostingsStats` does), plus head stats.
 */
import type { Tsdb } from './db.ts';
import type { WalCounts } from './wal-port.ts';
import type { RecentObservationsData } from '../model/recent-observations.ts';
import { LabelIndex } from './postings.ts';

export interface ShardStatus {
  numSeries: number;
  chunkCount: number;
  /** Inclusive head time range; null when the head is empty. */
  minTime: number | null;
  maxTime: number | null;
  /** Max time of the newest block (Prometheus reports it as the empty head's range), null without blocks. */
  blocksMaxTime: number | null;
  /** name → [value, seriesCount, …] flattened. */
  pairs: Record<string, (string | number)[]>;
}

export function headStatus(db: Tsdb): ShardStatus {
  const h = db.head;
  const pairs: Record<string, (string | number)[]> = {};
  for (const [name, values] of h.index.byName) {
    const flat: (string | number)[] = [];
    for (const [v, p] of values) flat.push(v, LabelIndex.count(p));
    pairs[name] = flat;
  }
  let bmax: number | null = null;
  for (const b of [...db.blocks, ...db.shared]) if (bmax === null || b.maxTime > bmax) bmax = b.maxTime;
  const empty = h.numSeries === 0 || h.minTime === Infinity;
  return {
    numSeries: h.numSeries,
    chunkCount: h.numChunks(),
    minTime: empty ? null : h.minTime,
    maxTime: empty ? null : h.maxTime,
    blocksMaxTime: bmax,
    pairs,
  };
}

/** Cheap per-shard figures for the `prometheus_tsdb_*` self-metrics (no label index walk, unlike `headStatus`). */
export interface ShardFigures {
  headSeries: number;
  headChunks: number;
  /** Head time range in ms; null when the head is empty. */
  headMinTime: number | null;
  headMaxTime: number | null;
  blocksLoaded: number;
  blocksBytes: number;
  /** Oldest sample time over blocks and head, ms; null when empty. */
  lowestTime: number | null;
  /** The head's counts since it was opened (`Head.totals`). */
  samplesAppended: number;
  seriesCreated: number;
  seriesRemoved: number;
  chunksCreated: number;
  chunksRemoved: number;
  outOfOrderRefused: number;
  outOfBoundsRefused: number;
  seriesNotFound: number;
  /** The shard WAL's checkpoint, truncation and damage counts (`WalCounts`). */
  wal: WalCounts;
  /** The shard WAL's segment being written. */
  walSegmentCurrent: number;
  /** The shard WAL's latest fsync durations, seconds. */
  walFsyncSeconds: RecentObservationsData;
}

export function shardFigures(db: Tsdb): ShardFigures {
  const h = db.head;
  const empty = h.numSeries === 0 || h.minTime === Infinity;
  const wal = db.wal.stats();
  let bytes = 0;
  let lowest: number | null = empty ? null : h.minTime;
  // The shared blocks count once, in the shard that writes them; every shard serves part of them.
  const blocks = db.opts.shared?.writer ? [...db.blocks, ...db.shared.map((v) => v.block)] : db.blocks;
  for (const b of blocks) {
    bytes += b.sizeBytes;
    if (lowest === null || b.minTime < lowest) lowest = b.minTime;
  }
  for (const v of db.shared) if (lowest === null || v.minTime < lowest) lowest = v.minTime;
  return {
    headSeries: h.numSeries, headChunks: h.numChunks(), headMinTime: empty ? null : h.minTime, headMaxTime: empty ? null : h.maxTime,
    blocksLoaded: blocks.length, blocksBytes: bytes, lowestTime: lowest, ...h.totals, wal: wal.counts, walSegmentCurrent: wal.segmentCurrent, walFsyncSeconds: wal.fsyncSeconds.data(),
  };
}
