/**
 * A histogram's counts as the Prometheus text format exposes them: `counts[i]` is the number of observations at
 * most `buckets[i]` (cumulative), with their sum and count. Kept by the main thread's self-metrics and by shard
 * workers that count observations of their own and send the counts (one implementation for both).
 */
export interface BucketCounts { counts: number[] | Float64Array; sum: number; count: number }

/** `count` bounds from `start`, each `factor` times the last (client_golang's `ExponentialBuckets`). */
export function exponentialBuckets(start: number, factor: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => start * factor ** i);
}

export function observeBucketed(h: BucketCounts, buckets: readonly number[], v: number): void {
  for (let i = buckets.length - 1; i >= 0 && v <= buckets[i]; i--) h.counts[i]++;
  h.sum += v;
  h.count++;
}

/** Adds `from`'s observations (over the same bounds) to `to`. */
export function addBucketCounts(to: BucketCounts, from: BucketCounts): void {
  for (let i = 0; i < to.counts.length; i++) to.counts[i] += from.counts[i] ?? 0;
  to.sum += from.sum;
  to.count += from.count;
}
