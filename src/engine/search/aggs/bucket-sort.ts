/**
 * `bucket_sort`, the one pipeline aggregation: it reorders and pages its parent's final buckets (after the
 * parent's own size, order and empty-bucket filling) by `_key`, `_count` or a sub-aggregation value, and adds no
 * output of its own — as ES 6.8's BucketSortPipelineAggregator, which runs in the coordinator's final reduce.
 *
 * Gap policy: a value that is missing (NaN, infinite, or any metric of an empty bucket) is a gap; `skip` leaves it
 * unresolved (such values sort after every real one, and a bucket with no resolved sort value at all is dropped),
 * `insert_zeros` reads it as 0.
 */
import { InvalidArgumentError } from '../../errors.ts';
import { locOfKey } from '../json-pos.ts';
import { parsingError } from '../query-parser.ts';
import { parseSort } from '../search-request.ts';
import { cmpCodePoints } from '../range-weight.ts';
import type { AggSpec } from './agg-parser.ts';
import type { AggPartial } from './agg-collectors.ts';

export const PIPELINE_TYPES = ['bucket_sort'];

type Obj = Record<string, unknown>;

/** Parses a `bucket_sort` body into params `{sort: [{path, asc}], from, size, gapPolicy}`. */
export function parseBucketSort(name: string, v: unknown, holder: Obj): AggSpec {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) throw parsingError(`[bucket_sort] aggregation [${name}] must be an object`, locOfKey(holder, 'bucket_sort'));
  const body = v as Obj;
  let sort: { path: string; asc: boolean }[] = [], from = 0, size: number | null = null, gapPolicy = 'skip';
  for (const [k, x] of Object.entries(body)) {
    const loc = locOfKey(body, k);
    switch (k) {
      case 'sort': sort = parseSort(x).map((s) => ({ path: s.field, asc: s.order === 'asc' })); break;
      case 'from':
        from = intOf(x, k, loc);
        if (from < 0) throw parsingError(`[from] must be a non-negative integer: [${from}]`, loc);
        break;
      case 'size':
        size = intOf(x, k, loc);
        if (size <= 0) throw parsingError(`[size] must be a positive integer: [${size}]`, loc);
        break;
      case 'gap_policy':
        gapPolicy = String(x).toLowerCase();
        if (gapPolicy !== 'skip' && gapPolicy !== 'insert_zeros') throw parsingError(`Invalid gap policy: [${String(x)}], accepted values: [skip, insert_zeros]`, loc);
        break;
      default: throw parsingError(`[bucket_sort] unknown field [${k}], parser not found`, loc);
    }
  }
  return { name, type: 'bucket_sort', params: { sort, from, size, gapPolicy }, subs: [] };
}

function intOf(v: unknown, k: string, loc: { line: number; col: number } | undefined): number {
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw parsingError(`[bucket_sort] failed to parse field [${k}]`, loc);
  return n;
}

/**
 * Shard-side request checks (ES runs them while building the aggregators): a sort path must name a sibling
 * aggregation, and a bucket_sort must do something.
 */
export function validatePipelines(specs: AggSpec[]): void {
  for (const s of specs) {
    for (const p of s.pipelines ?? []) {
      const { sort, from, size } = p.params as { sort: { path: string }[]; from: number; size: number | null };
      for (const { path } of sort) {
        if (path === '_key' || path === '_count') continue;
        const first = path.split('>')[0].split(/[.[]/)[0];
        if (!s.subs.some((x) => x.name === first)) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `No aggregation found for path [${path}]`);
      }
      if (sort.length === 0 && size === null && from === 0) {
        throw new InvalidArgumentError('SEARCH_ILLEGAL_STATE', `[${p.name}] is configured to perform nothing. Please set either of [sort, size, from] to use bucket_sort`);
      }
    }
    validatePipelines(s.subs);
  }
}

/** A final bucket as the renderer holds it. */
export interface SortableBucket { key: unknown; docCount: number; subs: AggPartial[] }

/**
 * The value at `path` (`name`, `name.metric`, `name[metric]`, `single>…>name`) among a bucket's reduced
 * sub-aggregations: NaN when the path resolves to no number (an empty metric).
 */
export function bucketPathValue(subs: AggSpec[], parts: AggPartial[], docCount: number, path: string): number {
  if (path === '_count') return docCount;
  const gt = path.indexOf('>');
  const head = gt >= 0 ? path.slice(0, gt) : path;
  const [name, metricRaw] = head.split(/[.[]/);
  const i = subs.findIndex((s) => s.name === name);
  if (i < 0 || !parts[i]) return NaN;
  const s = subs[i], p = parts[i];
  if (gt >= 0) return p.subs ? bucketPathValue(s.subs, p.subs, p.docCount, path.slice(gt + 1)) : NaN;
  const metric = metricRaw?.replace(/]$/, '');
  switch (s.type) {
    case 'avg': return p.count ? p.sum / p.count : NaN;
    case 'sum': return p.sum;
    case 'min': return p.count ? p.min : Infinity;
    case 'max': return p.count ? p.max : -Infinity;
    case 'value_count': return p.count;
    case 'cardinality': return p.values.length;
    case 'stats': case 'extended_stats': {
      const m = metric ?? 'avg';
      if (m === 'count') return p.count;
      if (m === 'sum') return p.sum;
      if (!p.count) return NaN;
      return m === 'min' ? p.min : m === 'max' ? p.max : m === 'avg' ? p.sum / p.count : NaN;
    }
    default: return p.docCount ?? NaN;
  }
}

/** Applies the parent's bucket_sort pipelines, in order, to its final bucket list. */
export function applyBucketSorts<B extends SortableBucket>(parent: AggSpec, buckets: B[]): B[] {
  let out = buckets;
  for (const p of parent.pipelines ?? []) if (p.type === 'bucket_sort') out = bucketSort(p, parent.subs, out);
  return out;
}

function bucketSort<B extends SortableBucket>(p: AggSpec, subs: AggSpec[], buckets: B[]): B[] {
  const { sort, from, size, gapPolicy } = p.params as { sort: { path: string; asc: boolean }[]; from: number; size: number | null; gapPolicy: string };
  const n = size ?? buckets.length;
  if (from >= buckets.length) return [];
  if (sort.length === 0) return buckets.slice(from, from + n);
  // Per bucket: its sort values (null = unresolved gap); buckets with none resolved are dropped.
  const rows: { b: B; vals: (number | string | null)[] }[] = [];
  for (const b of buckets) {
    const vals = sort.map(({ path }): number | string | null => {
      if (path === '_key') return b.key as number | string;
      let v = bucketPathValue(subs, b.subs, b.docCount, path);
      if (!Number.isFinite(v) || (b.docCount === 0 && path !== '_count')) v = gapPolicy === 'insert_zeros' ? 0 : NaN;
      return Number.isNaN(v) ? null : v;
    });
    if (vals.some((x) => x !== null)) rows.push({ b, vals });
  }
  // A stable sort: equal buckets keep the parent's order.
  rows.sort((x, y) => {
    for (let i = 0; i < sort.length; i++) {
      const a = x.vals[i], b = y.vals[i];
      if (a === null && b === null) continue;
      if (a === null) return 1;
      if (b === null) return -1;
      const c = typeof a === 'number' && typeof b === 'number' ? a - b : cmpCodePoints(String(a), String(b));
      if (c !== 0) return sort[i].asc ? c : -c;
    }
    return 0;
  });
  return rows.slice(from, from + n).map((r) => r.b);
}
