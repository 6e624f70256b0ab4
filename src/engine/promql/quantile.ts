/** `quantile` over plain values and `histogram_quantile` over classic buckets (2.42 `quantile.go`). */

/** Prometheus's `quantile`: sorts NaNs first, interpolates between the two nearest ranks. */
export function quantile(q: number, values: number[]): number {
  if (values.length === 0) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const sorted = values.slice().sort((a, b) => (Number.isNaN(a) ? (Number.isNaN(b) ? 0 : -1) : Number.isNaN(b) ? 1 : a - b));
  const n = sorted.length;
  const rank = q * (n - 1);
  const lower = Math.max(0, Math.floor(rank));
  const upper = Math.min(n - 1, lower + 1);
  const weight = rank - Math.floor(rank);
  if (Number.isNaN(rank)) return NaN;
  return sorted[lower] * (1 - weight) + sorted[upper] * weight;
}

export interface Bucket { upperBound: number; count: number }

export function bucketQuantile(q: number, buckets: Bucket[]): number {
  if (Number.isNaN(q)) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  buckets.sort((a, b) => a.upperBound - b.upperBound);
  if (buckets[buckets.length - 1].upperBound !== Infinity) return NaN;
  buckets = coalesce(buckets);
  let max = -Infinity;
  for (const b of buckets) { if (b.count > max) max = b.count; else if (b.count < max) b.count = max; }
  if (buckets.length < 2) return NaN;
  const observations = buckets[buckets.length - 1].count;
  if (observations === 0) return NaN;
  let rank = q * observations;
  let b = 0;
  { let lo = 0, hi = buckets.length - 1; while (lo < hi) { const mid = (lo + hi) >> 1; if (buckets[mid].count >= rank) hi = mid; else lo = mid + 1; } b = lo; }
  if (b === buckets.length - 1) return buckets[buckets.length - 2].upperBound;
  if (b === 0 && buckets[0].upperBound <= 0) return buckets[0].upperBound;
  let start = 0, count = buckets[b].count;
  const end = buckets[b].upperBound;
  if (b > 0) { start = buckets[b - 1].upperBound; count -= buckets[b - 1].count; rank -= buckets[b - 1].count; }
  return start + (end - start) * (rank / count);
}

function coalesce(buckets: Bucket[]): Bucket[] {
  const out: Bucket[] = [];
  let last = { ...buckets[0] };
  for (let i = 1; i < buckets.length; i++) {
    const b = buckets[i];
    if (b.upperBound === last.upperBound) last.count += b.count;
    else { out.push(last); last = { ...b }; }
  }
  out.push(last);
  return out;
}
