/**
 * `composite`: buckets keyed by a tuple of source values (`terms`, `histogram`, `date_histogram`), returned in
 * key order a page at a time (`size`, `after`), as ES 6.8's CompositeAggregator. A doc contributes once to every
 * distinct combination of its sources' values; a source without a value drops the doc unless it asked for a
 * `missing_bucket` (null key, smaller than every value).
 *
 * Each shard keeps only its `size` smallest keys after `after`: once more than twice that many buckets exist, the
 * larger ones are dropped and their key becomes a cutoff that later keys must stay under. The cutoff only falls,
 * so a dropped key can never belong to the page and every kept bucket saw all of its docs. The coordinator merges
 * the shard pages by key and cuts to `size` again (exact, since a key on the final page is on every page of the
 * shards that hold it).
 */
import type { OrdinalDocValues, Segment } from '../../postings/segment.ts';
import { InvalidArgumentError } from '../../errors.ts';
import { cmpCodePoints, parseDateValue } from '../range-weight.ts';
import { locOfKey } from '../json-pos.ts';
import { parsingError } from '../query-parser.ts';
import type { AggSpec } from './agg-parser.ts';
import { valuesSource, type AggCollector, type AggEnv, type AggPartial, type ValuesSource } from './agg-collectors.ts';
import { BucketSet } from './bucket-collectors.ts';
import { dateRounding } from './date-rounding.ts';

/** One value source of a composite key, as parsed from the request (plain data: it travels to the workers). */
export interface CompositeSourceSpec {
  name: string;
  type: 'terms' | 'histogram' | 'date_histogram';
  field: string;
  asc: boolean;
  missingBucket: boolean;
  missing?: unknown;
  valueType?: string;
  format?: string;
  interval?: unknown;
  timeZone?: string;
}

/** A composite key: one value per source; null only for a missing bucket. */
export type CompositeKey = (number | string | null)[];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const SOURCE_PARAMS: Record<string, string[]> = {
  terms: ['field', 'script', 'value_type', 'missing', 'missing_bucket', 'order', 'format'],
  histogram: ['field', 'script', 'value_type', 'missing', 'missing_bucket', 'order', 'format', 'interval'],
  date_histogram: ['field', 'script', 'value_type', 'missing', 'missing_bucket', 'order', 'format', 'interval', 'calendar_interval', 'fixed_interval', 'time_zone'],
};

/** Parses `composite.sources` (a list of one-key objects `{name: {type: {...}}}`) with ES's parse errors. */
export function parseCompositeSources(name: string, body: Obj): CompositeSourceSpec[] {
  const list = body.sources;
  // 6.8 fails later with a NullPointerException; 7.1's wording says what is wrong.
  if (!Array.isArray(list) || list.length === 0) throw parsingError(`Composite [sources] cannot be null or empty`, locOfKey(body, 'sources'));
  const out: CompositeSourceSpec[] = [];
  list.forEach((item, i) => {
    const loc = locOfKey(list as unknown as Obj, String(i));
    if (!isObj(item) || Object.keys(item).length !== 1) throw parsingError(`Failed to parse object: expecting token of type [FIELD_NAME] but found [${isObj(item) ? 'END_OBJECT' : 'VALUE_STRING'}]`, loc);
    const [srcName, def] = Object.entries(item)[0];
    if (!isObj(def) || Object.keys(def).length !== 1) throw parsingError(`Failed to parse object: expecting token of type [START_OBJECT]`, locOfKey(item, srcName));
    const [type, p] = Object.entries(def)[0];
    if (!SOURCE_PARAMS[type]) throw parsingError(`invalid source type: ${type}`, locOfKey(def, type));
    if (!isObj(p)) throw parsingError(`Failed to parse object: expecting token of type [START_OBJECT] but found [VALUE_STRING]`, locOfKey(def, type));
    for (const k of Object.keys(p)) if (!SOURCE_PARAMS[type].includes(k)) throw parsingError(`[${type}] unknown field [${k}], parser not found`, locOfKey(p, k));
    if (p.script !== undefined) throw parsingError(`[${type}] source [${srcName}]: scripts are not supported by this server`, locOfKey(p, 'script'));
    if (typeof p.field !== 'string') throw parsingError(`Required one of fields [field, script], but none were specified. `, locOfKey(def, type));
    const order = p.order === undefined ? 'asc' : String(p.order).toLowerCase();
    if (order !== 'asc' && order !== 'desc') throw parsingError(`Unknown SortOrder [${String(p.order)}]`, locOfKey(p, 'order'));
    const s: CompositeSourceSpec = { name: srcName, type: type as CompositeSourceSpec['type'], field: p.field, asc: order === 'asc', missingBucket: p.missing_bucket === true || p.missing_bucket === 'true' };
    if (p.missing !== undefined) s.missing = p.missing;
    if (p.value_type !== undefined) s.valueType = String(p.value_type);
    if (p.format !== undefined) s.format = String(p.format);
    if (p.time_zone !== undefined) s.timeZone = String(p.time_zone);
    if (type === 'histogram') {
      const iv = Number(p.interval);
      if (!(iv > 0)) throw parsingError(`[interval] must be greater than 0 for [histogram] source`, locOfKey(def, type));
      s.interval = iv;
    }
    if (type === 'date_histogram') {
      s.interval = p.interval ?? p.calendar_interval ?? p.fixed_interval;
      if (s.interval === undefined || s.interval === 0 || s.interval === '0') throw parsingError(`Zero or negative time interval not supported`, locOfKey(def, type));
    }
    out.push(s);
  });
  return out;
}

