/**
 * Query DSL (ES 6.8) → `Query`. Validates keys as ES's `fromXContent` methods do and throws
 * `SEARCH_PARSING` errors with the `line`/`col` of the offending value (Jackson token locations).
 */
import { ParseError } from '../errors.ts';
import { locOf, locOfKey, type Loc } from './json-pos.ts';
import type { BoolQuery, FunctionScoreQuery, Query, ScoreFunction } from './query-ast.ts';
import type { ScriptSpec } from '../documents/painless.ts';
import { parseScriptSpec } from '../documents/update.ts';
import { parseGeoBox, parseGeoDistance } from './geo-queries.ts';

type Obj = Record<string, unknown>;

export function parsingError(reason: string, loc?: Loc): ParseError {
  return new ParseError('SEARCH_PARSING', reason, { line: loc?.line ?? 1, col: loc?.col ?? 1 });
}

const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

function num(v: unknown, what: string, loc?: Loc): number {
  const n = typeof v === 'string' ? Number(v) : v;
  if (typeof n !== 'number' || Number.isNaN(n)) throw parsingError(`[${what}] failed to parse value [${String(v)}]`, loc);
  return n;
}

function scalarString(v: unknown): string {
  return typeof v === 'string' ? v : String(v);
}

/** Parses a query object `{"<type>": {...}}` found under `parent[key]`. */
export function parseQuery(parent: object, key: string, filterCtx = false): Query {
  const q = (parent as Obj)[key];
  const loc = locOfKey(parent, key);
  if (!isObj(q)) throw parsingError('[_na] query malformed, must start with start_object', loc);
  const keys = Object.keys(q);
  if (keys.length === 0) return { type: 'match_all', boost: 1 };
  if (keys.length > 1) {
    throw parsingError(`[${keys[0]}] malformed query, expected [END_OBJECT] but found [FIELD_NAME]`, locOfKey(q, keys[1]));
  }
  const type = keys[0];
  const body = q[type];
  const bloc = locOfKey(q, type);
  const parser = PARSERS[type];
  if (!parser) throw parsingError(`no [query] registered for [${type}]`, bloc);
  if (!isObj(body) && type !== 'match_all') throw parsingError(`[${type}] query malformed, no start_object after query name`, bloc);
  return parser((body ?? {}) as Obj, q, filterCtx);
}

const SCRIPT_KEYS = ['source', 'inline', 'id', 'lang', 'params', 'options'];

/** A `script` value (string or object) as ES's `Script.parse` reads it; painless only. */
export function scriptOf(v: unknown, loc?: Loc): ScriptSpec {
  if (isObj(v)) {
    for (const k of Object.keys(v)) if (!SCRIPT_KEYS.includes(k)) throw parsingError(`[script] unknown field [${k}], parser not found`, locOfKey(v, k));
  } else if (typeof v !== 'string') {
    throw parsingError('[script] failed to parse object', loc);
  }
  return parseScriptSpec(v);
}

type Parser = (b: Obj, holder: Obj, filterCtx: boolean) => Query;

function common(b: Obj, k: string): boolean { return k === 'boost' || k === '_name'; }
function boostOf(b: Obj): number { return b.boost === undefined ? 1 : num(b.boost, 'boost', locOfKey(b, 'boost')); }
function nameOf(b: Obj): string | undefined { return typeof b._name === 'string' ? b._name : undefined; }

/** `{"field": value}` or `{"field": {"<valueKey>": value, ...}}` — the single-field shape of term-level queries. */
function singleField(type: string, b: Obj, valueKey: string, allowed: string[]): { field: string; opts: Obj; value: unknown } {
  const fields = Object.keys(b).filter((k) => !common(b, k));
  if (fields.length > 1) throw parsingError(`[${type}] query doesn't support multiple fields, found [${fields[0]}] and [${fields[1]}]`, locOfKey(b, fields[1]));
  if (fields.length === 0) throw parsingError(`[${type}] query requires a field`, locOf(b));
  const field = fields[0];
  const v = b[field];
  if (!isObj(v)) return { field, opts: b, value: v };
  for (const k of Object.keys(v)) {
    if (k !== valueKey && !allowed.includes(k) && !common(v, k)) throw parsingError(`[${type}] query does not support [${k}]`, locOfKey(v, k));
  }
  return { field, opts: v, value: v[valueKey] };
}

