/**
 * Reduced aggregation partials → ES 6.8 response JSON: key order per aggregation type, doubles printed as
 * Java doubles (`76.0`), `*_as_string` for dates, `terms` size/min_doc_count/order applied after the merge,
 * histograms filled with empty buckets (min_doc_count 0, extended_bounds), `meta` first.
 */
import type { AggSpec } from '../../engine/search/index.ts';
import type { AggPartial } from '../../engine/search/index.ts';
import { compareBucketKeys, termsOrder } from '../../engine/search/index.ts';
import { nextKey } from '../../engine/search/index.ts';
import { applyBucketSorts } from '../../engine/search/index.ts';
import { formatDate, parseDate } from '../../engine/search/index.ts';
import { jd, jf } from './java-format.ts';
import { RawJson } from './json.ts';
import type { BucketBudget } from '../../engine/search/index.ts';

type Obj = Record<string, unknown>;

/**
 * `bb` counts the buckets of the final reduce against `search.max_buckets` as ES's reduce does: the buckets each
 * aggregation keeps (terms after its size cut, histograms after gap filling and min_doc_count), nested ones too.
 */
export function renderAggs(specs: AggSpec[], parts: AggPartial[], typedKeys: boolean, bb: BucketBudget): Obj {
  const out: Obj = {};
  specs.forEach((s, i) => { out[typedKeys ? `${typedName(s, parts[i])}#${s.name}` : s.name] = renderOne(s, parts[i], typedKeys, bb); });
  return out;
}

function typedName(s: AggSpec, p: AggPartial): string {
  if (s.type === 'terms') return p.valueType === 'keyword' ? 'sterms' : ['double', 'float', 'half_float', 'scaled_float'].includes(p.valueType) ? 'dterms' : 'lterms';
  if (s.type === 'percentiles') return 'tdigest_percentiles';
  if (s.type === 'cardinality' || s.type === 'value_count' || s.type === 'top_hits' || s.type === 'filter' || s.type === 'filters' || s.type === 'missing' || s.type === 'nested' || s.type === 'reverse_nested') return s.type;
  if (s.type === 'range') return 'range';
  if (s.type === 'date_range') return 'date_range';
  return s.type;
}

const isDate = (p: AggPartial): boolean => p.valueType === 'date';
const fmt = (p: AggPartial, v: number): string => (isDate(p) ? formatDate(v, p.format) : String(v));

function withMeta(s: AggSpec, body: Obj): Obj { return s.meta !== undefined ? { meta: s.meta, ...body } : body; }

function renderOne(s: AggSpec, p: AggPartial, tk: boolean, bb: BucketBudget): Obj {
  return withMeta(s, renderBody(s, p, tk, bb));
}

function single(p: AggPartial, v: number | null): Obj {
  const o: Obj = { value: v === null ? null : jd(v) };
  if (v !== null && isDate(p)) o.value_as_string = fmt(p, v);
  return o;
}

function renderBody(s: AggSpec, p: AggPartial, tk: boolean, bb: BucketBudget): Obj {
  switch (s.type) {
    case 'avg': return single(p, p.count ? p.sum / p.count : null);
    case 'sum': return { value: jd(p.sum) };
    case 'min': return single(p, p.count ? p.min : null);
    case 'max': return single(p, p.count ? p.max : null);
    case 'value_count': return { value: p.count };
    case 'cardinality': return { value: p.values.length };
    case 'stats': case 'extended_stats': return renderStats(s, p);
    case 'percentiles': return renderPercentiles(s, p);
    case 'top_hits': return { hits: { total: p.total, max_score: p.hits.length && Number.isFinite(p.maxScore) ? jf(p.maxScore) : null, hits: p.hits.map((h: any) => topHit(h)) } };
    case 'terms': return renderTerms(s, p, tk, bb);
    case 'histogram': case 'date_histogram': return renderHistogram(s, p, tk, bb);
    case 'geohash_grid':
      bb.consume(p.buckets.length);
      return { buckets: (p.buckets as { key: string; docCount: number; subs: AggPartial[] }[]).map((b) => ({ key: b.key, doc_count: b.docCount, ...renderAggs(s.subs, b.subs, tk, bb) })) };
    case 'range': case 'date_range': case 'geo_distance': return renderRanges(s, p, tk, bb);
    case 'composite': return renderComposite(s, p, tk, bb);
    case 'filters': {
      bb.consume(p.buckets.length);
      const bs = applyBucketSorts(s, p.buckets as any[]).map((b: any) => ({ key: b.key, body: { doc_count: b.docCount, ...renderAggs(s.subs, b.subs, tk, bb) } }));
      return { buckets: p.keyed ? Object.fromEntries(bs.map((b: any) => [b.key, b.body])) : bs.map((b: any) => b.body) };
    }
    default: return { doc_count: p.docCount, ...renderAggs(s.subs, p.subs, tk, bb) };
  }
}