/** ES 6.8 builds composite only at the top level: any parent (even `nested` or `filter`) is rejected. */
export function rejectNestedComposite(specs: AggSpec[], depth = 0): void {
  for (const s of specs) {
    if (s.type === 'composite' && depth > 0) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', '[composite] aggregation cannot be used with a parent aggregation');
    rejectNestedComposite(s.subs, depth + 1);
  }
}

/** Compares two keys source by source (each in its own order; null before every value). */
export function compareCompositeKeys(sources: { asc: boolean }[], a: CompositeKey, b: CompositeKey): number {
  for (let i = 0; i < sources.length; i++) {
    const x = a[i], y = b[i];
    let c: number;
    if (x === y) continue;
    if (x === null) c = -1;
    else if (y === null) c = 1;
    else if (typeof x === 'number' && typeof y === 'number') c = x - y;
    else c = cmpCodePoints(String(x), String(y));
    if (c !== 0) return sources[i].asc ? c : -c;
  }
  return 0;
}

/** Per source: its doc values plus the bucket rounding of histogram sources. */
interface BoundSource { spec: CompositeSourceSpec; src: ValuesSource; round: ((v: number) => number) | null; vals: (number | string)[]; keys: (number | string | null)[] }

function bindSource(s: CompositeSourceSpec, env: AggEnv): BoundSource {
  const src = valuesSource(s.field, env, s.missing, s.valueType);
  if (s.type !== 'terms' && src.kind === 'str') throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `Expected numeric type on field [${s.field}], but got [${src.type}]`);
  let round: ((v: number) => number) | null = null;
  if (s.type === 'histogram') { const iv = Number(s.interval); round = (v) => Math.floor(v / iv) * iv; }
  else if (s.type === 'date_histogram') round = dateRounding(String(s.interval), s.timeZone, undefined);
  return { spec: s, src, round, vals: [], keys: [] };
}

