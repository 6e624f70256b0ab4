/**
 * Shard-side aggregation collectors. Each collector sees the docs of every segment in order
 * (`setSegment`, then `collect(doc, score)`) and finally yields a mergeable partial (plain data) that the
 * coordinator reduces. Metric partials keep sums (Kahan-compensated, as ES 6), counts, extremes, distinct
 * values (cardinality) or all values (percentiles).
 */
import type { NumericDocValues, OrdinalDocValues, Segment } from '../../postings/segment.ts';
import type { CompileContext } from '../weight.ts';
import type { AggSpec } from './agg-parser.ts';
import { InvalidArgumentError } from '../../errors.ts';
import { fielddataError } from '../sort.ts';
import { NUMERIC_TYPES } from '../../indexing/field-infos.ts';
import { createBucketCollector } from './bucket-collectors.ts';
import { DEFAULT_DATE_FORMAT, parseDate } from '../../analysis/date-format.ts';
import { TopHitsCollector } from './top-hits.ts';
import { stringColumn } from '../fielddata.ts';
import { rejectNestedComposite } from './composite.ts';
import { validatePipelines } from './bucket-sort.ts';
import { BucketBudget } from './bucket-budget.ts';

export type AggPartial = { name: string; type: string; [k: string]: any };

export interface AggCollector {
  setSegment(ord: number, seg: Segment): void;
  collect(doc: number, score: number): void;
  /**
   * Optional: collects `docs[0..n)` (ascending, of the current segment) with their scores, as `n` calls of
   * `collect` would. Collectors that read a column per doc implement it as a tight loop: a hit's column
   * value is a random memory access (~150 ns), and only a loop with nothing else in it lets the processor
   * have many of them in flight at once.
   */
  collectBlock?(docs: Uint32Array, scores: Float64Array, n: number): void;
  partial(): AggPartial;
}

/**
 * What every collector of one shard search shares. `subBuckets` counts the buckets whose sub-collectors have been
 * built (bucket-collectors.ts `BucketSet`): against `search.max_buckets`, as 6.8's request circuit breaker would
 * stop a shard building them without bound.
 */
export interface AggEnv { ctx: CompileContext; shardCount: number; subBuckets: BucketBudget }

/** The collectors of one aggregation level. */
export class AggCollectors {
  constructor(readonly list: AggCollector[]) {}
  setSegment(ord: number, seg: Segment): void { for (const c of this.list) c.setSegment(ord, seg); }
  collect(doc: number, score: number): void { for (let i = 0; i < this.list.length; i++) this.list[i].collect(doc, score); }
  /** `n` docs of the current segment at once (AggCollector.collectBlock), each collector in turn. */
  collectBlock(docs: Uint32Array, scores: Float64Array, n: number): void {
    for (let c = 0; c < this.list.length; c++) {
      const x = this.list[c];
      if (x.collectBlock !== undefined) x.collectBlock(docs, scores, n);
      else for (let i = 0; i < n; i++) x.collect(docs[i], scores[i]);
    }
  }
  partials(): AggPartial[] { return this.list.map((c) => c.partial()); }
}

/** @param maxBuckets `search.max_buckets` (-1: unset). */
export function createAggCollectors(specs: AggSpec[], ctx: CompileContext, shardCount: number, maxBuckets: number): AggCollectors {
  rejectNestedComposite(specs);
  validatePipelines(specs);
  const env: AggEnv = { ctx, shardCount, subBuckets: new BucketBudget(maxBuckets) };
  return new AggCollectors(specs.map((s) => createCollector(s, env)));
}

export function createCollector(spec: AggSpec, env: AggEnv): AggCollector {
  switch (spec.type) {
    case 'avg': case 'sum': case 'min': case 'max': case 'stats': case 'extended_stats':
      return new StatsCollector(spec, numericSource(spec, env));
    case 'value_count': return new ValueCountCollector(spec, anySource(spec, env));
    case 'cardinality': return new CardinalityCollector(spec, anySource(spec, env));
    case 'percentiles': return new PercentilesCollector(spec, numericSource(spec, env));
    case 'top_hits': return new TopHitsCollector(spec, env);
    default: return createBucketCollector(spec, env);
  }
}

/** Per-doc values of a field from doc values: numbers (numeric/date/boolean) or strings (keyword). */
export interface ValuesSource {
  kind: 'num' | 'str' | 'none';
  type: string;
  format?: string;
  setSegment(seg: Segment): void;
  /** Appends the doc's values to `out` (cleared first); returns the count. */
  values(doc: number, out: (number | string)[]): number;
  /**
   * The current segment's column when values come straight from it (no `missing` substitution), for collectors
   * with a fast path over the typed arrays; null otherwise.
   */
  numericColumn(): NumericDocValues | null;
  ordinalColumn(): OrdinalDocValues | null;
}

const VALUE_TYPES: Record<string, string> = { string: 'keyword', boolean: 'boolean', date: 'date', long: 'long', double: 'double', numeric: 'double', number: 'double' };

/** The missing value as the doc-values representation of `type` (dates parsed, booleans 1/0). */
function missingAs(type: string, missing: unknown, format: string | undefined): number | string {
  if (type === 'keyword') return String(missing);
  if (type === 'date') return parseDate(missing, format ?? DEFAULT_DATE_FORMAT);
  if (type === 'boolean') return missing === true || missing === 'true' ? 1 : 0;
  return Number(missing);
}