function topHit(h: any): Obj {
  return { _index: h.index, _type: '_doc', _id: h.id, _score: h.sort ? null : jf(h.score), _source: h.source === null ? undefined : new RawJson(h.source), sort: h.sort ?? undefined };
}

function renderStats(s: AggSpec, p: AggPartial): Obj {
  const n = p.count;
  const o: Obj = { count: n, min: n ? jd(p.min) : null, max: n ? jd(p.max) : null, avg: n ? jd(p.sum / n) : null, sum: jd(p.sum) };
  if (s.type === 'extended_stats') {
    const avg = n ? p.sum / n : NaN;
    // InternalExtendedStats: (sumOfSqrs - sum² / count) / count.
    const variance = n ? (p.sumSq - (p.sum * p.sum) / n) / n : NaN;
    const sigma = Number(s.params.sigma ?? 2);
    const sd = Math.sqrt(variance);
    o.sum_of_squares = n ? jd(p.sumSq) : null;
    o.variance = n ? jd(variance) : null;
    o.std_deviation = n ? jd(sd) : null;
    o.std_deviation_bounds = { upper: n ? jd(avg + sigma * sd) : null, lower: n ? jd(avg - sigma * sd) : null };
  }
  if (isDate(p) && n) {
    o.min_as_string = fmt(p, p.min); o.max_as_string = fmt(p, p.max); o.avg_as_string = fmt(p, p.sum / n); o.sum_as_string = fmt(p, p.sum);
  }
  return o;
}

/** t-digest with one centroid per value (small inputs): linear interpolation at q·(n−1). */
function percentile(sorted: number[], q: number): number {
  const n = sorted.length;
  if (n === 0) return NaN;
  if (n === 1) return sorted[0];
  const idx = q * (n - 1);
  const lo = Math.floor(idx), hi = Math.min(n - 1, lo + 1);
  if (hi === lo) return sorted[lo];
  return sorted[lo] * (hi - idx) + sorted[hi] * (idx - lo);
}

function renderPercentiles(s: AggSpec, p: AggPartial): Obj {
  const percents: number[] = (s.params.percents ?? [1, 5, 25, 50, 75, 95, 99]).map(Number);
  const sorted = (p.values as number[]).slice().sort((a, b) => a - b);
  const keyed = s.params.keyed !== false;
  const entries = percents.map((q) => {
    const v = sorted.length ? percentile(sorted, q / 100) : null;
    return { q, v };
  });
  if (keyed) {
    const values: Obj = {};
    for (const { q, v } of entries) {
      const k = String(jd(q) instanceof RawJson ? (jd(q) as RawJson).text : q);
      values[k] = v === null ? null : jd(v);
      if (v !== null && isDate(p)) values[`${k}_as_string`] = fmt(p, v);
    }
    return { values };
  }
  return { values: entries.map(({ q, v }) => ({ key: jd(q), value: v === null ? null : jd(v) })) };
}

function bucketKey(p: AggPartial, key: number | string): Obj {
  const t = p.valueType;
  if (t === 'keyword' || typeof key === 'string') return { key };
  if (t === 'date') return { key, key_as_string: formatDate(key, p.format) };
  if (t === 'boolean') return { key, key_as_string: key ? 'true' : 'false' };
  if (['double', 'float', 'half_float', 'scaled_float'].includes(t)) return { key: jd(key) };
  return { key };
}

function subValue(b: any, path: string, specs: AggSpec[]): number {
  const [name, metric] = path.split(/[.[]/);
  const i = specs.findIndex((s) => s.name === name);
  if (i < 0) return 0;
  const s = specs[i], p = b.subs[i];
  switch (s.type) {
    case 'avg': return p.count ? p.sum / p.count : -Infinity;
    case 'sum': return p.sum;
    case 'min': return p.count ? p.min : Infinity;
    case 'max': return p.count ? p.max : -Infinity;
    case 'value_count': return p.count;
    case 'cardinality': return p.values.length;
    case 'stats': case 'extended_stats': {
      const m = (metric ?? 'avg').replace(/]$/, '');
      return m === 'count' ? p.count : m === 'min' ? p.min : m === 'max' ? p.max : m === 'sum' ? p.sum : p.count ? p.sum / p.count : -Infinity;
    }
    default: return p.docCount ?? 0;
  }
}

