/**
 * Leaf weights: BM25 term queries, constant-score sets of terms (terms, prefix, wildcard, regexp, range on
 * strings), doc-value scans for numbers and dates, exists, ids.
 */
import { ArrayCursor, NO_MORE_DOCS } from '../postings/cursor.ts';
import { avgFieldLength, idf, normCache, weightValue } from '../postings/bm25.ts';
import { type FieldPostings, type NumericDocValues, type Segment } from '../postings/segment.ts';
import { ConstScorer, TermScorer, type Scorer } from './scorers.ts';
import { WindowSumScorer } from './window-scorer.ts';
import { NULL_WEIGHT, type CompileContext, type Weight } from './weight.ts';
import { bitmapOf } from '../codec/roaring.ts';

/** BM25 term query; `statsTerm` lets fuzzy expansions use blended statistics. */
export function termWeight(ctx: CompileContext, field: string, term: string, boost: number, df?: { docFreq: number }): Weight {
  const fs = ctx.stats.fieldStats(field);
  const ts = df ?? ctx.stats.termStats(field, term);
  if (ts.docFreq === 0 && !df) return NULL_WEIGHT;
  const wv = weightValue(idf(ts.docFreq, fs.docCount), boost);
  const cache = normCache(avgFieldLength(fs.sumTotalTermFreq, fs.docCount));
  const ids = ctx.reader.termIds(field, term);
  return {
    scorer(ord: number, seg: Segment): Scorer | null {
      const fp = seg.field(field);
      const t = ctx.reader.segments[ord] === seg ? ids[ord] : fp ? fp.termId(term) : -1;
      if (t < 0) return null;
      const norms = fp!.norms();
      return new TermScorer(fp!.postings(t, false), norms, wv, norms ? cache : null);
    },
  };
}

/** Constant-score union of the terms chosen per segment by `pick` (term ids of the field's dictionary). */
export function termSetWeight(field: string, boost: number, pick: (fp: FieldPostings, seg: Segment) => number[]): Weight {
  return {
    scorer(_ord: number, seg: Segment): Scorer | null {
      const fp = seg.field(field);
      if (!fp) return null;
      const ids = pick(fp, seg);
      if (ids.length === 0) return null;
      if (ids.length === 1) return new ConstScorer(fp.cursor(ids[0]), boost);
      const bm = bitmapOf();
      for (const t of ids) bm.orInPlace(fp.bitmap(t));
      return new ConstScorer(new ArrayCursor(bm.toUint32Array()), boost);
    },
  };
}

/**
 * Numeric/date range over doc values as a lazily verified cursor (Lucene's doc-values range query): nothing is
 * materialised. In a conjunction with another clause it only verifies that clause's docs (`matches`, one read
 * per doc); `seek` would scan every doc up to the next match. Its cost is maxDoc, and its score a constant.
 */
export class RangeScanCursor implements Scorer {
  private cur = -1;
  private readonly start: Uint32Array;
  private readonly values: Float64Array;
  private readonly dense: boolean;
  constructor(dv: NumericDocValues, private readonly maxDoc: number,
    private readonly lo: number, private readonly loIncl: boolean, private readonly hi: number, private readonly hiIncl: boolean, private readonly value: number) {
    this.start = dv.start;
    this.values = dv.values;
    this.dense = dv.dense;
  }
  private scan(d: number): number {
    const start = this.start, values = this.values, lo = this.lo, hi = this.hi, li = this.loIncl, hiI = this.hiIncl, max = this.maxDoc;
    if (this.dense) {
      for (; d < max; d++) {
        const v = values[d];
        if ((li ? v >= lo : v > lo) && (hiI ? v <= hi : v < hi)) return (this.cur = d);
      }
      return (this.cur = NO_MORE_DOCS);
    }
    for (; d < max; d++) {
      for (let i = start[d], e = start[d + 1]; i < e; i++) {
        const v = values[i];
        if ((li ? v >= lo : v > lo) && (hiI ? v <= hi : v < hi)) return (this.cur = d);
      }
    }
    return (this.cur = NO_MORE_DOCS);
  }
  /** Whether doc `d` has a value in the range (one read: intersections verify with it, see VerifyingCursor). */
  matches(d: number): boolean {
    const values = this.values, lo = this.lo, hi = this.hi, li = this.loIncl, hiI = this.hiIncl;
    if (this.dense) {
      const v = values[d];
      return (li ? v >= lo : v > lo) && (hiI ? v <= hi : v < hi);
    }
    for (let i = this.start[d], e = this.start[d + 1]; i < e; i++) {
      const v = values[i];
      if ((li ? v >= lo : v > lo) && (hiI ? v <= hi : v < hi)) return true;
    }
    return false;
  }
  doc(): number { return this.cur; }
  next(): number { return this.cur === NO_MORE_DOCS ? NO_MORE_DOCS : this.scan(this.cur + 1); }
  seek(t: number): number { return this.cur >= t ? this.cur : this.scan(t); }
  cost(): number { return this.maxDoc; }
  fill(out: Uint32Array): number {
    let n = 0;
    let d = this.cur === -1 ? this.next() : this.cur;
    while (n < out.length && d !== NO_MORE_DOCS) { out[n++] = d; d = this.next(); }
    return n;
  }
  score(): number { return this.value; }
}

