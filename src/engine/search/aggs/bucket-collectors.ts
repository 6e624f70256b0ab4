/**
 * Shard-side bucket aggregations: terms, histogram, date_histogram, range, date_range, filter, filters,
 * missing, nested, reverse_nested (composite lives in composite.ts). Each bucket owns lazily created sub-collectors, so sub-aggregations nest
 * without limit. `terms` keeps the shard's top `shard_size` buckets (size on a single shard) like ES and
 * reports the docs it dropped as `otherDocCount`.
 */
import { geoDistanceSource } from './geo-distance-source.ts';
import { GeohashGridCollector } from './geohash-grid.ts';
import type { OrdinalDocValues, Segment } from '../../postings/segment.ts';
import type { Scorer } from '../scorers.ts';
import { compile } from '../query-compiler.ts';
import type { Weight } from '../weight.ts';
import { cmpCodePoints } from '../range-weight.ts';
import { parseDateValue } from '../range-weight.ts';
import type { AggSpec } from './agg-parser.ts';
import { AggCollectors, createCollector, valuesSource, type AggCollector, type AggEnv, type AggPartial, type ValuesSource } from './agg-collectors.ts';
import { murmur3Bytes } from '../../codec/murmur3.ts';

const utf8 = new TextEncoder();
import { dateRounding } from './date-rounding.ts';
import { parsingError } from '../query-parser.ts';
import { compileLuceneRegex } from '../../regex/index.ts';
import { CompositeCollector } from './composite.ts';
import { isMultiBucket } from './bucket-budget.ts';
import { DeferredHits } from './deferred-hits.ts';

export type BucketKey = number | string;

export class Bucket {
  count = 0;
  subs: AggCollectors | null = null;
  segOrd = -1;
  /** The bucket's place in its set's creation order (`BucketSet.byOrd`). */
  constructor(readonly key: BucketKey, readonly ord: number) {}
}

/** Buckets keyed by value with per-bucket sub-collectors. */
export class BucketSet {
  readonly map = new Map<BucketKey, Bucket>();
  /** The buckets in creation order (`Bucket.ord`). */
  readonly byOrd: Bucket[] = [];
  private segOrd = -1;
  private seg: Segment | null = null;
  /** Whether this aggregation's buckets count against the budget of sub-collectors (single-bucket ones do not). */
  private readonly counted: boolean;
  constructor(private readonly spec: AggSpec, private readonly env: AggEnv) {
    this.counted = isMultiBucket(spec.type);
  }
  setSegment(ord: number, seg: Segment): void { this.segOrd = ord; this.seg = seg; }
  bucket(key: BucketKey): Bucket {
    let b = this.map.get(key);
    if (!b) { b = new Bucket(key, this.byOrd.length); this.map.set(key, b); this.byOrd.push(b); }
    return b;
  }
  hit(b: Bucket, doc: number, score: number): void {
    b.count++;
    if (this.spec.subs.length > 0) this.collectSubs(b, doc, score);
  }
  /**
   * Collects `doc` into the bucket's sub-aggregations. Every bucket whose sub-collectors are built counts against
   * the search's bucket limit as it is built (`AggEnv.subBuckets`), so a shard never holds sub-collectors for
   * more buckets than `search.max_buckets` allows.
   */
  collectSubs(b: Bucket, doc: number, score: number): void {
    if (!b.subs) {
      if (this.counted) this.env.subBuckets.consume(1);
      b.subs = new AggCollectors(this.spec.subs.map((s) => createCollector(s, this.env)));
    }
    if (b.segOrd !== this.segOrd) { b.subs.setSegment(this.segOrd, this.seg!); b.segOrd = this.segOrd; }
    b.subs.collect(doc, score);
  }
  /** The partials of a bucket's sub-aggregations (empty ones for a bucket that got no docs, or none at all). */
  subPartials(b: Bucket | undefined): AggPartial[] {
    return b?.subs ? b.subs.partials() : this.spec.subs.map((s) => createCollector(s, this.env).partial());
  }
}