const matchKeys = ['query', 'operator', 'minimum_should_match', 'analyzer', 'fuzziness', 'prefix_length', 'max_expansions',
  'fuzzy_transpositions', 'lenient', 'zero_terms_query', 'cutoff_frequency', 'auto_generate_synonyms_phrase_query', 'fuzzy_rewrite', 'slop'];

function opt<T>(v: unknown, d: T): T { return v === undefined ? d : (v as T); }

const PARSERS: Record<string, Parser> = {
  match_all: (b) => ({ type: 'match_all', boost: boostOf(b), name: nameOf(b) }),
  match_none: (b) => ({ type: 'match_none', boost: boostOf(b), name: nameOf(b) }),
  term: (b) => {
    const { field, opts, value } = singleField('term', b, 'value', []);
    if (value === undefined || isObj(value) || Array.isArray(value)) throw parsingError('[term] query does not support array of values', locOfKey(b, field));
    return { type: 'term', field, value: value as string, boost: boostOf(opts), name: nameOf(opts) };
  },
  terms: (b) => {
    const fields = Object.keys(b).filter((k) => !common(b, k));
    if (fields.length !== 1) throw parsingError(`[terms] query does not support multiple fields`, locOf(b));
    const v = b[fields[0]];
    if (!Array.isArray(v)) throw parsingError(`[terms] query does not support [${fields[0]}]`, locOfKey(b, fields[0]));
    return { type: 'terms', field: fields[0], values: v as string[], boost: boostOf(b), name: nameOf(b) };
  },
  match: (b) => {
    const { field, opts, value } = singleField('match', b, 'query', matchKeys);
    return {
      type: 'match', field, query: value as string, operator: String(opts.operator ?? 'or').toLowerCase() as 'or',
      msm: opts.minimum_should_match === undefined ? undefined : String(opts.minimum_should_match),
      analyzer: opts.analyzer as string | undefined, fuzziness: opts.fuzziness === undefined ? undefined : String(opts.fuzziness),
      prefixLength: opt(opts.prefix_length, 0), maxExpansions: opt(opts.max_expansions, 50),
      transpositions: opt(opts.fuzzy_transpositions, true), zeroTerms: String(opts.zero_terms_query ?? 'none').toLowerCase() as 'none',
      lenient: opt(opts.lenient, false), boost: opts === b ? 1 : boostOf(opts), name: opts === b ? undefined : nameOf(opts),
    };
  },
  match_phrase: (b) => phrase('match_phrase', b, false),
  match_phrase_prefix: (b) => phrase('match_phrase_prefix', b, true),
  multi_match: parseMultiMatch,
  query_string: (b) => parseQueryString(b, false),
  simple_query_string: (b) => parseQueryString(b, true),
  range: (b) => {
    const { field, opts } = singleField('range', b, 'gte', ['gt', 'lt', 'lte', 'from', 'to', 'include_lower', 'include_upper', 'format', 'time_zone', 'relation']);
    const r: Query = { type: 'range', field, boost: boostOf(opts), name: nameOf(opts), format: opts.format as string | undefined, timeZone: opts.time_zone as string | undefined };
    if (opts.from !== undefined && opts.from !== null) { if (opts.include_lower === false) r.gt = opts.from; else r.gte = opts.from; }
    if (opts.to !== undefined && opts.to !== null) { if (opts.include_upper === false) r.lt = opts.to; else r.lte = opts.to; }
    for (const k of ['gt', 'gte', 'lt', 'lte'] as const) if (opts[k] !== undefined && opts[k] !== null) r[k] = opts[k];
    return r;
  },
  geo_distance: (b) => parseGeoDistance(b),
  geo_bounding_box: (b) => parseGeoBox(b),
  script: (b) => {
    for (const k of Object.keys(b)) if (k !== 'script' && !common(b, k)) throw parsingError(`[script] query does not support [${k}]`, locOfKey(b, k));
    if (b.script === undefined) throw parsingError('script must be provided with a [script] query', locOf(b));
    return { type: 'script', script: scriptOf(b.script, locOfKey(b, 'script')), boost: boostOf(b), name: nameOf(b) };
  },
  exists: (b) => {
    for (const k of Object.keys(b)) if (k !== 'field' && !common(b, k)) throw parsingError(`[exists] query does not support [${k}]`, locOfKey(b, k));
    if (typeof b.field !== 'string') throw parsingError('[exists] must be provided with a [field]', locOf(b));
    return { type: 'exists', field: b.field, boost: boostOf(b), name: nameOf(b) };
  },
  prefix: (b) => termLevel('prefix', b, ['rewrite']),
  wildcard: (b) => termLevel('wildcard', b, ['rewrite', 'wildcard']),
  regexp: (b) => termLevel('regexp', b, ['rewrite', 'flags', 'max_determinized_states', 'flags_value']),
  fuzzy: (b) => {
    const { field, opts, value } = singleField('fuzzy', b, 'value', ['fuzziness', 'prefix_length', 'max_expansions', 'transpositions', 'rewrite']);
    return { type: 'fuzzy', field, value: scalarString(value), fuzziness: String(opts.fuzziness ?? 'AUTO'), prefixLength: opt(opts.prefix_length, 0),
      maxExpansions: opt(opts.max_expansions, 50), transpositions: opt(opts.transpositions, false), boost: boostOf(opts), name: nameOf(opts) };
  },
  ids: (b) => {
    for (const k of Object.keys(b)) if (k !== 'values' && k !== 'type' && !common(b, k)) throw parsingError(`[ids] query does not support [${k}]`, locOfKey(b, k));
    return { type: 'ids', values: ((b.values ?? []) as unknown[]).map(String), boost: boostOf(b), name: nameOf(b) };
  },
  bool: parseBool,
  boosting: (b) => {
    for (const k of Object.keys(b)) if (!['positive', 'negative', 'negative_boost'].includes(k) && !common(b, k)) throw parsingError(`[boosting] query does not support [${k}]`, locOfKey(b, k));
    if (!b.positive) throw parsingError('[boosting] query requires \'positive\' query to be set\'', locOf(b));
    if (!b.negative) throw parsingError('[boosting] query requires \'negative\' query to be set\'', locOf(b));
    if (b.negative_boost === undefined) throw parsingError('[boosting] query requires \'negative_boost\' to be set to be a positive value\'', locOf(b));
    return { type: 'boosting', positive: parseQuery(b, 'positive'), negative: parseQuery(b, 'negative', true), negativeBoost: num(b.negative_boost, 'negative_boost'), boost: boostOf(b), name: nameOf(b) };
  },
  constant_score: (b) => {
    for (const k of Object.keys(b)) if (k !== 'filter' && !common(b, k)) throw parsingError(`[constant_score] query does not support [${k}]`, locOfKey(b, k));
    if (!b.filter) throw parsingError('[constant_score] requires a \'filter\' element', locOf(b));
    return { type: 'constant_score', filter: parseQuery(b, 'filter', true), boost: boostOf(b), name: nameOf(b) };
  },
  dis_max: (b) => {
    for (const k of Object.keys(b)) if (k !== 'queries' && k !== 'tie_breaker' && !common(b, k)) throw parsingError(`[dis_max] query does not support [${k}]`, locOfKey(b, k));
    if (!Array.isArray(b.queries)) throw parsingError('[dis_max] requires \'queries\' field with at least one clause', locOf(b));
    return { type: 'dis_max', queries: b.queries.map((_, i) => parseQuery(b.queries as object, String(i))), tieBreaker: num(b.tie_breaker ?? 0, 'tie_breaker'), boost: boostOf(b), name: nameOf(b) };
  },
  nested: (b) => {
    for (const k of Object.keys(b)) if (!['path', 'query', 'score_mode', 'ignore_unmapped', 'inner_hits'].includes(k) && !common(b, k)) throw parsingError(`[nested] query does not support [${k}]`, locOfKey(b, k));
    if (typeof b.path !== 'string') throw parsingError('[nested] requires \'path\' field', locOf(b));
    if (!b.query) throw parsingError('[nested] requires \'query\' field', locOf(b));
    const sm = String(b.score_mode ?? 'avg');
    if (!['avg', 'max', 'min', 'sum', 'none'].includes(sm)) throw parsingError(`illegal score_mode for nested query [${sm}]`, locOfKey(b, 'score_mode'));
    const innerHits = isObj(b.inner_hits) ? parseInnerHits(b.inner_hits, b.path) : undefined;
    return { type: 'nested', path: b.path, query: parseQuery(b, 'query'), scoreMode: sm as 'avg', ignoreUnmapped: b.ignore_unmapped === true, boost: boostOf(b), name: nameOf(b), source: b, innerHits };
  },
  function_score: parseFunctionScore,
};

