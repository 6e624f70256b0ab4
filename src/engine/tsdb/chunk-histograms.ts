/**
 * What Prometheus records of the chunks a level-1 block write (its head compaction) writes, one observation per
 * chunk: its bytes, its samples and its time range in milliseconds (`prometheus_tsdb_compaction_chunk_*`, with
 * Prometheus's buckets). Counted in the shard worker that cuts its head, as cumulative bucket counts: a cut of
 * 100,000 series writes millions of chunks, and only these few numbers cross to the main thread.
 */

/** `count` buckets from `start`, each `factor` times the last (client_golang's `ExponentialBuckets`). */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start * factor ** i);
}

export const CHUNK_SIZE_BUCKETS = exponentialBuckets(32, 1.5, 12);
export const CHUNK_SAMPLES_BUCKETS = exponentialBuckets(4, 1.5, 12);
export const CHUNK_RANGE_BUCKETS = exponentialBuckets(100, 4, 10);

/** One histogram: `counts[i]` observations at most `buckets[i]` (cumulative, as exposed), their sum and count. */
export interface HistogramCounts { counts: number[]; sum: number; count: number }

export interface CutChunkHistograms { size: HistogramCounts; samples: HistogramCounts; range: HistogramCounts }

const empty = (buckets: readonly number[]): HistogramCounts => ({ counts: new Array(buckets.length).fill(0), sum: 0, count: 0 });

export function emptyCutChunkHistograms(): CutChunkHistograms {
  return { size: empty(CHUNK_SIZE_BUCKETS), samples: empty(CHUNK_SAMPLES_BUCKETS), range: empty(CHUNK_RANGE_BUCKETS) };
}

function observe(h: HistogramCounts, buckets: readonly number[], v: number): void {
  for (let i = buckets.length - 1; i >= 0 && v <= buckets[i]; i--) h.counts[i]++;
  h.sum += v;
  h.count++;
}

/** Records one chunk written by a head cut. */
export function observeCutChunk(h: CutChunkHistograms, bytes: number, samples: number, rangeMs: number): void {
  observe(h.size, CHUNK_SIZE_BUCKETS, bytes);
  observe(h.samples, CHUNK_SAMPLES_BUCKETS, samples);
  observe(h.range, CHUNK_RANGE_BUCKETS, rangeMs);
}

/** Adds `from`'s observations to `to`. */
export function addHistogramCounts(to: HistogramCounts, from: HistogramCounts): void {
  for (let i = 0; i < to.counts.length; i++) to.counts[i] += from.counts[i] ?? 0;
  to.sum += from.sum;
  to.count += from.count;
}

export function addCutChunkHistograms(to: CutChunkHistograms, from: CutChunkHistograms): void {
  addHistogramCounts(to.size, from.size);
  addHistogramCounts(to.samples, from.samples);
  addHistogramCounts(to.range, from.range);
}