export function createBucketCollector(spec: AggSpec, env: AggEnv): AggCollector {
  switch (spec.type) {
    case 'terms': return new TermsCollector(spec, env);
    case 'histogram': case 'date_histogram': return new HistogramCollector(spec, env);
    case 'range': case 'date_range': case 'geo_distance': return new RangeCollector(spec, env);
    case 'geohash_grid': return new GeohashGridCollector(spec, env);
    case 'filter': return new FiltersCollector(spec, env, [{ key: '', query: spec.filter! }]);
    case 'filters': return new FiltersCollector(spec, env, spec.filters!);
    case 'missing': return new MissingCollector(spec, env);
    case 'nested': return new NestedCollector(spec, env);
    case 'reverse_nested': return new ReverseNestedCollector(spec, env);
    case 'composite': return new CompositeCollector(spec, env);
  }
  throw parsingError(`Unknown aggregation type [${spec.type}]`);
}

export function compareBucketKeys(a: BucketKey, b: BucketKey): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  return cmpCodePoints(String(a), String(b));
}

class TermsCollector implements AggCollector {
  private readonly vals: (number | string)[] = [];
  private readonly src: ValuesSource;
  private readonly buckets: BucketSet;
  private readonly include: ((k: number | string) => boolean) | null;
  private readonly order: OrderSpec[];
  /** Ordered by count and key alone: the shard cut needs no sub-aggregation. */
  private readonly simpleOrder: boolean;
  /**
   * The hits whose sub-aggregations wait for the shard cut (breadth_first: deferred-hits.ts), or null when they
   * are collected at once (depth_first): no sub-aggregations, `collect_mode: depth_first`, or an order by a
   * sub-aggregation, which needs every bucket's.
   */
  private readonly deferred: DeferredHits | null;
  constructor(private readonly spec: AggSpec, private readonly env: AggEnv) {
    this.src = valuesSource(String(spec.params.field), env, spec.params.missing, spec.params.value_type);
    this.buckets = new BucketSet(spec, env);
    this.include = includeExclude(spec.params.include, spec.params.exclude, this.src, env);
    this.order = termsOrder(spec.params.order);
    this.simpleOrder = this.order.every((o) => o.key === '_count' || o.key === '_key');
    this.deferred = spec.subs.length > 0 && this.simpleOrder && spec.params.collect_mode !== 'depth_first' ? new DeferredHits() : null;
  }
  /**
   * Fast path for a keyword field with no sub-aggregations or include/exclude: counts per segment ordinal in a
   * typed array and turns ordinals into bucket keys once per segment, not once per doc.
   */
  private ordCounts: Int32Array | null = null;
  private ordColumn: OrdinalDocValues | null = null;

  setSegment(ord: number, seg: Segment): void {
    this.flushOrdCounts();
    this.src.setSegment(seg);
    this.buckets.setSegment(ord, seg);
    this.deferred?.setSegment(ord, seg);
    const col = this.spec.subs.length === 0 && !this.include ? this.src.ordinalColumn() : null;
    this.ordColumn = col;
    this.ordCounts = col ? new Int32Array(col.terms.size) : null;
  }

  private flushOrdCounts(): void {
    const counts = this.ordCounts, col = this.ordColumn;
    if (!counts || !col) return;
    for (let o = 0; o < counts.length; o++) if (counts[o] > 0) this.buckets.bucket(col.lookupOrd(o)).count += counts[o];
    this.ordCounts = null;
    this.ordColumn = null;
  }

  collect(doc: number, score: number): void {
    const counts = this.ordCounts;
    if (counts !== null) {
      const col = this.ordColumn!, ords = col.ords;
      if (col.dense) { counts[ords[doc]]++; return; }
      // Ords are sorted and distinct per doc, so each counts the doc once.
      for (let i = col.start[doc], e = col.start[doc + 1]; i < e; i++) counts[ords[i]]++;
      return;
    }
    const n = this.src.values(doc, this.vals);
    const deferred = this.deferred;
    let prev: number | string | undefined;
    for (let i = 0; i < n; i++) {
      const v = this.vals[i];
      if (v === prev) continue; // count a doc once per distinct value
      prev = v;
      if (this.include && !this.include(v)) continue;
      const b = this.buckets.bucket(v);
      if (deferred === null) this.buckets.hit(b, doc, score);
      else { b.count++; deferred.record(b.ord, doc, score); }
    }
  }
  collectBlock(docs: Uint32Array, scores: Float64Array, n: number): void {
    const counts = this.ordCounts, col = this.ordColumn;
    if (counts === null || !col!.dense) { for (let i = 0; i < n; i++) this.collect(docs[i], scores[i]); return; }
    const ords = col!.ords;
    for (let i = 0; i < n; i++) counts[ords[docs[i]]]++;
  }
  partial(): AggPartial {
    this.flushOrdCounts();
    const p = this.spec.params;
    const size = p.size === undefined ? 10 : Number(p.size);
    const shardSize = p.shard_size !== undefined ? Math.max(Number(p.shard_size), size) : this.env.shardCount === 1 ? size : Math.floor(size * 1.5 + 10);
    const order = this.order;
    let list = [...this.buckets.map.values()];
    const minDoc = p.min_doc_count === undefined ? 1 : Number(p.min_doc_count);
    list = list.filter((b) => b.count >= Math.min(minDoc, 1));
    let other = 0;
    if (this.simpleOrder) {
      list.sort((a, b) => compareSimple(order, a.count, a.key, b.count, b.key));
      if (list.length > shardSize) { for (const b of list.slice(shardSize)) other += b.count; list = list.slice(0, shardSize); }
    }
    if (this.deferred !== null) this.collectSurvivors(this.deferred, list);
    return {
      name: this.spec.name, type: 'terms', valueType: this.src.type, format: p.format ?? this.src.format, shardSize, otherDocCount: other,
      buckets: list.map((b) => ({ key: b.key, docCount: b.count, subs: this.buckets.subPartials(b) })),
    };
  }

