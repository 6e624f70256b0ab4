/**
 * Fuzzy term expansion as Lucene's FuzzyQuery with TopTermsBlendedFreqScoringRewrite: candidate terms
 * within `maxEdits` (Damerau when transpositions are on) sharing the first `prefixLength` code points; the
 * `maxExpansions` best (highest boost, then term order) are kept, each boosted by
 * 1 - edits / min(len) and scored with blended statistics (docFreq = the max among kept terms).
 */
import type { CompileContext, Weight } from './weight.ts';
import { NULL_WEIGHT } from './weight.ts';
import { shardTerms, sumWeight, termWeight } from './term-weights.ts';

/** Edits allowed for `fuzziness` ("AUTO", "AUTO:3,6", "0".."2") on a term. */
export function maxEditsFor(fuzziness: string, term: string): number {
  const len = [...term].length;
  const m = /^AUTO(?::(\d+),(\d+))?$/i.exec(fuzziness);
  if (m) {
    const lo = m[1] ? Number(m[1]) : 3, hi = m[2] ? Number(m[2]) : 6;
    return len < lo ? 0 : len < hi ? 1 : 2;
  }
  const n = Number(fuzziness);
  if (Number.isNaN(n)) return 0;
  return Math.min(2, Math.floor(n));
}

/** Edit distance between code point arrays, capped: returns max+1 once it exceeds `max`. */
export function editDistance(a: number[], b: number[], max: number, transpositions: boolean): number {
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = a.length, m = b.length;
  let prev2 = new Array<number>(m + 1).fill(0);
  let prev = Array.from({ length: m + 1 }, (_, j) => j);
  for (let i = 1; i <= n; i++) {
    const cur = new Array<number>(m + 1);
    cur[0] = i;
    let rowMin = cur[0];
    for (let j = 1; j <= m; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost);
      if (transpositions && i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) v = Math.min(v, prev2[j - 2] + 1);
      cur[j] = v;
      if (v < rowMin) rowMin = v;
    }
    if (rowMin > max) return max + 1;
    prev2 = prev; prev = cur;
  }
  return prev[m];
}

export function fuzzyWeight(ctx: CompileContext, field: string, value: string, fuzziness: string, prefixLength: number,
  maxExpansions: number, transpositions: boolean, boost: number): Weight {
  const q = [...value].map((c) => c.codePointAt(0)!);
  const maxEdits = maxEditsFor(fuzziness, value);
  const prefix = String.fromCodePoint(...q.slice(0, prefixLength));
  const cands: { term: string; boost: number }[] = [];
  for (const t of shardTerms(ctx, field)) {
    if (!t.startsWith(prefix)) continue;
    const tc = [...t].map((c) => c.codePointAt(0)!);
    const ed = editDistance(q, tc, maxEdits, transpositions);
    if (ed > maxEdits) continue;
    const sim = ed === 0 ? 1 : Math.fround(1 - Math.fround(ed / Math.min(tc.length, q.length)));
    cands.push({ term: t, boost: sim });
  }
  if (cands.length === 0) return NULL_WEIGHT;
  cands.sort((a, b) => b.boost - a.boost || (a.term < b.term ? -1 : a.term > b.term ? 1 : 0));
  const kept = cands.slice(0, Math.max(1, maxExpansions));
  let maxDf = 0;
  for (const c of kept) maxDf = Math.max(maxDf, ctx.stats.termStats(field, c.term).docFreq);
  const subs = kept.map((c) => termWeight(ctx, field, c.term, Math.fround(boost * c.boost), { docFreq: maxDf }));
  return sumWeight(subs, 1);
}
