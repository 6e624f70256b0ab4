/**
 * Weights: a query bound to one reader and its statistics, producing a scorer per segment. Shared helpers
 * for the compiler modules live here (the compile context, minimum_should_match arithmetic).
 */
import type { IndexReader, StatsSource } from './index-reader.ts';
import type { Segment } from '../postings/segment.ts';
import type { Scorer } from './scorers.ts';
import type { FieldInfo } from '../indexing/field-infos.ts';

export interface Weight {
  /** Scorer over segment `ord`, or null when nothing in it can match. */
  scorer(ord: number, seg: Segment): Scorer | null;
  /** Set by `match_all`: every doc matches, with this score (lets a search count instead of iterating). */
  readonly matchAllScore?: number;
}

export interface CompileContext {
  reader: IndexReader;
  stats: StatsSource;
  /** Index name (for error details and `_index` queries). */
  index: string;
  /** Mapping type name (for `_type` queries). */
  type?: string;
  /** Resolves a field to its mapping (undefined when unmapped). */
  field(path: string): FieldInfo | undefined;
  /** Named queries matched per doc are not tracked; `_name` is accepted and ignored for scoring. */
  nowMs: number;
}

export const NULL_WEIGHT: Weight = { scorer: () => null };

/**
 * ES `Queries.calculateMinShouldMatch`: integers, negatives, percentages (float arithmetic, truncated),
 * and conditional specs `3<90%` / `2<-25% 9<-3`; clamped at >= 0.
 */
export function minShouldMatch(n: number, spec: string | undefined): number {
  if (spec === undefined) return 0;
  let s = spec.trim();
  if (s.includes('<')) {
    let result = n;
    for (const part of s.split(/\s+/)) {
      const [cond, val] = part.split('<');
      if (n > Number(cond)) result = minShouldMatch(n, val); else break;
    }
    return result;
  }
  let r: number;
  if (s.endsWith('%')) {
    s = s.slice(0, -1);
    const pct = Number(s);
    const calc = Math.fround(Math.fround(n * pct) * Math.fround(1 / 100));
    r = pct < 0 ? n + Math.trunc(calc) : Math.trunc(calc);
  } else {
    const v = Math.trunc(Number(s));
    r = v < 0 ? n + v : v;
  }
  return r < 0 ? 0 : r;
}
