/**
 * The search body (and its URL-parameter overrides) parsed into a `SearchRequest`: plain data that travels to
 * the shard workers. Unknown keys and bad values fail as ES's SearchSourceBuilder does.
 */
import { InvalidArgumentError, ParseError } from '../errors.ts';
import { locOf, locOfKey, parseJsonWithPos } from './json-pos.ts';
import { jsonStructureProblem } from '../codec/json-structure.ts';
import { parseQuery, parsingError, scriptOf } from './query-parser.ts';
import type { Query } from './query-ast.ts';
import type { SortSpec } from './sort.ts';
import { parseAggs, type AggSpec } from './aggs/agg-parser.ts';
import { parseHighlight, type HighlightSpec } from './highlight-spec.ts';
import { parseCollapse, type CollapseSpec } from './collapse.ts';
import { parseSuggest, type SuggestSpec } from './suggest.ts';
import { parseSlice, type SliceSpec } from './slice-query.ts';
import { DISTANCE_UNITS, parseGeoPoint } from '../indexing/geo-point.ts';

export interface SourceFilter { enabled: boolean; includes: string[]; excludes: string[] }

export interface SearchRequest {
  query: Query | null;
  postFilter: Query | null;
  from: number;
  size: number;
  sort: SortSpec[] | null;
  source: SourceFilter;
  /**
   * The request named `_source` itself (the body's key, or the `_source`, `_source_includes`, `_source_excludes`
   * parameters): with `stored_fields`, ES returns the source only then or when `_source` is one of them.
   */
  sourceRequested: boolean;
  storedFields: string[] | null;
  docvalueFields: string[];
  trackScores: boolean;
  trackTotalHits: boolean;
  minScore: number | null;
  terminateAfter: number;
  searchAfter: unknown[] | null;
  aggs: AggSpec[] | null;
  highlight: HighlightSpec | null;
  version: boolean;
  seqNoPrimaryTerm: boolean;
  explain: boolean;
  timeoutMs: number | null;
  /** `indices_boost`: index name or pattern → score multiplier. */
  indicesBoost: [string, number][];
  collapse: CollapseSpec | null;
  suggest: SuggestSpec | null;
  /** Sliced scroll: which of `max` slices this scroll reads. */
  slice: SliceSpec | null;
}

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

export function defaultRequest(): SearchRequest {
  return {
    query: null, postFilter: null, from: 0, size: 10, sort: null, source: { enabled: true, includes: [], excludes: [] }, sourceRequested: false, storedFields: null,
    docvalueFields: [], trackScores: false, trackTotalHits: true, minScore: null, terminateAfter: 0, searchAfter: null, aggs: null,
    highlight: null, version: false, seqNoPrimaryTerm: false, explain: false, timeoutMs: null, indicesBoost: [], collapse: null, suggest: null, slice: null,
  };
}

/**
 * Parses a JSON body text (empty → match_all defaults). Value locations only ever go into an error, so a body
 * is first parsed natively (after the checks JSON.parse does not make: duplicate keys, nesting depth); when
 * that path fails in any way, the body is parsed again with locations, which gives the error its line and
 * column (the position-tracking parser cost ~60 µs of a search's main-thread time for a two-term match).
 */
export function parseSearchBodyText(text: string): SearchRequest {
  if (jsonStructureProblem(text) === null) {
    let body: unknown;
    try { body = JSON.parse(text); } catch { body = undefined; }
    if (isObj(body)) {
      try { return parseSearchBody(body); } catch { /* again below, with locations */ }
    }
  }
  return parseSearchBodyTextWithLocations(text);
}

function parseSearchBodyTextWithLocations(text: string): SearchRequest {
  const body = text.trim() === '' ? {} : parseJsonWithPos(text);
  if (body === undefined) return defaultRequest();
  if (!isObj(body)) throw parsingError(`Expected [START_OBJECT] but found [${jsonTokenName(body)}]`);
  return parseSearchBody(body);
}

/** The name of the token a JSON value starts with (ES's XContentParser.Token, as its messages print it). */
export const jsonTokenName = (v: unknown): string => Array.isArray(v) ? 'START_ARRAY' : isObj(v) ? 'START_OBJECT' : typeof v === 'string' ? 'VALUE_STRING'
  : typeof v === 'number' ? 'VALUE_NUMBER' : typeof v === 'boolean' ? 'VALUE_BOOLEAN' : 'VALUE_NULL';

