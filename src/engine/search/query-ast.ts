/**
 * The parsed query DSL: plain, structured-clone-safe objects (they travel from the main thread to shard
 * workers). `boost` is the clause's own boost (1 when absent); `name` is `_name`.
 */
import type { ScriptSpec } from '../documents/painless.ts';
import type { GeoBoxQuery, GeoDistanceQuery } from './geo-queries.ts';

export type Query =
  | { type: 'match_all'; boost: number; name?: string }
  | { type: 'match_none'; boost: number; name?: string }
  | { type: 'term'; field: string; value: string | number | boolean; boost: number; name?: string }
  | { type: 'terms'; field: string; values: (string | number | boolean)[]; boost: number; name?: string }
  | MatchQuery
  | { type: 'match_phrase'; field: string; query: string; analyzer?: string; slop: number; boost: number; name?: string; prefix: boolean; maxExpansions: number }
  | MultiMatchQuery
  | { type: 'query_string'; query: string; fields: string[]; defaultField?: string; defaultOperator: 'or' | 'and'; analyzer?: string; simple: boolean; boost: number; name?: string; lenient: boolean }
  | RangeQuery
  | { type: 'exists'; field: string; boost: number; name?: string }
  | { type: 'prefix' | 'wildcard' | 'regexp'; field: string; value: string; boost: number; name?: string }
  | { type: 'fuzzy'; field: string; value: string; fuzziness: string; prefixLength: number; maxExpansions: number; transpositions: boolean; boost: number; name?: string }
  | { type: 'ids'; values: string[]; boost: number; name?: string }
  | BoolQuery
  | { type: 'boosting'; positive: Query; negative: Query; negativeBoost: number; boost: number; name?: string }
  | { type: 'constant_score'; filter: Query; boost: number; name?: string }
  | { type: 'dis_max'; queries: Query[]; tieBreaker: number; boost: number; name?: string }
  | { type: 'nested'; path: string; query: Query; scoreMode: 'avg' | 'max' | 'min' | 'sum' | 'none'; ignoreUnmapped: boolean; boost: number; name?: string; source: unknown; innerHits?: InnerHitsSpec }
  | FunctionScoreQuery
  | { type: 'script'; script: ScriptSpec; boost: number; name?: string }
  /** Internal (never parsed from the DSL): part `id` of `max` of a shard's docs, for sliced scrolls. */
  | { type: 'slice'; id: number; max: number; boost: number; name?: string }
  | GeoDistanceQuery
  | GeoBoxQuery;

export interface MatchQuery {
  type: 'match';
  field: string;
  query: string | number | boolean;
  operator: 'or' | 'and';
  msm?: string;
  analyzer?: string;
  fuzziness?: string;
  prefixLength: number;
  maxExpansions: number;
  transpositions: boolean;
  zeroTerms: 'none' | 'all';
  lenient: boolean;
  boost: number;
  name?: string;
}

export interface MultiMatchQuery {
  type: 'multi_match';
  query: string;
  fields: string[];
  mmType: 'best_fields' | 'most_fields' | 'cross_fields' | 'phrase' | 'phrase_prefix';
  tieBreaker?: number;
  operator: 'or' | 'and';
  msm?: string;
  analyzer?: string;
  fuzziness?: string;
  slop: number;
  lenient: boolean;
  zeroTerms: 'none' | 'all';
  maxExpansions: number;
  boost: number;
  name?: string;
}

export interface RangeQuery {
  type: 'range';
  field: string;
  gt?: unknown; gte?: unknown; lt?: unknown; lte?: unknown;
  format?: string;
  timeZone?: string;
  boost: number;
  name?: string;
}

export interface BoolQuery {
  type: 'bool';
  must: Query[];
  should: Query[];
  mustNot: Query[];
  filter: Query[];
  msm?: string;
  /** True when the bool sits in filter context (the 6.x should rule). */
  filterContext: boolean;
  boost: number;
  name?: string;
}

export interface ScoreFunction {
  filter?: Query;
  weight?: number;
  fieldValueFactor?: { field: string; factor: number; modifier: string; missing?: number };
}

export interface FunctionScoreQuery {
  type: 'function_score';
  query: Query;
  functions: ScoreFunction[];
  scoreMode: 'multiply' | 'sum' | 'avg' | 'first' | 'max' | 'min';
  boostMode: 'multiply' | 'replace' | 'sum' | 'avg' | 'max' | 'min';
  maxBoost: number;
  minScore?: number;
  boost: number;
  name?: string;
}

/** `inner_hits` of a nested query: the best matching nested objects of each hit. */
export interface InnerHitsSpec { name: string; from: number; size: number; sourceIncludes: string[] | null; sourceEnabled: boolean }