function renderTerms(s: AggSpec, p: AggPartial, tk: boolean, bb: BucketBudget): Obj {
  const size = s.params.size === undefined ? 10 : Number(s.params.size);
  const minDoc = s.params.min_doc_count === undefined ? 1 : Number(s.params.min_doc_count);
  const order = termsOrder(s.params.order);
  const buckets = (p.buckets as any[]).filter((b) => b.docCount >= minDoc);
  buckets.sort((a, b) => {
    for (const o of order) {
      const c = o.key === '_count' ? a.docCount - b.docCount : o.key === '_key' ? compareBucketKeys(a.key, b.key) : subValue(a, o.key, s.subs) - subValue(b, o.key, s.subs);
      if (c !== 0) return o.asc ? c : -c;
    }
    return compareBucketKeys(a.key, b.key);
  });
  bb.consume(Math.min(size, buckets.length));
  const top = applyBucketSorts(s, buckets.slice(0, size));
  const total = (p.buckets as any[]).reduce((a: number, b: any) => a + b.docCount, 0) + p.otherDocCount;
  // sum_other_doc_count counts what the terms cut dropped, not what a bucket_sort dropped after it.
  const shown = buckets.slice(0, size).reduce((a: number, b: any) => a + b.docCount, 0);
  return {
    doc_count_error_upper_bound: p.docCountError ?? 0,
    sum_other_doc_count: total - shown,
    buckets: top.map((b) => ({ ...bucketKey(p, b.key), doc_count: b.docCount,
      ...(s.params.show_term_doc_count_error === true ? { doc_count_error_upper_bound: b.docCountError ?? 0 } : {}), ...renderAggs(s.subs, b.subs, tk, bb) })),
  };
}

function renderHistogram(s: AggSpec, p: AggPartial, tk: boolean, bb: BucketBudget): Obj {
  const minDoc = s.params.min_doc_count === undefined ? 0 : Number(s.params.min_doc_count);
  let buckets = (p.buckets as any[]).slice().sort((a, b) => a.key - b.key);
  if (minDoc === 0) buckets = fillGaps(s, p, buckets, bb);
  else {
    buckets = buckets.filter((b) => b.docCount >= minDoc);
    bb.consume(buckets.length);
  }
  const order = s.params.order ? termsOrder(s.params.order) : [];
  if (order.length) buckets.sort((a, b) => { for (const o of order) { const c = o.key === '_count' ? a.docCount - b.docCount : a.key - b.key; if (c) return o.asc ? c : -c; } return a.key - b.key; });
  buckets = applyBucketSorts(s, buckets);
  const date = s.type === 'date_histogram';
  const format: string | undefined = s.params.format ?? p.format;
  const tz = s.params.time_zone as string | undefined;
  const rendered = buckets.map((b) => {
    const subs = renderAggs(s.subs, b.subs, tk, bb);
    if (!date) return { key: jd(b.key), doc_count: b.docCount, ...subs };
    return { key_as_string: formatDate(b.key, format, tzOffset(tz, b.key)), key: b.key, doc_count: b.docCount, ...subs };
  });
  if (s.params.keyed === true) return { buckets: Object.fromEntries(rendered.map((r: any) => [String(r.key_as_string ?? (r.key instanceof RawJson ? r.key.text : r.key)), r])) };
  return { buckets: rendered };
}

/**
 * A composite key as ES's DocValueFormats print it: keywords as strings, longs and dates as numbers (epoch
 * millis unless the source has a `format`), doubles and histogram keys as Java doubles, booleans as true/false.
 */
function compositeKey(s: AggSpec, p: AggPartial, key: (number | string | null)[]): Obj {
  const out: Obj = {};
  (s.params.sources as { name: string; type: string; format?: string; timeZone?: string }[]).forEach((src, i) => {
    const v = key[i], vt: string = p.sources[i].valueType;
    if (v === null || typeof v === 'string') out[src.name] = v;
    else if (vt === 'date' && src.format !== undefined) out[src.name] = formatDate(v, src.format, tzOffset(src.timeZone, v));
    else if (vt === 'boolean') out[src.name] = v !== 0;
    else if (src.type === 'histogram' || ['double', 'float', 'half_float', 'scaled_float'].includes(vt)) out[src.name] = jd(v);
    else out[src.name] = v;
  });
  return out;
}

function renderComposite(s: AggSpec, p: AggPartial, tk: boolean, bb: BucketBudget): Obj {
  bb.consume(p.buckets.length);
  const buckets = applyBucketSorts(s, p.buckets as { key: (number | string | null)[]; docCount: number; subs: AggPartial[] }[]);
  const o: Obj = {};
  // after_key: the last bucket's key (none on an empty page), as 6.8's InternalComposite.
  if (buckets.length) o.after_key = compositeKey(s, p, buckets[buckets.length - 1].key);
  o.buckets = buckets.map((b) => ({ key: compositeKey(s, p, b.key), doc_count: b.docCount, ...renderAggs(s.subs, b.subs, tk, bb) }));
  return o;
}

