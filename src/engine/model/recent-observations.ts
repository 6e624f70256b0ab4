/**
 * The latest observations of a value (durations), with the exact sum and count of all of them: what a summary
 * computes its quantiles from (server/self-metrics.ts). Shard workers keep one per measured operation (their WAL's
 * fsyncs) and send it with their figures, so the main thread's summary covers every worker.
 */

/** Observations kept: client_golang's summaries decay over 10 minutes instead; this bounds memory the same way. */
export const RECENT_OBSERVATIONS = 500;

/** The plain form sent between threads. */
export interface RecentObservationsData { values: number[]; sum: number; count: number }

export class RecentObservations {
  private readonly ring = new Float64Array(RECENT_OBSERVATIONS);
  private next = 0;
  sum = 0;
  count = 0;

  observe(value: number): void {
    this.ring[this.next] = value;
    this.next = (this.next + 1) % RECENT_OBSERVATIONS;
    this.sum += value;
    this.count++;
  }

  /** The kept observations, in no particular order. */
  values(): number[] {
    return Array.from(this.ring.subarray(0, Math.min(this.count, RECENT_OBSERVATIONS)));
  }

  data(): RecentObservationsData {
    return { values: this.values(), sum: this.sum, count: this.count };
  }
}

/** The `q` quantile of `sorted` (ascending), NaN when it is empty: the value at rank ⌊q·n⌋. */
export function quantileOfSorted(sorted: readonly number[], q: number): number {
  return sorted.length ? sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] : NaN;
}
