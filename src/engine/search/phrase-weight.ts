/**
 * `match_phrase` / `match_phrase_prefix`: the terms must occur at their analysed relative positions (exact),
 * or within `slop` moves (sloppy frequency Σ 1/(distance+1)); BM25 with idf = Σ idf(term) (double sum, cast to
 * float) and freq = the phrase frequency. The prefix form expands the last term to at most `maxExpansions`
 * dictionary terms.
 */
import { ArrayCursor, IntersectCursor, NO_MORE_DOCS, UnionCursor, type DocCursor } from '../postings/cursor.ts';
import { avgFieldLength, bm25Score, idf, K1, normCache, weightValue } from '../postings/bm25.ts';
import type { Segment, TermPostings } from '../postings/segment.ts';
import type { Query } from './query-ast.ts';
import { ArrayScorer, type Scorer } from './scorers.ts';
import { NULL_WEIGHT, type CompileContext, type Weight } from './weight.ts';
import { prefixRange, shardTerms, termWeight } from './term-weights.ts';
import { analyzeQueryText, allWeight } from './query-compiler.ts';

type PhraseQ = Extract<Query, { type: 'match_phrase' }>;

export function phraseWeight(ctx: CompileContext, q: PhraseQ, boost: number): Weight {
  const fi = ctx.field(q.field);
  if (!fi) return NULL_WEIGHT;
  if (fi.type !== 'text') return fi.type === 'keyword' ? termWeight(ctx, q.field, q.query, boost) : NULL_WEIGHT;
  const toks = analyzeQueryText(ctx, q.field, q.query, q.analyzer, 'match_phrase');
  if (toks.length === 0) return NULL_WEIGHT;
  const groups: string[][] = [];
  const offsets: number[] = [];
  for (let i = 0; i < toks.length; i++) { groups.push([toks.terms[i]]); offsets.push(toks.positions[i] - toks.positions[0]); }
  if (q.prefix) {
    const last = groups[groups.length - 1][0];
    const terms = shardTerms(ctx, q.field);
    const [a, z] = prefixRange(terms, last);
    groups[groups.length - 1] = terms.slice(a, Math.min(z, a + q.maxExpansions));
    if (groups[groups.length - 1].length === 0) return NULL_WEIGHT;
  }
  if (groups.length === 1 && groups[0].length === 1 && !q.prefix) return termWeight(ctx, q.field, groups[0][0], boost);
  const fs = ctx.stats.fieldStats(q.field);
  let idfSum = 0;
  for (const g of groups) for (const t of g) {
    const ts = ctx.stats.termStats(q.field, t);
    if (ts.docFreq === 0 && g.length === 1) return NULL_WEIGHT;
    if (ts.docFreq > 0) idfSum += idf(ts.docFreq, fs.docCount);
  }
  const wv = weightValue(Math.fround(idfSum), boost);
  const cache = normCache(avgFieldLength(fs.sumTotalTermFreq, fs.docCount));
  return { scorer: (_o: number, seg: Segment) => phraseScorer(seg, q.field, groups, offsets, q.slop, wv, cache) };
}

/** One phrase position: the postings (with positions) of each alternative term and a cursor per term. */
interface Group { postings: TermPostings[]; cursors: ArrayCursor[]; union: DocCursor }

function phraseScorer(seg: Segment, field: string, groups: string[][], offsets: number[], slop: number, wv: number, cache: Float32Array): Scorer | null {
  const fp = seg.field(field);
  if (!fp || !fp.hasPositions) return null;
  const norms = fp.norms();
  const gs: Group[] = [];
  for (const g of groups) {
    const cursors: ArrayCursor[] = [], postings: TermPostings[] = [];
    for (const t of g) {
      const id = fp.termId(t);
      if (id < 0) continue;
      const tp = fp.postings(id, true);
      postings.push(tp);
      cursors.push(new ArrayCursor(tp.docs, tp.start, tp.end));
    }
    if (!cursors.length) return null;
    gs.push({ postings, cursors, union: cursors.length === 1 ? cursors[0] : new UnionCursor(cursors) });
  }
  if (slop === 0 && gs.length === 2 && gs[0].cursors.length === 1 && gs[1].cursors.length === 1) {
    return twoTermPhrase(gs[0].postings[0], gs[1].postings[0], offsets[1] - offsets[0], norms, wv, cache);
  }
  const it = new IntersectCursor(gs.map((g) => g.union));
  const docs: number[] = [], scores: number[] = [];
  const pos: Int32Array[] = gs.map(() => new Int32Array(64));
  const lens = new Int32Array(gs.length);
  for (let d = it.next(); d !== NO_MORE_DOCS; d = it.next()) {
    for (let i = 0; i < gs.length; i++) {
      lens[i] = collectPositions(gs[i], d, offsets[i], pos, i);
    }
    const freq = slop === 0 ? exactFreq(pos, lens) : sloppyFreq(pos, lens, slop);
    if (freq > 0) {
      docs.push(d);
      const norm = norms ? cache[norms[d]] : K1;
      scores.push(bm25Score(wv, Math.fround(freq), norm));
    }
  }
  return docs.length ? new ArrayScorer(Uint32Array.from(docs), Float32Array.from(scores)) : null;
}