function tzOffset(tz: string | undefined, ms: number): number {
  if (!tz || tz === 'UTC' || tz === 'Z') return 0;
  const m = /^([+-])(\d{2}):?(\d{2})$/.exec(tz);
  if (m) return (m[1] === '-' ? -1 : 1) * (Number(m[2]) * 60 + Number(m[3])) * 60000;
  try {
    const d = new Date(ms);
    const local = new Date(d.toLocaleString('en-US', { timeZone: tz }));
    const utc = new Date(d.toLocaleString('en-US', { timeZone: 'UTC' }));
    return local.getTime() - utc.getTime();
  } catch { return 0; }
}

/**
 * The buckets between the first and last key (min_doc_count 0, extended_bounds), each consumed from `bb` as it
 * is made: two documents far apart at a small interval fail the search at the bucket limit instead of building
 * millions of empty buckets in this thread.
 */
function fillGaps(s: AggSpec, p: AggPartial, buckets: any[], bb: BucketBudget): any[] {
  const date = s.type === 'date_histogram';
  const interval = String(s.params.interval ?? s.params.calendar_interval ?? s.params.fixed_interval);
  const step = (k: number): number => date ? nextKey(interval, s.params.time_zone, s.params.offset, k) : k + Number(s.params.interval);
  let lo = buckets.length ? buckets[0].key : Infinity, hi = buckets.length ? buckets[buckets.length - 1].key : -Infinity;
  const eb = s.params.extended_bounds as Obj | undefined;
  if (eb) {
    const conv = (v: unknown): number => (date && typeof v === 'string' ? parseDate(v, p.format) : Number(v));
    const round = (v: number): number => {
      if (date) { let k = buckets.length ? buckets[0].key : v; while (k > v) k -= 86_400_000 * 366; while (step(k) <= v) k = step(k); return k; }
      const iv = Number(s.params.interval), off = Number(s.params.offset ?? 0);
      return Math.floor((v - off) / iv) * iv + off;
    };
    if (eb.min !== undefined) lo = Math.min(lo, round(conv(eb.min)));
    if (eb.max !== undefined) hi = Math.max(hi, round(conv(eb.max)));
  }
  if (!Number.isFinite(lo)) { bb.consume(buckets.length); return buckets; }
  const byKey = new Map(buckets.map((b) => [b.key, b]));
  const empty = s.subs.length ? null : [];
  const out: any[] = [];
  for (let k = lo; k <= hi; k = step(k)) {
    bb.consume(1);
    out.push(byKey.get(k) ?? { key: k, docCount: 0, subs: empty ?? emptySubs(s, buckets) });
  }
  return out;
}

function emptySubs(s: AggSpec, buckets: any[]): unknown[] {
  // Sub-aggregations of an empty bucket: reuse a reduced shape with zeroed counts.
  const tpl = buckets.find((b) => b.subs)?.subs ?? [];
  return tpl.map((x: AggPartial) => zero(x));
}

function zero(p: AggPartial): AggPartial {
  return { ...p, count: 0, sum: 0, min: Infinity, max: -Infinity, sumSq: 0, values: [], docCount: 0, buckets: Array.isArray(p.buckets) ? [] : p.buckets, otherDocCount: 0, hits: [], total: 0,
    subs: Array.isArray(p.subs) ? p.subs.map(zero) : p.subs };
}

function rangeKey(p: AggPartial, v: number | null): string {
  if (v === null) return '*';
  return p.valueType === 'date' ? formatDate(v, p.format) : (jd(v) as RawJson).text;
}

function renderRanges(s: AggSpec, p: AggPartial, tk: boolean, bb: BucketBudget): Obj {
  bb.consume(p.buckets.length);
  const date = s.type === 'date_range' || p.valueType === 'date';
  const bs = applyBucketSorts(s, (p.buckets as any[]).map((b) => ({ ...b, key: b.key ?? `${rangeKey(p, b.from)}-${rangeKey(p, b.to)}` }))).map((b) => {
    const key = b.key;
    const o: Obj = { key };
    if (b.from !== null) { o.from = jd(b.from); if (date) o.from_as_string = formatDate(b.from, p.format); }
    if (b.to !== null) { o.to = jd(b.to); if (date) o.to_as_string = formatDate(b.to, p.format); }
    o.doc_count = b.docCount;
    return { key, body: { ...o, ...renderAggs(s.subs, b.subs, tk, bb) } };
  });
  if (p.keyed) return { buckets: Object.fromEntries(bs.map((b) => { const { key: _k, ...rest } = b.body as Obj; return [b.key, rest]; })) };
  return { buckets: bs.map((b) => b.body) };
}