/** The `after` map as a key in doc-values terms (dates parsed with the source's format), with ES's checks. */
function afterKey(after: unknown, bound: BoundSource[], env: AggEnv): CompositeKey | null {
  if (after === undefined || after === null) return null;
  if (!isObj(after)) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `[after] must be an object`);
  if (Object.keys(after).length !== bound.length) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `[after] has ${Object.keys(after).length} value(s) but [sources] has ${bound.length}`);
  return bound.map(({ spec, src }) => {
    if (!(spec.name in after)) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `Missing value for [after.${spec.name}]`);
    const v = after[spec.name];
    if (v === null && spec.missingBucket) return null;
    if (v === null || typeof v === 'object') {
      throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `Invalid value for [after.${spec.name}], expected comparable, got [${v === null ? 'null' : Array.isArray(v) ? 'ArrayList' : 'HashMap'}]`);
    }
    if (src.kind === 'str') {
      if (typeof v !== 'string') throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `invalid value, expected string, got ${typeof v === 'number' ? (Number.isInteger(v) ? 'Integer' : 'Double') : 'Boolean'}`);
      return v;
    }
    if (typeof v === 'boolean') return v ? 1 : 0;
    if (src.type === 'boolean' && (v === 'true' || v === 'false')) return v === 'true' ? 1 : 0;
    if (src.type === 'date' && typeof v === 'string') return parseDateValue(env.ctx, v, spec.format ?? src.format, spec.timeZone, false);
    const n = Number(v);
    if (!Number.isFinite(n)) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `For input string: "${String(v)}"`);
    return n;
  });
}

export class CompositeCollector implements AggCollector {
  private readonly bound: BoundSource[];
  private readonly sources: CompositeSourceSpec[];
  private readonly buckets: BucketSet;
  private readonly keysOf = new Map<string, CompositeKey>();
  private readonly after: CompositeKey | null;
  private readonly size: number;
  private cutoff: CompositeKey | null = null;
  private readonly combo: CompositeKey;

  constructor(private readonly spec: AggSpec, env: AggEnv) {
    const sources = spec.params.sources as CompositeSourceSpec[];
    this.sources = sources;
    this.bound = sources.map((s) => bindSource(s, env));
    this.after = afterKey(spec.params.after, this.bound, env);
    this.size = spec.params.size === undefined ? 10 : Number(spec.params.size);
    this.buckets = new BucketSet(spec, env);
    this.combo = new Array(sources.length).fill(null);
  }

  /**
   * Fast path for the common paging request — one `terms` source on a keyword (or text fielddata) column, no
   * sub-aggregations: docs are counted per segment ordinal in a typed array, and keys are made once per distinct
   * term of the segment, not once per doc.
   */
  private ordCounts: Int32Array | null = null;
  private ordColumn: OrdinalDocValues | null = null;
  private missingCount = 0;

  setSegment(ord: number, seg: Segment): void {
    this.flushOrdCounts();
    for (const b of this.bound) b.src.setSegment(seg);
    this.buckets.setSegment(ord, seg);
    const col = this.bound.length === 1 && this.sources[0].type === 'terms' && this.spec.subs.length === 0 ? this.bound[0].src.ordinalColumn() : null;
    this.ordColumn = col;
    this.ordCounts = col ? new Int32Array(col.terms.size) : null;
  }

  private flushOrdCounts(): void {
    const counts = this.ordCounts, col = this.ordColumn;
    if (!counts || !col) return;
    this.ordCounts = null;
    this.ordColumn = null;
    for (let o = 0; o < counts.length; o++) {
      if (counts[o] === 0) continue;
      this.combo[0] = col.lookupOrd(o);
      this.addCount(counts[o]);
    }
    if (this.missingCount > 0) { this.combo[0] = null; this.addCount(this.missingCount); this.missingCount = 0; }
  }

  collect(doc: number, score: number): void {
    const counts = this.ordCounts;
    if (counts !== null) {
      const col = this.ordColumn!, ords = col.ords, s = col.start[doc], e = col.start[doc + 1];
      // Ords are sorted and distinct per doc, so each counts the doc once.
      for (let i = s; i < e; i++) counts[ords[i]]++;
      if (s === e && this.sources[0].missingBucket) this.missingCount++;
      return;
    }
    // Each source's distinct (rounded) values; values come sorted, so rounding keeps equal keys adjacent.
    for (const b of this.bound) {
      const n = b.src.values(doc, b.vals);
      b.keys.length = 0;
      for (let i = 0; i < n; i++) {
        const v = b.round ? b.round(b.vals[i] as number) : b.vals[i];
        if (b.keys.length === 0 || b.keys[b.keys.length - 1] !== v) b.keys.push(v);
      }
      if (b.keys.length === 0) {
        if (!b.spec.missingBucket) return;
        b.keys.push(null);
      }
    }
    this.walk(0, doc, score);
  }