  /** Breadth-first's second pass: the sub-aggregations of the buckets that survived the cut, from the recorded hits. */
  private collectSurvivors(deferred: DeferredHits, survivors: Bucket[]): void {
    const keep = new Uint8Array(this.buckets.byOrd.length);
    for (const b of survivors) keep[b.ord] = 1;
    const buckets = this.buckets, byOrd = buckets.byOrd;
    deferred.replay(keep, (ord, seg) => buckets.setSegment(ord, seg), (b, doc, score) => buckets.collectSubs(byOrd[b], doc, score));
  }
}

export interface OrderSpec { key: string; asc: boolean }

export function termsOrder(v: unknown): OrderSpec[] {
  const out: OrderSpec[] = [];
  for (const o of [v ?? { _count: 'desc' }].flat() as Record<string, string>[]) {
    for (const [k, d] of Object.entries(o)) out.push({ key: k === '_term' ? '_key' : k, asc: String(d).toLowerCase() === 'asc' });
  }
  return out;
}

export function compareSimple(order: OrderSpec[], ca: number, ka: BucketKey, cb: number, kb: BucketKey): number {
  for (const o of order) {
    const c = o.key === '_count' ? ca - cb : compareBucketKeys(ka, kb);
    if (c !== 0) return o.asc ? c : -c;
  }
  return compareBucketKeys(ka, kb);
}

/**
 * terms include/exclude: regex strings (string fields), exact value arrays (parsed as the field's type, so
 * dates and numbers match), or `{partition, num_partitions}` (ES's hash partitioning: murmur3 of the UTF-8
 * term with seed 31 for strings, BitMixer.mix64 for numbers, floorMod). Decisions are cached per value.
 */
function includeExclude(inc: unknown, exc: unknown, src: ValuesSource, env: AggEnv): ((k: number | string) => boolean) | null {
  if (inc === undefined && exc === undefined) return null;
  const norm = (x: unknown): string => {
    if (src.kind === 'str') return String(x);
    if (src.type === 'date') return String(parseDateValue(env.ctx, x, src.format, undefined, false));
    if (src.type === 'boolean') return x === true || x === 'true' ? '1' : '0';
    return String(Number(x));
  };
  const m = (v: unknown): ((k: number | string) => boolean) | null => {
    if (v === undefined) return null;
    if (Array.isArray(v)) { const s = new Set(v.map(norm)); return (k) => s.has(String(k)); }
    if (typeof v === 'string') { const matches = compileLuceneRegex(v); return (k) => matches(String(k)); } // Lucene syntax, as ES's IncludeExclude
    if (v && typeof v === 'object' && 'num_partitions' in v) {
      const p = v as { partition: number; num_partitions: number };
      return (k) => partitionOf(k, p.num_partitions) === Number(p.partition);
    }
    return null;
  };
  const i = m(inc), e = m(exc);
  const cache = new Map<number | string, boolean>();
  return (k) => {
    let r = cache.get(k);
    if (r === undefined) { r = (!i || i(k)) && (!e || !e(k)); cache.set(k, r); }
    return r;
  };
}