export function rangeScanWeight(field: string, boost: number, lo: number, loIncl: boolean, hi: number, hiIncl: boolean): Weight {
  return {
    scorer(_ord: number, seg: Segment): Scorer | null {
      const dv = seg.numeric(field);
      if (!dv || dv.values.length === 0) return null;
      return new RangeScanCursor(dv, seg.maxDoc, lo, loIncl, hi, hiIncl, boost);
    },
  };
}

export function existsWeight(field: string, boost: number): Weight {
  return {
    scorer(_ord: number, seg: Segment): Scorer | null {
      const e = seg.exists(field);
      return e && e.length ? new ConstScorer(new ArrayCursor(e), boost) : null;
    },
  };
}

export function idsWeight(values: string[], boost: number): Weight {
  return {
    scorer(_ord: number, seg: Segment): Scorer | null {
      const docs: number[] = [];
      for (const v of values) { const d = seg.lookupId(v); if (d >= 0) docs.push(d); }
      if (!docs.length) return null;
      return new ConstScorer(new ArrayCursor(Uint32Array.from(new Set(docs)).sort()), boost);
    },
  };
}

/** Sum of BM25 term scores with at least `minMatch` terms on the doc (match query, fuzzy expansions). */
export function sumWeight(subs: Weight[], minMatch: number): Weight {
  if (subs.length === 1 && minMatch <= 1) return subs[0];
  return {
    scorer(ord: number, seg: Segment): Scorer | null {
      const ss: Scorer[] = [];
      for (const w of subs) { const s = w.scorer(ord, seg); if (s) ss.push(s); }
      if (ss.length < Math.max(1, minMatch)) return null;
      if (ss.length === 1) return ss[0];
      return new WindowSumScorer(ss, Math.max(1, minMatch));
    },
  };
}

/** Terms of the field across the shard's segments (deduplicated, sorted). */
export function shardTerms(ctx: CompileContext, field: string): string[] {
  const set = new Set<string>();
  for (const s of ctx.reader.segments) {
    const fp = s.field(field);
    if (fp) for (let t = 0; t < fp.numTerms; t++) set.add(fp.term(t));
  }
  return [...set].sort();
}

/** Terms with `prefix`, in dictionary order. */
export function prefixRange(terms: string[], prefix: string): [number, number] {
  let lo = 0, hi = terms.length;
  while (lo < hi) { const m = (lo + hi) >>> 1; if (terms[m] < prefix) lo = m + 1; else hi = m; }
  let end = lo;
  while (end < terms.length && terms[end].startsWith(prefix)) end++;
  return [lo, end];
}

/** Term ids of `fp` that start with `prefix` (a range of the sorted dictionary). */
export function prefixTermIds(fp: FieldPostings, prefix: string, limit = Infinity): number[] {
  const out: number[] = [];
  for (let t = fp.seekCeil(prefix); t < fp.numTerms && out.length < limit && fp.term(t).startsWith(prefix); t++) out.push(t);
  return out;
}

/** Term ids of `fp` whose term satisfies `test`, in dictionary order (a full dictionary scan). */
export function matchingTermIds(fp: FieldPostings, test: (term: string) => boolean): number[] {
  const out: number[] = [];
  for (let t = 0; t < fp.numTerms; t++) if (test(fp.term(t))) out.push(t);
  return out;
}

export { NO_MORE_DOCS };