  /** Visits every combination of the sources' values (a cartesian product, usually of one element). */
  private walk(i: number, doc: number, score: number): void {
    if (i === this.bound.length) { this.add(doc, score); return; }
    const keys = this.bound[i].keys;
    for (let j = 0; j < keys.length; j++) { this.combo[i] = keys[j]; this.walk(i + 1, doc, score); }
  }

  private add(doc: number, score: number): void {
    const id = this.keep();
    if (id === null) return;
    this.buckets.hit(this.buckets.bucket(id), doc, score);
    this.maybePrune();
  }

  /** Adds `n` docs to the current key's bucket (fast path: no sub-aggregations to feed). */
  private addCount(n: number): void {
    const id = this.keep();
    if (id === null) return;
    this.buckets.bucket(id).count += n;
    this.maybePrune();
  }

  /** The bucket id of the current key, or null when it is at or before `after` or past the cutoff. */
  private keep(): string | null {
    const key = this.combo, sources = this.sources;
    if (this.after !== null && compareCompositeKeys(sources, key, this.after) <= 0) return null;
    if (this.cutoff !== null && compareCompositeKeys(sources, key, this.cutoff) > 0) return null;
    const id = JSON.stringify(key);
    if (!this.keysOf.has(id)) this.keysOf.set(id, key.slice());
    return id;
  }

  private maybePrune(): void {
    if (this.keysOf.size > Math.max(2 * this.size, 64)) this.prune();
  }

  /** Keeps the `size` smallest keys and remembers the largest of them as the cutoff. */
  private prune(): void {
    const sources = this.sources;
    const ids = [...this.keysOf.keys()].sort((a, b) => compareCompositeKeys(sources, this.keysOf.get(a)!, this.keysOf.get(b)!));
    for (const id of ids.slice(this.size)) { this.keysOf.delete(id); this.buckets.map.delete(id); }
    this.cutoff = this.size > 0 ? this.keysOf.get(ids[this.size - 1])! : [];
  }

  partial(): AggPartial {
    this.flushOrdCounts();
    const sources = this.sources;
    const list = [...this.buckets.map.values()].sort((a, b) => compareCompositeKeys(sources, this.keysOf.get(a.key as string)!, this.keysOf.get(b.key as string)!)).slice(0, this.size);
    return {
      name: this.spec.name, type: 'composite',
      sources: this.bound.map((b) => ({ valueType: b.src.type, format: b.spec.format ?? b.src.format })),
      buckets: list.map((b) => ({ key: this.keysOf.get(b.key as string)!, docCount: b.count, subs: this.buckets.subPartials(b) })),
    };
  }
}

/** Coordinator side: merge the shards' pages by key, reorder, cut to `size`. */
export function reduceComposite(spec: AggSpec, parts: AggPartial[], reduceSubs: (subs: AggPartial[][]) => AggPartial[]): AggPartial {
  const sources = spec.params.sources as CompositeSourceSpec[];
  const size = spec.params.size === undefined ? 10 : Number(spec.params.size);
  const map = new Map<string, { key: CompositeKey; docCount: number; subs: AggPartial[][] }>();
  for (const p of parts) {
    for (const b of p.buckets) {
      const id = JSON.stringify(b.key);
      let m = map.get(id);
      if (!m) { m = { key: b.key, docCount: 0, subs: [] }; map.set(id, m); }
      m.docCount += b.docCount;
      m.subs.push(b.subs);
    }
  }
  const merged = [...map.values()].sort((a, b) => compareCompositeKeys(sources, a.key, b.key)).slice(0, size);
  return { ...parts[0], buckets: merged.map((m) => ({ key: m.key, docCount: m.docCount, subs: reduceSubs(m.subs) })) };
}
