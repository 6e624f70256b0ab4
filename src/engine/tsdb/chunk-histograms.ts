/**
 * What Prometheus records of the chunks a level-1 block write (its head compaction) writes, one observation per
 * chunk: its bytes, its samples and its time range in milliseconds (`prometheus_tsdb_compaction_chunk_*`, with
 * Prometheus's buckets). Counted in the shard worker that cuts its head, as cumulative bucket counts: a cut of
 * 100,000 series writes millions of chunks, and only these few numbers cross to the main thread.
 */
import { addBucketCounts, exponentialBuckets, observeBucketed, type BucketCounts } from '../model/bucket-counts.ts';

export const CHUNK_SIZE_BUCKETS = exponentialBuckets(32, 1.5, 12);
export const CHUNK_SAMPLES_BUCKETS = exponentialBuckets(4, 1.5, 12);
export const CHUNK_RANGE_BUCKETS = exponentialBuckets(100, 4, 10);

export interface CutChunkHistograms { size: BucketCounts; samples: BucketCounts; range: BucketCounts }

const empty = (buckets: readonly number[]): BucketCounts => ({ counts: new Array<number>(buckets.length).fill(0), sum: 0, count: 0 });

export function emptyCutChunkHistograms(): CutChunkHistograms {
  return { size: empty(CHUNK_SIZE_BUCKETS), samples: empty(CHUNK_SAMPLES_BUCKETS), range: empty(CHUNK_RANGE_BUCKETS) };
}

/** Records one chunk written by a head cut. */
export function observeCutChunk(h: CutChunkHistograms, bytes: number, samples: number, rangeMs: number): void {
  observeBucketed(h.size, CHUNK_SIZE_BUCKETS, bytes);
  observeBucketed(h.samples, CHUNK_SAMPLES_BUCKETS, samples);
  observeBucketed(h.range, CHUNK_RANGE_BUCKETS, rangeMs);
}

export function addCutChunkHistograms(to: CutChunkHistograms, from: CutChunkHistograms): void {
  addBucketCounts(to.size, from.size);
  addBucketCounts(to.samples, from.samples);
  addBucketCounts(to.range, from.range);
}