/** First index in [from, end) whose doc is >= target (gallop, then binary search). */
function advance(arr: Uint32Array, from: number, end: number, target: number): number {
  let lo = from, step = 1, hi = from;
  while (hi < end && arr[hi] < target) { lo = hi + 1; hi += step; step <<= 1; }
  if (hi > end) hi = end;
  while (lo < hi) { const m = (lo + hi) >>> 1; if (arr[m] < target) lo = m + 1; else hi = m; }
  return lo;
}

/**
 * The common exact two-term phrase, straight over the postings arrays: a leapfrog over both doc lists and a
 * merge of the two position lists per common doc (no cursor calls, no position copies).
 */
function twoTermPhrase(a: TermPostings, b: TermPostings, delta: number, norms: Uint8Array | null, wv: number, cache: Float32Array): Scorer | null {
  const A = a.docs, B = b.docs, psA = a.posStart!, PA = a.positions!, psB = b.posStart!, PB = b.positions!;
  const docs: number[] = [], scores: number[] = [];
  let i = a.start, j = b.start;
  const ae = a.end, be = b.end;
  while (i < ae && j < be) {
    const da = A[i], db = B[j];
    if (da < db) { i = advance(A, i + 1, ae, db); continue; }
    if (db < da) { j = advance(B, j + 1, be, da); continue; }
    let x = psA[i], y = psB[j], f = 0;
    const xe = psA[i + 1], ye = psB[j + 1];
    while (x < xe && y < ye) {
      const pa = PA[x] + delta, pb = PB[y];
      if (pa === pb) { f++; x++; y++; } else if (pa < pb) x++; else y++;
    }
    if (f > 0) { docs.push(da); scores.push(bm25Score(wv, f, norms ? cache[norms[da]] : K1)); }
    i++; j++;
  }
  return docs.length ? new ArrayScorer(Uint32Array.from(docs), Float32Array.from(scores)) : null;
}

/** Positions of the group's terms in doc d, shifted by -offset, sorted, into pos[gi] (grown as needed); returns the count. */
function collectPositions(g: Group, d: number, offset: number, pos: Int32Array[], gi: number): number {
  let n = 0;
  for (let c = 0; c < g.cursors.length; c++) {
    const cur = g.cursors[c];
    if (cur.doc() !== d) continue;
    const ps = g.postings[c].posStart!, all = g.postings[c].positions!;
    const p = cur.pos;
    const a = ps[p], b = ps[p + 1];
    if (n + (b - a) > pos[gi].length) { const grown = new Int32Array(Math.max(pos[gi].length * 2, n + b - a)); grown.set(pos[gi].subarray(0, n)); pos[gi] = grown; }
    const out = pos[gi];
    for (let i = a; i < b; i++) out[n++] = all[i] - offset;
  }
  if (g.cursors.length > 1) pos[gi].subarray(0, n).sort();
  return n;
}

/** Occurrences where every group has the same (offset-adjusted) position: a k-way sorted merge. */
function exactFreq(pos: Int32Array[], lens: Int32Array): number {
  const k = pos.length;
  const idx = new Int32Array(k);
  let n = 0;
  outer: for (let j = 0; j < lens[0]; j++) {
    const p = pos[0][j];
    for (let g = 1; g < k; g++) {
      const arr = pos[g];
      let i = idx[g];
      while (i < lens[g] && arr[i] < p) i++;
      idx[g] = i;
      if (i === lens[g]) break outer;
      if (arr[i] !== p) continue outer;
    }
    n++;
  }
  return n;
}

function sloppyFreq(pos: Int32Array[], lens: Int32Array, slop: number): number {
  let freq = 0;
  for (let j = 0; j < lens[0]; j++) {
    const p0 = pos[0][j];
    let lo = p0, hi = p0;
    for (let i = 1; i < pos.length; i++) {
      let best = pos[i][0], bd = Math.abs(best - p0);
      for (let x = 1; x < lens[i]; x++) { const dd = Math.abs(pos[i][x] - p0); if (dd < bd) { best = pos[i][x]; bd = dd; } }
      if (best < lo) lo = best;
      if (best > hi) hi = best;
    }
    const dist = hi - lo;
    if (dist <= slop) freq += 1 / (dist + 1);
  }
  return freq;
}

export { allWeight };
