/**
 * `explain: true`: an explanation tree whose values are the scores the query's own scorers produce for the
 * doc (so the root equals `_score`), with Lucene 7's BM25 breakdown (idf from docFreq/docCount, tfNorm from
 * freq, k1, b, avgFieldLength, fieldLength) for term clauses and ES 6's descriptions for compound queries.
 */
import type { Segment } from '../postings/segment.ts';
import { avgFieldLength, idf } from '../postings/bm25.ts';
import { decodeNorm } from '../postings/norms.ts';
import type { Query } from './query-ast.ts';
import { compile } from './query-compiler.ts';
import type { CompileContext } from './weight.ts';
import { analyzeQueryText } from './query-compiler.ts';

export interface Explanation { value: number; description: string; details: Explanation[] }

const ex = (value: number, description: string, details: Explanation[] = []): Explanation => ({ value, description, details });

/** Score of `q` on `doc` (null when it does not match), from the real scorer. */
function scoreOf(q: Query, ctx: CompileContext, ord: number, seg: Segment, doc: number, boost: number): number | null {
  const s = compile(q, ctx, boost).scorer(ord, seg);
  if (!s || s.seek(doc) !== doc) return null;
  return s.score();
}

function termExplain(ctx: CompileContext, seg: Segment, doc: number, field: string, term: string, score: number, boost: number): Explanation {
  const fp = seg.field(field);
  const t = fp ? fp.termId(term) : -1;
  const norms = fp ? fp.norms() : null;
  let freq = 1;
  if (fp && t >= 0 && fp.hasFreqs) {
    const c = fp.cursor(t);
    if (c.seek(doc) === doc) freq = fp.postings(t, false).freqs![c.pos];
  }
  const fs = ctx.stats.fieldStats(field), ts = ctx.stats.termStats(field, term);
  const idfV = idf(ts.docFreq, fs.docCount);
  const idfEx = ex(idfV, 'idf, computed as log(1 + (docCount - docFreq + 0.5) / (docFreq + 0.5)) from:', [ex(ts.docFreq, 'docFreq'), ex(fs.docCount, 'docCount')]);
  const tfNorm = Math.fround(score / Math.fround(idfV * boost));
  const tfDetails = [ex(freq, `termFreq=${freq.toFixed(1)}`), ex(Math.fround(1.2), 'parameter k1')];
  if (norms) {
    tfDetails.push(ex(0.75, 'parameter b'), ex(avgFieldLength(fs.sumTotalTermFreq, fs.docCount), 'avgFieldLength'), ex(decodeNorm(norms[doc]), 'fieldLength'));
  } else tfDetails.push(ex(0, 'parameter b (norms omitted for field)'));
  const parts = [idfEx, ex(tfNorm, norms ? 'tfNorm, computed as (freq * (k1 + 1)) / (freq + k1 * (1 - b + b * fieldLength / avgFieldLength)) from:' : 'tfNorm, computed as (freq * (k1 + 1)) / (freq + k1) from:', tfDetails)];
  if (boost !== 1) parts.unshift(ex(boost, 'boost'));
  return ex(score, `weight(${field}:${term} in ${doc}) [PerFieldSimilarity], result of:`, [
    ex(score, `score(doc=${doc},freq=${freq.toFixed(1)} = termFreq=${freq.toFixed(1)}\n), product of:`, parts),
  ]);
}

export function explainQuery(q: Query, ctx: CompileContext, ord: number, seg: Segment, doc: number, outer = 1): Explanation | null {
  const boost = Math.fround(outer * q.boost);
  const score = scoreOf(q, ctx, ord, seg, doc, outer);
  if (score === null) return null;
  const fi = 'field' in q && typeof q.field === 'string' ? ctx.field(q.field) : undefined;
  switch (q.type) {
    case 'term':
      if (fi && (fi.type === 'text' || fi.type === 'keyword')) return termExplain(ctx, seg, doc, q.field, String(q.value), score, boost);
      return ex(score, `${q.field}:${String(q.value)}`);
    case 'match': {
      if (!fi || fi.type !== 'text' || q.fuzziness !== undefined) return ex(score, `${q.field}:${String(q.query)}`);
      const toks = analyzeQueryText(ctx, q.field, String(q.query), q.analyzer);
      const terms = toks.terms.slice(0, toks.length);
      if (terms.length === 1) return termExplain(ctx, seg, doc, q.field, terms[0], score, boost);
      const details: Explanation[] = [];
      for (const t of terms) {
        const s = scoreOf({ type: 'term', field: q.field, value: t, boost: q.boost }, ctx, ord, seg, doc, outer);
        if (s !== null) details.push(termExplain(ctx, seg, doc, q.field, t, s, boost));
      }
      return ex(score, 'sum of:', details);
    }
    case 'bool': {
      const details: Explanation[] = [];
      for (const c of [...q.must, ...q.should]) { const e = explainQuery(c, ctx, ord, seg, doc, boost); if (e) details.push(e); }
      for (const c of q.filter) if (scoreOf(c, ctx, ord, seg, doc, 1) !== null) details.push(ex(0, 'match on required clause, product of:', [ex(0, '# clause'), ex(1, `${c.type}`)]));
      return ex(score, 'sum of:', details);
    }
    case 'dis_max': {
      const details = q.queries.map((c) => explainQuery(c, ctx, ord, seg, doc, boost)).filter((e): e is Explanation => e !== null);
      return ex(score, q.tieBreaker === 0 ? 'max of:' : `max plus ${q.tieBreaker} times others of:`, details);
    }
    case 'match_all': return ex(score, '*:*');
    case 'constant_score': return ex(score, `ConstantScore(${q.filter.type})`);
    case 'nested': return ex(score, `Score based on ${q.scoreMode} child docs, best match:`, [explainQuery(q.query, ctx, ord, seg, seg.hasNested ? seg.parentOf().indexOf(doc) : -1, boost) ?? ex(0, 'no child explanation')]);
    default: return ex(score, 'field' in q ? `${q.type}(${String(q.field)})` : q.type);
  }
}