export function valuesSource(field: string, env: AggEnv, missing?: unknown, valueType?: string): ValuesSource {
  const fi = env.ctx.field(field);
  if (fi?.type === 'text' && !fi.fielddata) throw fielddataError(field);
  // Unmapped fields take their type from `value_type` (so `missing` values bucket like real ones).
  const type = fi?.type ?? (valueType ? VALUE_TYPES[valueType] ?? 'unmapped' : 'unmapped');
  // A text field reaching here has fielddata enabled: its uninverted terms act as keyword values.
  const text = type === 'text';
  const kind = type === 'keyword' || text ? 'str' : NUMERIC_TYPES.has(type) || type === 'date' || type === 'boolean' ? 'num' : 'none';
  const miss = missing === undefined || missing === null ? null : missingAs(kind === 'str' ? 'keyword' : type, missing, fi?.format);
  // The segment's column, resolved once per segment (not per doc).
  let num: NumericDocValues | null = null, ord: OrdinalDocValues | null = null;
  return {
    kind, type, format: fi?.format,
    setSegment(s: Segment): void {
      num = fi && kind === 'num' ? s.numeric(field) : null;
      ord = fi && kind === 'str' ? stringColumn(s, field, text) : null;
    },
    numericColumn: () => (miss === null ? num : null),
    ordinalColumn: () => (miss === null ? ord : null),
    values(doc: number, out: (number | string)[]): number {
      out.length = 0;
      if (num) for (let i = num.start[doc]; i < num.start[doc + 1]; i++) out.push(num.values[i]);
      else if (ord) for (let i = ord.start[doc]; i < ord.start[doc + 1]; i++) out.push(ord.lookupOrd(ord.ords[i]));
      if (out.length === 0 && miss !== null) out.push(miss);
      return out.length;
    },
  };
}

function numericSource(spec: AggSpec, env: AggEnv): ValuesSource {
  const field = String(spec.params.field);
  const src = valuesSource(field, env, spec.params.missing, spec.params.value_type);
  if (src.kind === 'str') throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `Expected numeric type on field [${field}], but got [${src.type}]`);
  return src;
}

function anySource(spec: AggSpec, env: AggEnv): ValuesSource {
  return valuesSource(String(spec.params.field), env, spec.params.missing, spec.params.value_type);
}


class StatsCollector implements AggCollector {
  private readonly vals: (number | string)[] = [];
  private count = 0; private sum = 0; private comp = 0; private min = Infinity; private max = -Infinity; private sumSq = 0; private compSq = 0;
  constructor(private readonly spec: AggSpec, private readonly src: ValuesSource) {}
  setSegment(_o: number, seg: Segment): void { this.src.setSegment(seg); }
  collect(doc: number): void {
    const col = this.src.numericColumn();
    if (col !== null) {
      // Fast path: straight from the column's typed arrays.
      if (col.dense) { this.add(col.values[doc]); return; }
      for (let i = col.start[doc], e = col.start[doc + 1]; i < e; i++) this.add(col.values[i]);
      return;
    }
    const n = this.src.values(doc, this.vals);
    for (let i = 0; i < n; i++) this.add(this.vals[i] as number);
  }
  collectBlock(docs: Uint32Array, _scores: Float64Array, n: number): void {
    const col = this.src.numericColumn();
    if (col === null || !col.dense) { for (let i = 0; i < n; i++) this.collect(docs[i]); return; }
    const values = col.values;
    for (let i = 0; i < n; i++) this.add(values[docs[i]]);
  }
  private add(v: number): void {
    this.count++;
    // Kahan summation, as ES 6's sum/avg/stats aggregators.
    const y = v - this.comp, t = this.sum + y; this.comp = (t - this.sum) - y; this.sum = t;
    const y2 = v * v - this.compSq, t2 = this.sumSq + y2; this.compSq = (t2 - this.sumSq) - y2; this.sumSq = t2;
    if (v < this.min) this.min = v;
    if (v > this.max) this.max = v;
  }
  partial(): AggPartial {
    return { name: this.spec.name, type: this.spec.type, count: this.count, sum: this.sum, min: this.min, max: this.max, sumSq: this.sumSq,
      valueType: this.src.type, format: this.spec.params.format ?? this.src.format };
  }
}

class ValueCountCollector implements AggCollector {
  private readonly vals: (number | string)[] = [];
  private count = 0;
  constructor(private readonly spec: AggSpec, private readonly src: ValuesSource) {}
  setSegment(_o: number, seg: Segment): void { this.src.setSegment(seg); }
  collect(doc: number): void { this.count += this.src.values(doc, this.vals); }
  partial(): AggPartial { return { name: this.spec.name, type: 'value_count', count: this.count }; }
}

class CardinalityCollector implements AggCollector {
  private readonly vals: (number | string)[] = [];
  private readonly seen = new Set<number | string>();
  constructor(private readonly spec: AggSpec, private readonly src: ValuesSource) {}
  setSegment(_o: number, seg: Segment): void { this.src.setSegment(seg); }
  collect(doc: number): void {
    const n = this.src.values(doc, this.vals);
    for (let i = 0; i < n; i++) this.seen.add(this.vals[i]);
  }
  partial(): AggPartial { return { name: this.spec.name, type: 'cardinality', values: [...this.seen] }; }
}

class PercentilesCollector implements AggCollector {
  private readonly vals: (number | string)[] = [];
  private readonly all: number[] = [];
  constructor(private readonly spec: AggSpec, private readonly src: ValuesSource) {}
  setSegment(_o: number, seg: Segment): void { this.src.setSegment(seg); }
  collect(doc: number): void {
    const n = this.src.values(doc, this.vals);
    for (let i = 0; i < n; i++) this.all.push(this.vals[i] as number);
  }
  partial(): AggPartial {
    return { name: this.spec.name, type: 'percentiles', values: this.all, valueType: this.src.type, format: this.spec.params.format ?? this.src.format };
  }
}