export function parseSearchBody(body: Obj): SearchRequest {
  const r = defaultRequest();
  for (const [k, v] of Object.entries(body)) {
    const loc = locOfKey(body, k);
    switch (k) {
      case 'query': r.query = parseQuery(body, k); break;
      case 'post_filter': r.postFilter = parseQuery(body, k, true); break;
      case 'from': r.from = int(v, k, loc); break;
      case 'size': r.size = int(v, k, loc); break;
      case 'sort': r.sort = parseSort(v); break;
      case '_source': r.source = parseSourceFilter(v); r.sourceRequested = true; break;
      case 'stored_fields': case 'fields': r.storedFields = [v].flat().map(String); break;
      case 'docvalue_fields': r.docvalueFields = [v].flat().map((x) => (isObj(x) ? String(x.field) : String(x))); break;
      case 'track_scores': r.trackScores = v === true; break;
      case 'track_total_hits': r.trackTotalHits = v !== false; break;
      // A float in ES, compared with float scores: a score printed in a reply and sent back as min_score keeps its hit.
      case 'min_score': r.minScore = Math.fround(Number(v)); break;
      case 'terminate_after': r.terminateAfter = int(v, k, loc); break;
      case 'search_after': r.searchAfter = [v].flat(); break;
      case 'aggs': case 'aggregations': r.aggs = parseAggs(body, k); break;
      case 'highlight': r.highlight = parseHighlight(v as Obj); break;
      case 'version': r.version = v === true; break;
      case 'seq_no_primary_term': r.seqNoPrimaryTerm = v === true; break;
      case 'explain': r.explain = v === true; break;
      case 'timeout': r.timeoutMs = parseTimeMs(v); break;
      case 'stats': break;
      case 'collapse': r.collapse = parseCollapse(v); break;
      case 'suggest': r.suggest = parseSuggest(v); break;
      case 'slice':
        if (!isObj(v)) throw parsingError('[slice] failed to parse object', loc);
        r.slice = parseSlice(v); break;
      case 'indices_boost':
        for (const e of [v].flat() as Obj[]) for (const [name, b] of Object.entries(e ?? {})) r.indicesBoost.push([name, Number(b)]);
        break;
      default:
        throw parsingError(`Unknown key for a ${jsonTokenName(v)} in [${k}].`, loc);
    }
  }
  return r;
}

function int(v: unknown, k: string, loc?: { line: number; col: number }): number {
  // A string is coerced the way Jackson's intValue does it (Double.parseDouble): a non-number is Java's
  // NumberFormatException, as ES answers `"size": "cat"`.
  if (typeof v === 'string' && (v.trim() === '' || !Number.isFinite(Number(v)))) {
    throw new InvalidArgumentError('SEARCH_NUMBER_FORMAT', v.trim() === '' ? 'empty String' : `For input string: "${v}"`);
  }
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isInteger(n)) throw parsingError(`[${k}] failed to parse field [${k}]`, loc);
  return n;
}

export function parseTimeMs(v: unknown): number | null {
  const m = /^(\d+)(nanos|micros|ms|s|m|h|d)?$/.exec(String(v));
  if (!m) return null;
  const mult: Record<string, number> = { nanos: 1e-6, micros: 1e-3, ms: 1, s: 1000, m: 60000, h: 3600000, d: 86400000 };
  return Number(m[1]) * mult[m[2] ?? 'ms'];
}

export function parseSort(v: unknown): SortSpec[] {
  const out: SortSpec[] = [];
  for (const item of [v].flat()) {
    if (typeof item === 'string') {
      out.push({ field: item, order: item === '_score' ? 'desc' : 'asc' });
      continue;
    }
    if (!isObj(item)) throw parsingError(`[sort] failed to parse sort`);
    for (const [field, spec] of Object.entries(item)) {
      if (field === '_script') { out.push(scriptSort(spec)); continue; }
      if (field === '_geo_distance') { out.push(geoDistanceSort(spec)); continue; }
      const def: 'asc' | 'desc' = field === '_score' ? 'desc' : 'asc';
      if (typeof spec === 'string') { out.push({ field, order: orderOf(spec, def) }); continue; }
      if (!isObj(spec)) throw parsingError(`[sort] failed to parse field [${field}]`);
      for (const k of Object.keys(spec)) {
        if (!['order', 'missing', 'mode', 'unmapped_type', 'nested_path', 'nested_filter', 'nested', 'numeric_type'].includes(k)) {
          throw parsingError(`[field_sort] unknown field [${k}], parser not found`, locOfKey(spec, k));
        }
      }
      out.push({ field, order: orderOf(spec.order, def), missing: spec.missing, mode: spec.mode as SortSpec['mode'], unmappedType: spec.unmapped_type as string | undefined });
    }
  }
  return out;
}