function parseInnerHits(ih: Obj, path: string): import('./query-ast.ts').InnerHitsSpec {
  for (const k of Object.keys(ih)) {
    if (!['name', 'from', 'size', '_source'].includes(k)) throw parsingError(`[inner_hits] unknown field [${k}], parser not found`, locOfKey(ih, k));
  }
  const src = ih._source;
  return {
    name: typeof ih.name === 'string' ? ih.name : path, from: Number(ih.from ?? 0), size: Number(ih.size ?? 3),
    sourceEnabled: src !== false, sourceIncludes: src === undefined || typeof src === 'boolean' ? null : [src].flat().map(String),
  };
}

function termLevel(type: 'prefix' | 'wildcard' | 'regexp', b: Obj, extra: string[]): Query {
  const { field, opts, value } = singleField(type, b, 'value', extra);
  const v = value ?? (type === 'wildcard' ? opts.wildcard : undefined);
  return { type, field, value: scalarString(v), boost: boostOf(opts), name: nameOf(opts) };
}

function phrase(type: 'match_phrase' | 'match_phrase_prefix', b: Obj, prefix: boolean): Query {
  const allowed = prefix ? ['query', 'analyzer', 'slop', 'max_expansions'] : ['query', 'analyzer', 'slop'];
  const { field, opts, value } = singleField(type, b, 'query', allowed);
  return { type: 'match_phrase', field, query: scalarString(value), analyzer: opts.analyzer as string | undefined, slop: opt(opts.slop, 0),
    boost: opts === b ? 1 : boostOf(opts), name: opts === b ? undefined : nameOf(opts), prefix, maxExpansions: opt(opts.max_expansions, 50) };
}