function partitionOf(k: number | string, n: number): number {
  let h: bigint;
  if (typeof k === 'string') h = BigInt(murmur3Bytes(utf8.encode(k), 31));
  else {
    let x = BigInt.asUintN(64, BigInt(Math.trunc(k)));
    const M = (1n << 64n) - 1n;
    // HPPC BitMixer.mix64, as ES's PartitionedLongFilter uses.
    x = ((x ^ (x >> 32n)) * 0x4cd6944c5cc20b6dn) & M;
    x = ((x ^ (x >> 29n)) * 0xfc12c5b19d3259e9n) & M;
    x ^= x >> 32n;
    h = BigInt.asIntN(64, x);
  }
  const nn = BigInt(n);
  return Number(((h % nn) + nn) % nn);
}


class HistogramCollector implements AggCollector {
  private readonly vals: (number | string)[] = [];
  private readonly src: ValuesSource;
  private readonly buckets: BucketSet;
  private readonly round: (v: number) => number;
  constructor(private readonly spec: AggSpec, env: AggEnv) {
    this.src = spec.type === 'geo_distance' ? geoDistanceSource(spec.params, env, spec.name) : valuesSource(String(spec.params.field), env, spec.params.missing);
    this.buckets = new BucketSet(spec, env);
    if (spec.type === 'histogram') {
      const interval = Number(spec.params.interval), offset = Number(spec.params.offset ?? 0);
      if (!(interval > 0)) throw parsingError(`[interval] must be >0 for histogram aggregation [${spec.name}]`);
      this.round = (v) => Math.floor((v - offset) / interval) * interval + offset;
    } else {
      this.round = dateRounding(String(spec.params.interval ?? spec.params.calendar_interval ?? spec.params.fixed_interval), spec.params.time_zone, spec.params.offset);
    }
  }
  setSegment(ord: number, seg: Segment): void { this.src.setSegment(seg); this.buckets.setSegment(ord, seg); }
  collect(doc: number, score: number): void {
    const n = this.src.values(doc, this.vals);
    let prev = NaN;
    for (let i = 0; i < n; i++) {
      const k = this.round(this.vals[i] as number);
      if (k === prev) continue;
      prev = k;
      this.buckets.hit(this.buckets.bucket(k), doc, score);
    }
  }
  partial(): AggPartial {
    const list = [...this.buckets.map.values()].sort((a, b) => (a.key as number) - (b.key as number));
    return { name: this.spec.name, type: this.spec.type, valueType: this.src.type, format: this.spec.params.format ?? this.src.format,
      buckets: list.map((b) => ({ key: b.key, docCount: b.count, subs: this.buckets.subPartials(b) })) };
  }
}

class RangeCollector implements AggCollector {
  private readonly vals: (number | string)[] = [];
  private readonly src: ValuesSource;
  private readonly buckets: BucketSet;
  private readonly ranges: { key?: string; from: number | null; to: number | null; fromRaw: unknown; toRaw: unknown }[];
  constructor(private readonly spec: AggSpec, env: AggEnv) {
    this.src = spec.type === 'geo_distance' ? geoDistanceSource(spec.params, env, spec.name) : valuesSource(String(spec.params.field), env, spec.params.missing);
    this.buckets = new BucketSet(spec, env);
    const conv = (v: unknown): number | null => {
      if (v === undefined || v === null) return null;
      if (spec.type === 'date_range') return parseDateValue(env.ctx, v, spec.params.format ?? this.src.format, spec.params.time_zone, false);
      return Number(v);
    };
    this.ranges = (spec.params.ranges as Record<string, unknown>[]).map((r) => ({ key: r.key as string | undefined, from: conv(r.from), to: conv(r.to), fromRaw: r.from, toRaw: r.to }));
  }
  setSegment(ord: number, seg: Segment): void { this.src.setSegment(seg); this.buckets.setSegment(ord, seg); }
  collect(doc: number, score: number): void {
    const n = this.src.values(doc, this.vals);
    for (let r = 0; r < this.ranges.length; r++) {
      const rg = this.ranges[r];
      for (let i = 0; i < n; i++) {
        const v = this.vals[i] as number;
        if ((rg.from === null || v >= rg.from) && (rg.to === null || v < rg.to)) { this.buckets.hit(this.buckets.bucket(r), doc, score); break; }
      }
    }
  }
  partial(): AggPartial {
    return { name: this.spec.name, type: this.spec.type, valueType: this.src.type, format: this.spec.params.format ?? this.src.format, keyed: this.spec.params.keyed === true,
      buckets: this.ranges.map((r, i) => {
        const b = this.buckets.map.get(i);
        return { key: r.key ?? null, from: r.from, to: r.to, docCount: b ? b.count : 0, subs: this.buckets.subPartials(b) };
      }) };
  }
}