/** `{"_script": {"type": "number"|"string", "script": …, "order", "mode"}}` (ES's ScriptSortBuilder). */
function scriptSort(spec: unknown): SortSpec {
  if (!isObj(spec)) throw parsingError('[_script] failed to parse field [_script]');
  for (const k of Object.keys(spec)) {
    if (!['type', 'script', 'order', 'mode', 'nested_path', 'nested_filter', 'nested'].includes(k)) throw parsingError(`[_script] unknown field [${k}], parser not found`, locOfKey(spec, k));
  }
  if (spec.script === undefined || spec.type === undefined) throw parsingError('[_script] failed to parse object: required [script, type]', locOf(spec));
  const type = String(spec.type).toLowerCase();
  if (type !== 'number' && type !== 'string') throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `Unknown ScriptSortType [${String(spec.type)}]`);
  return { field: '_script', order: orderOf(spec.order, 'asc'), mode: spec.mode as SortSpec['mode'], script: scriptOf(spec.script, locOfKey(spec, 'script')), scriptType: type };
}

/** `{"_geo_distance": {"<field>": point(s), "order", "unit", "mode", "distance_type", "ignore_unmapped"}}`. */
function geoDistanceSort(spec: unknown): SortSpec {
  if (!isObj(spec)) throw parsingError('[_geo_distance] failed to parse field [_geo_distance]');
  const own = ['order', 'unit', 'mode', 'distance_type', 'ignore_unmapped', 'validation_method', 'nested_path', 'nested_filter', 'nested', 'coerce', 'ignore_malformed'];
  const fields = Object.keys(spec).filter((k) => !own.includes(k));
  if (fields.length !== 1) throw parsingError(fields.length ? `[_geo_distance] does not support multiple fields, found [${fields[0]}] and [${fields[1]}]` : '[_geo_distance] requires a field');
  const raw = spec[fields[0]];
  const pts = Array.isArray(raw) && raw.length > 0 && typeof raw[0] !== 'number' ? raw : [raw];
  const points = pts.map((p) => {
    const g = parseGeoPoint(p);
    if (!g || Number.isNaN(g.lat) || Number.isNaN(g.lon)) throw parsingError(`[_geo_distance] failed to parse point [${JSON.stringify(p)}]`);
    return g;
  });
  const unit = spec.unit === undefined ? 'm' : String(spec.unit);
  const unitMeters = DISTANCE_UNITS[unit];
  if (unitMeters === undefined) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `No distance unit match [${unit}]`);
  const type = String(spec.distance_type ?? 'arc').toLowerCase();
  if (type !== 'arc' && type !== 'plane') throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', `No geo distance for [${type}]`);
  const order = orderOf(spec.order, 'asc');
  return { field: fields[0], order, mode: spec.mode as SortSpec['mode'], geo: { points, unitMeters, plane: type === 'plane', ignoreUnmapped: spec.ignore_unmapped === true } };
}

function orderOf(v: unknown, def: 'asc' | 'desc'): 'asc' | 'desc' {
  if (v === undefined) return def;
  const s = String(v).toLowerCase();
  if (s !== 'asc' && s !== 'desc') throw new ParseError('SEARCH_PARSING', `Unknown SortOrder [${String(v)}]`, { line: 1, col: 1 });
  return s;
}

export function parseSourceFilter(v: unknown): SourceFilter {
  if (v === false || v === 'false') return { enabled: false, includes: [], excludes: [] };
  if (v === true || v === 'true' || v === undefined || v === null) return { enabled: true, includes: [], excludes: [] };
  if (typeof v === 'string') return { enabled: true, includes: [v], excludes: [] };
  if (Array.isArray(v)) return { enabled: true, includes: v.map(String), excludes: [] };
  if (isObj(v)) {
    const inc = v.includes ?? v.include ?? [];
    const exc = v.excludes ?? v.exclude ?? [];
    return { enabled: true, includes: [inc].flat().map(String), excludes: [exc].flat().map(String) };
  }
  throw parsingError('[_source] failed to parse');
}
