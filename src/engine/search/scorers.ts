/**
 * Scorers: doc cursors that also score the current doc, combined like Lucene 7's (sums of clause scores in
 * double then cast to float, dis_max with tie breaker, required/optional/excluded bool structure).
 */
import { ArrayCursor, type DocCursor, fillByNext, IntersectCursor, NO_MORE_DOCS, UnionCursor } from '../postings/cursor.ts';
import type { TermPostings } from '../postings/segment.ts';
import { bm25Score, K1 } from '../postings/bm25.ts';

export interface Scorer extends DocCursor {
  /** Score of the current doc (valid while doc() is not -1/NO_MORE_DOCS). */
  score(): number;
}

const f = Math.fround;

/** BM25 over one term's postings; `norms` is the field's norm bytes (null: no norms, length is ignored). */
export class TermScorer extends ArrayCursor implements Scorer {
  private readonly freqs: Uint32Array | null;
  constructor(tp: TermPostings, private readonly norms: Uint8Array | null, private readonly wv: number, private readonly cache: Float32Array | null) {
    super(tp.docs, tp.start, tp.end);
    this.freqs = tp.freqs;
  }
  freq(): number { return this.freqs ? this.freqs[this.pos] : 1; }
  score(): number {
    const norm = this.cache && this.norms ? this.cache[this.norms[this.cur]] : K1;
    return bm25Score(this.wv, this.freq(), norm);
  }

  /** The score of posting `p` (an index into `docs`), wherever the cursor is. */
  scoreAt(p: number): number {
    const norms = this.norms, cache = this.cache;
    return bm25Score(this.wv, this.freqs !== null ? this.freqs[p] : 1, cache !== null && norms !== null ? cache[norms[this.docs[p]]] : K1);
  }

  /**
   * Window accumulation for the bulk disjunction: adds this term's scores of docs in [base, end) into
   * `acc`/`cnt` (marking touched slots in the `bits` bitset), then leaves the cursor on the first doc >= end.
   * The cursor must be positioned (doc() >= base).
   */
  accumulate(base: number, end: number, acc: Float64Array, cnt: Uint16Array, bits: Int32Array): void {
    const docs = this.docs, freqs = this.freqs, norms = this.norms, cache = this.cache, wv = this.wv, last = this.end;
    let p = this.pos;
    for (; p < last; p++) {
      const d = docs[p];
      if (d >= end) break;
      const k = d - base;
      bits[k >> 5] |= 1 << (k & 31);
      cnt[k]++;
      acc[k] += bm25Score(wv, freqs !== null ? freqs[p] : 1, cache !== null && norms !== null ? cache[norms[d]] : K1);
    }
    this.pos = p;
    this.cur = p < last ? docs[p] : NO_MORE_DOCS;
  }

  /**
   * Hot path for a lone term query: scores every remaining posting into `collect` without per-doc virtual
   * calls. Skips nested children and deleted docs; returns the number of docs collected.
   */
  collectAll(base: number, parentOf: Int32Array | null, live: Uint8Array | null, sink: { collect(doc: number, score: number): void }): number {
    const docs = this.docs, freqs = this.freqs, norms = this.norms, cache = this.cache, wv = this.wv;
    let n = 0;
    for (let p = this.pos + 1; p < this.end; p++) {
      const d = docs[p];
      if ((parentOf !== null && parentOf[d] !== -1) || (live !== null && live[d] === 0)) continue;
      const norm = cache !== null && norms !== null ? cache[norms[d]] : K1;
      sink.collect(base + d, bm25Score(wv, freqs !== null ? freqs[p] : 1, norm));
      n++;
    }
    this.pos = this.end - 1;
    this.cur = NO_MORE_DOCS;
    return n;
  }
}

/** Every doc of a cursor with one constant score. */
export class ConstScorer implements Scorer {
  constructor(readonly cursor: DocCursor, private readonly value: number) {}
  doc(): number { return this.cursor.doc(); }
  next(): number { return this.cursor.next(); }
  seek(t: number): number { return this.cursor.seek(t); }
  cost(): number { return this.cursor.cost(); }
  fill(out: Uint32Array): number { return this.cursor.fill(out); }
  score(): number { return this.value; }
}

/** Docs on all scorers; score = sum of the scoring ones (double, cast to float). */
export class ConjunctionScorer implements Scorer {
  private readonly it: IntersectCursor;
  constructor(private readonly scoring: Scorer[], nonScoring: DocCursor[]) {
    this.it = new IntersectCursor([...scoring, ...nonScoring]);
  }
  doc(): number { return this.it.doc(); }
  next(): number { return this.it.next(); }
  seek(t: number): number { return this.it.seek(t); }
  cost(): number { return this.it.cost(); }
  fill(out: Uint32Array): number { return fillByNext(this, out); }
  score(): number {
    if (this.scoring.length === 1) return this.scoring[0].score();
    let s = 0;
    for (let i = 0; i < this.scoring.length; i++) s += this.scoring[i].score();
    return f(s);
  }
}