class FiltersCollector implements AggCollector {
  private readonly weights: Weight[];
  private scorers: (Scorer | null)[] = [];
  private readonly buckets: BucketSet;
  constructor(private readonly spec: AggSpec, env: AggEnv, private readonly filters: { key: string; query: import('../query-ast.ts').Query }[]) {
    this.weights = filters.map((f) => compile(f.query, env.ctx));
    this.buckets = new BucketSet(spec, env);
  }
  setSegment(ord: number, seg: Segment): void { this.scorers = this.weights.map((w) => w.scorer(ord, seg)); this.buckets.setSegment(ord, seg); }
  collect(doc: number, score: number): void {
    for (let i = 0; i < this.scorers.length; i++) {
      const s = this.scorers[i];
      if (s && (s.doc() < doc ? s.seek(doc) : s.doc()) === doc) this.buckets.hit(this.buckets.bucket(i), doc, score);
    }
  }
  partial(): AggPartial {
    const buckets = this.filters.map((f, i) => {
      const b = this.buckets.map.get(i);
      return { key: f.key, docCount: b ? b.count : 0, subs: this.buckets.subPartials(b) };
    });
    if (this.spec.type === 'filter') return { name: this.spec.name, type: 'filter', docCount: buckets[0].docCount, subs: buckets[0].subs };
    return { name: this.spec.name, type: this.spec.type, keyed: this.spec.filtersKeyed !== false, buckets };
  }
}

/** Single-bucket collectors share this shape: {docCount, subs}. */
abstract class SingleBucket implements AggCollector {
  protected readonly buckets: BucketSet;
  protected readonly b: Bucket;
  protected seg: Segment | null = null;
  constructor(protected readonly spec: AggSpec, env: AggEnv) { this.buckets = new BucketSet(spec, env); this.b = this.buckets.bucket(0); }
  setSegment(ord: number, seg: Segment): void { this.seg = seg; this.buckets.setSegment(ord, seg); }
  abstract collect(doc: number, score: number): void;
  partial(): AggPartial { return { name: this.spec.name, type: this.spec.type, docCount: this.b.count, subs: this.buckets.subPartials(this.b) }; }
}

class MissingCollector extends SingleBucket {
  private readonly vals: (number | string)[] = [];
  private readonly src: ValuesSource;
  constructor(spec: AggSpec, env: AggEnv) { super(spec, env); this.src = valuesSource(String(spec.params.field), env); }
  override setSegment(ord: number, seg: Segment): void { super.setSegment(ord, seg); this.src.setSegment(seg); }
  collect(doc: number, score: number): void { if (this.src.values(doc, this.vals) === 0) this.buckets.hit(this.b, doc, score); }
}

class NestedCollector extends SingleBucket {
  private readonly path: string;
  constructor(spec: AggSpec, env: AggEnv) {
    super(spec, env);
    this.path = String(spec.params.path);
    const kind = env.ctx.reader.infos.objects.get(this.path);
    if (kind !== 'nested') throw parsingError(`[nested] nested path [${this.path}] is not nested`);
  }
  collect(doc: number, score: number): void {
    const seg = this.seg!;
    if (!seg.hasNested) return;
    const parentOf = seg.parentOf();
    let d = doc - 1;
    while (d >= 0 && parentOf[d] !== -1) d--;
    for (let c = d + 1; c < doc; c++) if (parentOf[c] === doc && seg.pathOf(c) === this.path) this.buckets.hit(this.b, c, score);
  }
}

class ReverseNestedCollector extends SingleBucket {
  private last = -1;
  private lastSeg: Segment | null = null;
  collect(doc: number, score: number): void {
    const seg = this.seg!;
    const target = this.spec.params.path as string | undefined;
    let p = doc;
    if (seg.hasNested) {
      const parentOf = seg.parentOf();
      while (parentOf[p] !== -1 && (target === undefined || seg.pathOf(p) !== target)) p = parentOf[p];
    }
    if (p === this.last && seg === this.lastSeg) return;
    this.last = p; this.lastSeg = seg;
    this.buckets.hit(this.b, p, score);
  }
}