function parseMultiMatch(b: Obj): Query {
  const allowed = ['query', 'fields', 'type', 'tie_breaker', 'operator', 'minimum_should_match', 'analyzer', 'fuzziness', 'slop', 'lenient',
    'zero_terms_query', 'prefix_length', 'max_expansions', 'cutoff_frequency', 'auto_generate_synonyms_phrase_query', 'fuzzy_transpositions', 'use_dis_max', 'rewrite'];
  for (const k of Object.keys(b)) if (!allowed.includes(k) && !common(b, k)) throw parsingError(`[multi_match] query does not support [${k}]`, locOfKey(b, k));
  if (b.query === undefined) throw parsingError('No text specified for multi_match query', locOf(b));
  const t = String(b.type ?? 'best_fields').toLowerCase();
  if (!['best_fields', 'most_fields', 'cross_fields', 'phrase', 'phrase_prefix'].includes(t)) throw parsingError(`No type found for name: ${t}`, locOfKey(b, 'type'));
  const fields = b.fields === undefined ? ['*'] : [b.fields].flat().map(String);
  return {
    type: 'multi_match', query: scalarString(b.query), fields, mmType: t as 'best_fields',
    tieBreaker: b.tie_breaker === undefined ? undefined : num(b.tie_breaker, 'tie_breaker'),
    operator: String(b.operator ?? 'or').toLowerCase() as 'or', msm: b.minimum_should_match === undefined ? undefined : String(b.minimum_should_match),
    analyzer: b.analyzer as string | undefined, fuzziness: b.fuzziness === undefined ? undefined : String(b.fuzziness), slop: opt(b.slop, 0),
    lenient: opt(b.lenient, false), zeroTerms: String(b.zero_terms_query ?? 'none').toLowerCase() as 'none', maxExpansions: opt(b.max_expansions, 50),
    boost: boostOf(b), name: nameOf(b),
  };
}