/** Docs on at least `minMatch` scorers; score = sum of matching scores (double, cast to float). */
export class DisjunctionScorer implements Scorer {
  private readonly u: UnionCursor;
  private readonly matched: Int32Array;
  private nMatched = 0;
  constructor(readonly subs: Scorer[], private readonly minMatch: number, private readonly mode: 'sum' | 'max', private readonly tie = 0) {
    this.u = new UnionCursor(subs);
    this.matched = new Int32Array(subs.length);
  }
  doc(): number { return this.u.doc(); }
  next(): number { return this.check(this.u.next()); }
  seek(t: number): number { return this.u.doc() >= t ? this.u.doc() : this.check(this.u.seek(t)); }
  private check(d: number): number {
    while (d !== NO_MORE_DOCS) {
      this.nMatched = this.u.matching(this.matched);
      if (this.nMatched >= this.minMatch) return d;
      d = this.u.next();
    }
    return d;
  }
  /** Number of sub-scorers on the current doc. */
  matchCount(): number { return this.nMatched; }
  cost(): number { return this.u.cost(); }
  fill(out: Uint32Array): number { return fillByNext(this, out); }
  score(): number {
    // Clause order, not heap order, so sums round the same way whatever the heap did.
    const m = this.matched.subarray(0, this.nMatched).sort();
    if (this.mode === 'sum') {
      let s = 0;
      for (let i = 0; i < m.length; i++) s += this.subs[m[i]].score();
      return f(s);
    }
    let max = 0, other = 0;
    for (let i = 0; i < m.length; i++) {
      const sc = this.subs[m[i]].score();
      if (sc >= max) { other += max; max = sc; } else other += sc;
    }
    return f(max + other * this.tie);
  }
}

/** Lucene's ReqOptSumScorer/ReqExclScorer: required docs, minus excluded, plus optional scores. */
export class ReqOptExclScorer implements Scorer {
  private cur = -1;
  constructor(private readonly req: Scorer, private readonly opt: Scorer | null, private readonly excl: DocCursor | null, private readonly reqScores = true) {}
  doc(): number { return this.cur; }
  next(): number { return this.cur === NO_MORE_DOCS ? NO_MORE_DOCS : this.skip(this.req.next()); }
  seek(t: number): number { return this.cur >= t ? this.cur : this.skip(this.req.seek(t)); }
  private skip(d: number): number {
    while (d !== NO_MORE_DOCS && this.excl && this.excl.seek(d) === d) d = this.req.next();
    this.cur = d;
    return d;
  }
  cost(): number { return this.req.cost(); }
  fill(out: Uint32Array): number { return fillByNext(this, out); }
  score(): number {
    let s = this.reqScores ? this.req.score() : 0;
    if (this.opt) {
      const o = this.opt.doc() < this.cur ? this.opt.seek(this.cur) : this.opt.doc();
      if (o === this.cur) s = f(s + this.opt.score());
    }
    return s;
  }
}

/** Scores of `inner` transformed per doc (boosting, function_score). */
export class MappedScorer implements Scorer {
  constructor(readonly inner: Scorer, private readonly fn: (doc: number, score: number) => number) {}
  doc(): number { return this.inner.doc(); }
  next(): number { return this.inner.next(); }
  seek(t: number): number { return this.inner.seek(t); }
  cost(): number { return this.inner.cost(); }
  fill(out: Uint32Array): number { return this.inner.fill(out); }
  score(): number { return this.fn(this.inner.doc(), this.inner.score()); }
}

/** Docs of `inner` whose per-doc check passes (two-phase style verification). */
export class FilteredScorer implements Scorer {
  private cur = -1;
  constructor(private readonly inner: Scorer, private readonly accept: (doc: number) => boolean) {}
  doc(): number { return this.cur; }
  next(): number { return this.cur === NO_MORE_DOCS ? NO_MORE_DOCS : this.skip(this.inner.next()); }
  seek(t: number): number { return this.cur >= t ? this.cur : this.skip(this.inner.seek(t)); }
  private skip(d: number): number {
    while (d !== NO_MORE_DOCS && !this.accept(d)) d = this.inner.next();
    this.cur = d;
    return d;
  }
  cost(): number { return this.inner.cost(); }
  fill(out: Uint32Array): number { return fillByNext(this, out); }
  score(): number { return this.inner.score(); }
}

/** Materialised doc ids with per-doc scores (nested joins, phrase matches). */
export class ArrayScorer extends ArrayCursor implements Scorer {
  constructor(docs: Uint32Array, readonly scores: Float32Array) { super(docs); }
  score(): number { return this.scores[this.pos]; }
}
