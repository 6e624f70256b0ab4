/**
 * Coordinator-side reduce of shard aggregation partials, as ES's `InternalAggregation.reduce`: sums and
 * extremes combine, buckets merge by key (sub-aggregations recursively), `terms` tracks the documents left
 * out by each shard's `shard_size` cut (`sum_other_doc_count`) and the doc-count error bound.
 */
import type { AggSpec } from './agg-parser.ts';
import type { AggPartial } from './agg-collectors.ts';
import { termsOrder } from './bucket-collectors.ts';
import { reduceComposite } from './composite.ts';

/** Merges the partials of each spec across shards; `perShard[s][i]` is shard s's partial of spec i. */
export function reduceAggs(specs: AggSpec[], perShard: AggPartial[][]): AggPartial[] {
  return specs.map((spec, i) => reduceOne(spec, perShard.map((p) => p[i])));
}

function kahanSum(values: number[]): number {
  let sum = 0, c = 0;
  for (const v of values) {
    if (!Number.isFinite(v)) { sum += v; continue; }
    const y = v - c, t = sum + y; c = (t - sum) - y; sum = t;
  }
  return sum;
}

function reduceOne(spec: AggSpec, parts: AggPartial[]): AggPartial {
  const first = parts[0];
  switch (spec.type) {
    case 'avg': case 'sum': case 'min': case 'max': case 'stats': case 'extended_stats':
      return { ...first, count: parts.reduce((a, p) => a + p.count, 0), sum: kahanSum(parts.map((p) => p.sum)),
        min: Math.min(...parts.map((p) => p.min)), max: Math.max(...parts.map((p) => p.max)), sumSq: kahanSum(parts.map((p) => p.sumSq)) };
    case 'value_count': return { ...first, count: parts.reduce((a, p) => a + p.count, 0) };
    case 'cardinality': return { ...first, values: [...new Set(parts.flatMap((p) => p.values))] };
    case 'percentiles': return { ...first, values: parts.flatMap((p) => p.values) };
    case 'top_hits': return reduceTopHits(parts);
    case 'terms': return reduceTerms(spec, parts);
    case 'histogram': case 'date_histogram': return { ...first, buckets: mergeKeyed(spec, parts) };
    case 'geohash_grid': {
      // ES's bucket queue: most documents first, ties by geohash; `size` (default 10,000) kept.
      const size = spec.params.size === undefined ? 10000 : Number(spec.params.size);
      const buckets = mergeKeyed(spec, parts).sort((a, b) => b.docCount - a.docCount || (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)).slice(0, size);
      return { ...first, buckets };
    }
    case 'composite': return reduceComposite(spec, parts, (subs) => reduceAggs(spec.subs, subs));
    case 'range': case 'date_range': case 'geo_distance': case 'filters':
      return { ...first, buckets: first.buckets.map((b: any, i: number) => ({ ...b, docCount: parts.reduce((a, p) => a + p.buckets[i].docCount, 0), subs: reduceAggs(spec.subs, parts.map((p) => p.buckets[i].subs)) })) };
    default:
      return { ...first, docCount: parts.reduce((a, p) => a + p.docCount, 0), subs: reduceAggs(spec.subs, parts.map((p) => p.subs)) };
  }
}

function mergeKeyed(spec: AggSpec, parts: AggPartial[]): any[] {
  const map = new Map<number | string, { key: number | string; docCount: number; subs: AggPartial[][] }>();
  for (const p of parts) {
    for (const b of p.buckets) {
      let m = map.get(b.key);
      if (!m) { m = { key: b.key, docCount: 0, subs: [] }; map.set(b.key, m); }
      m.docCount += b.docCount;
      m.subs.push(b.subs);
    }
  }
  return [...map.values()].map((m) => ({ key: m.key, docCount: m.docCount, subs: reduceAggs(spec.subs, m.subs), docCountError: 0 }));
}

function reduceTerms(spec: AggSpec, parts: AggPartial[]): AggPartial {
  const order = termsOrder(spec.params.order);
  const keyOrder = order.length > 0 && order[0].key === '_key';
  const countDesc = order.length > 0 && order[0].key === '_count' && !order[0].asc;
  let error = 0;
  const shardErr: number[] = [];
  for (const p of parts) {
    let e: number;
    if (p.buckets.length < p.shardSize || keyOrder) e = 0;
    else if (countDesc) e = p.buckets[p.buckets.length - 1].docCount;
    else e = -1;
    shardErr.push(e);
    if (e < 0 || error < 0) error = -1; else error += e;
  }
  // Per-bucket error bound: what the shards that did not return the key could have held for it.
  const buckets = mergeKeyed(spec, parts);
  for (const b of buckets) {
    let be = 0;
    parts.forEach((p, i) => {
      if (be < 0) return;
      if (p.buckets.some((x: { key: unknown }) => x.key === b.key)) return;
      if (shardErr[i] < 0) be = -1; else be += shardErr[i];
    });
    b.docCountError = be;
  }
  // Longs and doubles mix across indices: any double promotes the keys (ES 6).
  const dbl = parts.find((p) => ['double', 'float', 'half_float', 'scaled_float'].includes(p.valueType));
  return {
    ...parts[0], valueType: dbl ? dbl.valueType : parts[0].valueType, buckets, otherDocCount: parts.reduce((a, p) => a + p.otherDocCount, 0), docCountError: error,
  };
}

function reduceTopHits(parts: AggPartial[]): AggPartial {
  const first = parts[0];
  const all: any[] = [];
  parts.forEach((p, shard) => p.hits.forEach((h: any) => all.push({ ...h, shard })));
  const kinds: string[] = first.kinds, reverse: boolean[] = first.reverse;
  all.sort((a, b) => {
    const ka = first.sorted ? a.sort : [a.score], kb = first.sorted ? b.sort : [b.score];
    for (let i = 0; i < kinds.length; i++) {
      const x = ka[i], y = kb[i];
      const c = x === y ? 0 : x === null ? 1 : y === null ? -1 : x < y ? -1 : 1;
      if (c !== 0) return reverse[i] ? -c : c;
    }
    return a.shard - b.shard || a.doc - b.doc;
  });
  return { ...first, total: parts.reduce((a, p) => a + p.total, 0), maxScore: Math.max(...parts.map((p) => p.maxScore)),
    hits: all.slice(first.from, first.from + first.size) };
}