function parseQueryString(b: Obj, simple: boolean): Query {
  if (typeof b.query !== 'string') throw parsingError(`[${simple ? 'simple_query_string' : 'query_string'}] query text missing`, locOf(b));
  return {
    type: 'query_string', query: b.query, fields: b.fields === undefined ? [] : [b.fields].flat().map(String),
    defaultField: b.default_field as string | undefined, defaultOperator: String(b.default_operator ?? 'or').toLowerCase() as 'or',
    analyzer: b.analyzer as string | undefined, simple, boost: boostOf(b), name: nameOf(b), lenient: b.lenient === true,
  };
}

function clauses(b: Obj, key: string, filterCtx: boolean): Query[] {
  const v = b[key];
  if (v === undefined) return [];
  if (Array.isArray(v)) return v.map((_, i) => parseQuery(v, String(i), filterCtx));
  return [parseQuery(b, key, filterCtx)];
}

function parseBool(b: Obj, _h: Obj, filterCtx: boolean): BoolQuery {
  for (const k of Object.keys(b)) {
    if (!['must', 'should', 'must_not', 'filter', 'minimum_should_match', 'adjust_pure_negative', 'disable_coord', 'minimum_number_should_match'].includes(k) && !common(b, k)) {
      throw parsingError(`[bool] query does not support [${k}]`, locOfKey(b, k));
    }
  }
  const msm = b.minimum_should_match ?? b.minimum_number_should_match;
  return {
    type: 'bool', must: clauses(b, 'must', false), should: clauses(b, 'should', false), mustNot: clauses(b, 'must_not', true),
    filter: clauses(b, 'filter', true), msm: msm === undefined || msm === null ? undefined : String(msm), filterContext: filterCtx, boost: boostOf(b), name: nameOf(b),
  };
}

function parseFunction(f: Obj): ScoreFunction {
  const out: ScoreFunction = {};
  if (f.filter) out.filter = parseQuery(f, 'filter', true);
  if (f.weight !== undefined) out.weight = num(f.weight, 'weight');
  if (isObj(f.field_value_factor)) {
    const v = f.field_value_factor;
    out.fieldValueFactor = { field: String(v.field), factor: Number(v.factor ?? 1), modifier: String(v.modifier ?? 'none'), missing: v.missing === undefined ? undefined : Number(v.missing) };
  }
  for (const k of Object.keys(f)) {
    if (!['filter', 'weight', 'field_value_factor'].includes(k)) throw parsingError(`function_score: function [${k}] is not supported`, locOfKey(f, k));
  }
  return out;
}

function parseFunctionScore(b: Obj): FunctionScoreQuery {
  const fns: ScoreFunction[] = Array.isArray(b.functions) ? (b.functions as Obj[]).map(parseFunction) : [];
  if (b.weight !== undefined || b.field_value_factor !== undefined) fns.push(parseFunction({ weight: b.weight, field_value_factor: b.field_value_factor } as Obj));
  for (const f of fns) if (f.weight === undefined) delete f.weight;
  for (const k of Object.keys(b)) {
    if (!['query', 'functions', 'score_mode', 'boost_mode', 'max_boost', 'min_score', 'weight', 'field_value_factor'].includes(k) && !common(b, k)) {
      throw parsingError(`function_score query does not support [${k}]`, locOfKey(b, k));
    }
  }
  return {
    type: 'function_score', query: b.query ? parseQuery(b, 'query') : { type: 'match_all', boost: 1 }, functions: fns,
    scoreMode: String(b.score_mode ?? 'multiply') as 'multiply', boostMode: String(b.boost_mode ?? 'multiply') as 'multiply',
    maxBoost: b.max_boost === undefined ? Number.MAX_VALUE : Number(b.max_boost), minScore: b.min_score === undefined ? undefined : Number(b.min_score),
    boost: boostOf(b), name: nameOf(b),
  };
}
