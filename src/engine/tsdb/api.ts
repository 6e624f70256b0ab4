/**
 * The read path of the metrics store as small cursor interfaces, shaped after Prometheus's
 * `storage/interface.go`. The PromQL evaluator sees only this file; the storage never sees the evaluator.
 * Head, blocks and the in-memory set used by tests and by the query worker all implement `Querier`.
 */

import { goRegexPredicate } from '../regex/go-regex.ts';

export { STALE_NAN, STALE_NAN_HI, STALE_NAN_LO, isStaleNaN } from './stale-nan.ts';

/** A label set sorted by name, `__name__` included. Immutable once built. */
export interface Label { readonly name: string; readonly value: string }
export type Labels = readonly Label[];

/** Orders label sets as Prometheus does (`labels.Compare`): pairwise by name, then value, then length. */
export function compareLabels(a: Labels, b: Labels): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (a[i].name !== b[i].name) return a[i].name < b[i].name ? -1 : 1;
    if (a[i].value !== b[i].value) return a[i].value < b[i].value ? -1 : 1;
  }
  return a.length - b.length;
}

export const MATCH_EQUAL = 0, MATCH_NOT_EQUAL = 1, MATCH_REGEXP = 2, MATCH_NOT_REGEXP = 3;
export type MatchType = typeof MATCH_EQUAL | typeof MATCH_NOT_EQUAL | typeof MATCH_REGEXP | typeof MATCH_NOT_REGEXP;

/**
 * One label matcher. Regex matchers are fully anchored (`^(?:re)$`), as in Prometheus; a missing label
 * has the value "" for matching purposes.
 */
export interface Matcher {
  readonly type: MatchType;
  readonly name: string;
  readonly value: string;
  matches(value: string): boolean;
}

/** Hints from the query about what it will read; the store may use them to prune, never to change results. */
export interface SelectHints {
  /** Inclusive bounds of the samples that will be read, in ms since the epoch. */
  readonly startMs: number;
  readonly endMs: number;
  readonly stepMs: number;
  readonly func: string;
  readonly rangeMs: number;
}

/** Cursor over the samples of one series in increasing timestamp order. */
export interface SampleCursor {
  /** Moves to the next sample; returns VAL_FLOAT, or VAL_NONE when exhausted (then `t`/`v` are undefined). */
  next(): number;
  /** Moves to the first sample with `t >= tMs` (no-op if already there); returns VAL_FLOAT or VAL_NONE. */
  seek(tMs: number): number;
  /** Timestamp of the current sample, ms since the epoch. */
  readonly t: number;
  /** Value of the current sample. Stale markers have the exact bit pattern of `STALE_NAN` (see `isStaleNaN`). */
  readonly v: number;
}
export const VAL_NONE = 0, VAL_FLOAT = 1;

export interface Series {
  readonly labels: Labels;
  /** Returns a cursor positioned before the first sample; resets and returns `reuse` when it is compatible. */
  iterator(reuse: SampleCursor | null): SampleCursor;
}

export interface SeriesSet {
  /** Advances to the next series; false when done. */
  next(): boolean;
  at(): Series;
  readonly warnings: string[];
}

export interface Querier {
  /**
   * Series matching every matcher that have samples in the hinted range (or any, with null hints).
   * With `sorted`, series come in label-set order.
   */
  select(sorted: boolean, hints: SelectHints | null, matchers: readonly Matcher[]): SeriesSet;
  /** Sorted, de-duplicated label names of the series matching `matchers` (all series when empty). */
  labelNames(matchers: readonly Matcher[]): string[];
  /** Sorted, de-duplicated values of `name` over the series matching `matchers`. */
  labelValues(name: string, matchers: readonly Matcher[]): string[];
  close(): void;
}

/** Opens a querier over `[mintMs, maxtMs]`. */
export interface Queryable {
  querier(mintMs: number, maxtMs: number): Querier;
}


/** The samples of one series read out of storage for a query: parallel arrays, timestamps ascending (ms). */
export interface FetchedSeries {
  readonly labels: Labels;
  readonly t: Float64Array;
  readonly v: Float64Array;
}

/**
 * Builds a matcher. Regexes use Go's RE2 syntax, match the whole value as Prometheus's do (`^(?:re)$`) and
 * run in linear time (`regex/go-regex.ts`). Throws `InvalidArgumentError` ("error parsing regexp: …") on a
 * bad regex.
 */
export function newMatcher(type: MatchType, name: string, value: string): Matcher {
  if (type === MATCH_EQUAL) return { type, name, value, matches: (s) => s === value };
  if (type === MATCH_NOT_EQUAL) return { type, name, value, matches: (s) => s !== value };
  const matches = goRegexPredicate(value);
  if (type === MATCH_REGEXP) return { type, name, value, matches };
  return { type, name, value, matches: (s) => !matches(s) };
}
