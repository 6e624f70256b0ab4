/**
 * `aggs` / `aggregations` → `AggSpec` trees. Each spec keeps its raw parameters (validated here) and its
 * sub-aggregations; the same spec drives the shard collectors and the coordinator's reduce.
 */
import { locOfKey } from '../json-pos.ts';
import { parseQuery, parsingError } from '../query-parser.ts';
import type { Query } from '../query-ast.ts';
import { parseCompositeSources } from './composite.ts';
import { parseBucketSort, PIPELINE_TYPES } from './bucket-sort.ts';

export const METRIC_TYPES = ['avg', 'sum', 'min', 'max', 'stats', 'extended_stats', 'value_count', 'cardinality', 'percentiles', 'top_hits'];
export const BUCKET_TYPES = ['terms', 'histogram', 'date_histogram', 'range', 'date_range', 'geo_distance', 'geohash_grid', 'filter', 'filters', 'missing', 'nested', 'reverse_nested', 'global', 'composite'];

export interface AggSpec {
  name: string;
  type: string;
  params: Record<string, any>;
  /** Parsed filter queries (filter: one, filters: keyed or anonymous list). */
  filter?: Query;
  filters?: { key: string; query: Query }[];
  filtersKeyed?: boolean;
  /** top_hits inner request parts. */
  subs: AggSpec[];
  /** Pipeline aggregations declared beside `subs` (they rewrite this aggregation's buckets; no partials). */
  pipelines?: AggSpec[];
  meta?: unknown;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The top-level `aggs`: a pipeline there has no buckets to work on. */
export function parseAggs(parent: Obj, key: string): AggSpec[] {
  const { aggs, pipelines } = parseAggLevel(parent, key);
  if (pipelines.length) throw parsingError(`[${pipelines[0].type}] aggregation [${pipelines[0].name}] must be declared inside of another aggregation`, locOfKey(parent[key] as Obj, pipelines[0].name));
  return aggs;
}

/** One `aggs` object: its aggregations and, apart, its pipeline aggregations. */
function parseAggLevel(parent: Obj, key: string): { aggs: AggSpec[]; pipelines: AggSpec[] } {
  const aggs = parent[key];
  if (!isObj(aggs)) throw parsingError(`Expected [START_OBJECT] under [${key}], but got a [${typeof aggs}] in [${key}]`, locOfKey(parent, key));
  const out: AggSpec[] = [];
  const pipes: AggSpec[] = [];
  for (const [name, def] of Object.entries(aggs)) {
    const loc = locOfKey(aggs, name);
    if (!/^[^\[\]>]+$/.test(name)) throw parsingError(`Invalid aggregation name [${name}]. Aggregation names can contain any character except '[', ']', and '>'`, loc);
    if (!isObj(def)) throw parsingError(`Expected [START_OBJECT] under [${name}], but got a [VALUE_STRING] in [${name}]`, loc);
    let spec: AggSpec | null = null;
    let subs: AggSpec[] = [];
    let pipelines: AggSpec[] = [];
    let meta: unknown;
    for (const [k, v] of Object.entries(def)) {
      if (k === 'aggs' || k === 'aggregations') { ({ aggs: subs, pipelines } = parseAggLevel(def, k)); continue; }
      if (k === 'meta') { meta = v; continue; }
      if (spec) throw parsingError(`Found two aggregation type definitions in [${name}]: [${spec.type}] and [${k}]`, locOfKey(def, k));
      if (PIPELINE_TYPES.includes(k)) { spec = parseBucketSort(name, v, def); continue; }
      if (!METRIC_TYPES.includes(k) && !BUCKET_TYPES.includes(k)) throw parsingError(`Unknown aggregation type [${k}]`, locOfKey(def, k));
      spec = parseOne(name, k, v, def);
    }
    if (!spec) throw parsingError(`Missing definition for aggregation [${name}]`, loc);
    if (PIPELINE_TYPES.includes(spec.type)) {
      if (subs.length || pipelines.length) throw parsingError(`Aggregation [${name}] cannot define sub-aggregations`, loc);
      if (meta !== undefined) spec.meta = meta;
      pipes.push(spec);
      continue;
    }
    if ((subs.length || pipelines.length) && METRIC_TYPES.includes(spec.type)) {
      throw parsingError(`Aggregator [${name}] of type [${spec.type}] cannot accept sub-aggregations`, loc);
    }
    spec.subs = subs;
    if (pipelines.length) spec.pipelines = pipelines;
    if (meta !== undefined) spec.meta = meta;
    out.push(spec);
  }
  return { aggs: out, pipelines: pipes };
}

function parseOne(name: string, type: string, v: unknown, holder: Obj): AggSpec {
  const spec: AggSpec = { name, type, params: isObj(v) ? v : {}, subs: [] };
  if (type === 'filter') { spec.filter = parseQuery(holder, 'filter', true); spec.params = {}; return spec; }
  if (!isObj(v)) throw parsingError(`[${type}] aggregation [${name}] must be an object`, locOfKey(holder, type));
  if (type === 'filters') {
    const f = v.filters;
    if (Array.isArray(f)) { spec.filters = f.map((_, i) => ({ key: String(i), query: parseQuery(f, String(i), true) })); spec.filtersKeyed = false; }
    else if (isObj(f)) { spec.filters = Object.keys(f).map((k) => ({ key: k, query: parseQuery(f, k, true) })); spec.filtersKeyed = true; }
    else throw parsingError(`[filters] aggregation [${name}] requires [filters]`, locOfKey(holder, type));
    return spec;
  }
  if (type === 'composite') {
    for (const k of Object.keys(v)) if (!['sources', 'size', 'after'].includes(k)) throw parsingError(`[composite] unknown field [${k}], parser not found`, locOfKey(v, k));
    if (v.size !== undefined && !Number.isInteger(Number(v.size))) throw parsingError(`[composite] failed to parse field [size]`, locOfKey(v, 'size'));
    if (v.after !== undefined && !isObj(v.after)) throw parsingError(`[composite] after doesn't support values of type: ${Array.isArray(v.after) ? 'START_ARRAY' : 'VALUE_STRING'}`, locOfKey(v, 'after'));
    spec.params = { ...v, sources: parseCompositeSources(name, v) };
    return spec;
  }
  if (v.script !== undefined) throw parsingError(`[${type}] aggregation [${name}]: scripts are not supported by this server`, locOfKey(v, 'script'));
  if (['avg', 'sum', 'min', 'max', 'stats', 'extended_stats', 'value_count', 'cardinality', 'percentiles', 'terms', 'histogram', 'date_histogram', 'range', 'date_range', 'geo_distance', 'geohash_grid', 'missing'].includes(type)) {
    if (v.field === undefined && v.script === undefined && !(type === 'terms' && v.script)) {
      throw parsingError(`Required one of fields [field, script], but none were specified. `, locOfKey(holder, type));
    }
  }
  // SubAggCollectionMode.parse: anything but its two names fails the field.
  if (type === 'terms' && v.collect_mode !== undefined && v.collect_mode !== 'depth_first' && v.collect_mode !== 'breadth_first') {
    throw parsingError('[terms] failed to parse field [collect_mode]', locOfKey(v, 'collect_mode'));
  }
  if (type === 'histogram' && v.interval === undefined) throw parsingError(`[interval] must be specified for histogram aggregation [${name}]`, locOfKey(holder, type));
  if (type === 'date_histogram' && v.interval === undefined && v.calendar_interval === undefined && v.fixed_interval === undefined) {
    throw parsingError(`[interval] must be specified for date_histogram aggregation [${name}]`, locOfKey(holder, type));
  }
  if ((type === 'range' || type === 'date_range' || type === 'geo_distance') && !Array.isArray(v.ranges)) throw parsingError(`No [ranges] specified for the [${name}] aggregation`, locOfKey(holder, type));
  if (type === 'nested' && typeof v.path !== 'string') throw parsingError(`Missing [path] field for nested aggregation [${name}]`, locOfKey(holder, type));
  return spec;
}
