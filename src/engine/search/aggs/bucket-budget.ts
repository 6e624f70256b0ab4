/**
 * The bucket count of one search, as Elasticsearch's `MultiBucketConsumer`: every multi-bucket aggregation
 * (terms, histograms, ranges, filters, geohash_grid, composite) consumes the buckets it builds — each shard for
 * the buckets of its partial result, the coordinator for the buckets of the final reduce (gap-filled histogram
 * buckets included) — sub-aggregations' buckets counting with their parents'. Past the limit the search fails
 * with ES's `too_many_buckets_exception`.
 *
 * `search.max_buckets` set (0 or more) is that limit. Unset (-1, 6.8's default) Elasticsearch 6.8 only logs a
 * deprecation warning once a search passes 10,000 buckets and leaves the rest to its request circuit breaker,
 * which this node does not have: unset, the limit is `DEFAULT_MAX_BUCKETS` so that one aggregation cannot grow
 * a shard's or the coordinator's memory without bound (a histogram with interval 1 over a wide range, or
 * nested terms × date_histogram).
 */
import { LimitExceededError } from '../../errors.ts';
import type { AggSpec } from './agg-parser.ts';
import type { AggPartial } from './agg-collectors.ts';

/** Where 6.8 starts warning that a later version fails the search (its future default). */
const BUCKET_WARNING_THRESHOLD = 10_000;

/**
 * The limit while `search.max_buckets` is unset: Elasticsearch 7.9's default, which Elastic raised from 7.0's
 * 10,000 because that refused searches clients relied on; 6.8 clients only got a warning there. 65,535 buckets
 * stay a few tens of MB on a shard even with sub-aggregations in every bucket.
 */
export const DEFAULT_MAX_BUCKETS = 65_535;

/** The deprecation text 6.8 sends (as a `Warning` header) when an unlimited search passes 10,000 buckets. */
const TOO_MANY_BUCKETS_WARNING = `This aggregation creates too many buckets (${BUCKET_WARNING_THRESHOLD + 1}) and will throw an error in future versions. ` +
  'You should update the [search.max_buckets] cluster setting or use the [composite] aggregation to paginate all buckets in multiple requests.';

export class BucketBudget {
  /** Buckets consumed so far. */
  count = 0;
  private readonly limit: number;
  /** @param maxBuckets `search.max_buckets`: -1 when unset. */
  constructor(readonly maxBuckets: number) {
    this.limit = maxBuckets >= 0 ? maxBuckets : DEFAULT_MAX_BUCKETS;
  }

  /** Counts `n` more buckets; throws once the count passes the limit. */
  consume(n: number): void {
    this.count += n;
    // ES consumes one bucket at a time, so it reports the first count past the limit: limit + 1.
    if (this.count > this.limit) throw LimitExceededError.of('SEARCH_TOO_MANY_BUCKETS', [this.limit, this.limit + 1], { max_buckets: this.limit });
  }
}

/** 6.8's deprecation warning when `search.max_buckets` is unset and a count passed 10,000; null otherwise. */
export function bucketWarning(maxBuckets: number, count: number): string | null {
  return maxBuckets < 0 && count > BUCKET_WARNING_THRESHOLD ? TOO_MANY_BUCKETS_WARNING : null;
}

const MULTI_BUCKET = new Set(['terms', 'histogram', 'date_histogram', 'range', 'date_range', 'geo_distance', 'filters', 'geohash_grid', 'composite']);
const SINGLE_BUCKET = new Set(['filter', 'missing', 'nested', 'reverse_nested']);

/** Whether an aggregation of `type` builds buckets that count against the limit (single-bucket ones do not). */
export function isMultiBucket(type: string): boolean { return MULTI_BUCKET.has(type); }

/** Consumes the buckets of a shard's partial results, sub-aggregations included (what its aggregators built). */
export function consumePartialBuckets(specs: AggSpec[], parts: AggPartial[], budget: BucketBudget): void {
  for (let i = 0; i < specs.length; i++) {
    const spec = specs[i], p = parts[i];
    if (isMultiBucket(spec.type)) {
      const buckets = p.buckets as { subs: AggPartial[] }[];
      budget.consume(buckets.length);
      if (spec.subs.length > 0) for (const b of buckets) consumePartialBuckets(spec.subs, b.subs, budget);
    } else if (SINGLE_BUCKET.has(spec.type)) {
      consumePartialBuckets(spec.subs, p.subs, budget);
    }
  }
}
