/**
 * `multi_match`: per-field match queries combined by type — best_fields (dis_max, tie_breaker 0),
 * most_fields (sum), phrase / phrase_prefix (dis_max of phrase queries), cross_fields (each term blended across
 * fields: docFreq = the max over fields, dis_max per term, then operator / minimum_should_match over terms).
 * Field patterns accept `^boost` and `*` wildcards; the default `*` means every text/keyword field.
 */
import type { MultiMatchQuery, Query } from './query-ast.ts';
import { minShouldMatch, NULL_WEIGHT, type CompileContext, type Weight } from './weight.ts';
import { sumWeight, termWeight } from './term-weights.ts';
import { analyzeQueryText, conjunctionWeight, disMaxWeight } from './query-compiler.ts';

type CompileFn = (q: Query, ctx: CompileContext, boost: number) => Weight;

export function resolveFields(ctx: CompileContext, specs: string[]): { field: string; boost: number }[] {
  const out: { field: string; boost: number }[] = [];
  for (const spec of specs) {
    const m = /^(.*?)(?:\^([\d.]+))?$/.exec(spec)!;
    const boost = m[2] ? Number(m[2]) : 1;
    const names = ctx.reader.infos.expand(m[1]);
    for (const n of names) {
      const fi = ctx.field(n)!;
      if (m[1].includes('*') && fi.type !== 'text' && fi.type !== 'keyword') continue;
      if (!out.some((o) => o.field === n)) out.push({ field: n, boost });
    }
  }
  return out;
}

export function multiMatchWeight(ctx: CompileContext, q: MultiMatchQuery, boost: number, compile: CompileFn): Weight {
  const fields = resolveFields(ctx, q.fields);
  if (fields.length === 0) return NULL_WEIGHT;
  const lenient = q.lenient || q.fields.includes('*');
  if (q.mmType === 'cross_fields') return crossFields(ctx, q, fields, boost);
  const per = fields.map(({ field, boost: fb }) => {
    const sub: Query = q.mmType === 'phrase' || q.mmType === 'phrase_prefix'
      ? { type: 'match_phrase', field, query: q.query, analyzer: q.analyzer, slop: q.slop, boost: fb, prefix: q.mmType === 'phrase_prefix', maxExpansions: q.maxExpansions }
      : { type: 'match', field, query: q.query, operator: q.operator, msm: q.msm, analyzer: q.analyzer, fuzziness: q.fuzziness, prefixLength: 0,
        maxExpansions: q.maxExpansions, transpositions: true, zeroTerms: q.zeroTerms, lenient, boost: fb };
    return compile(sub, ctx, boost);
  });
  if (q.mmType === 'most_fields') return sumWeight(per, 1);
  return disMaxWeight(per, q.tieBreaker ?? 0);
}

function crossFields(ctx: CompileContext, q: MultiMatchQuery, fields: { field: string; boost: number }[], boost: number): Weight {
  const textFields = fields.filter((f) => ctx.field(f.field)!.type === 'text' || ctx.field(f.field)!.type === 'keyword');
  if (!textFields.length) return NULL_WEIGHT;
  const toks = analyzeQueryText(ctx, textFields[0].field, q.query, q.analyzer, 'multi_match');
  const terms = toks.terms.slice(0, toks.length);
  if (!terms.length) return NULL_WEIGHT;
  const perTerm = terms.map((t) => {
    let maxDf = 0;
    for (const f of textFields) maxDf = Math.max(maxDf, ctx.stats.termStats(f.field, t).docFreq);
    if (maxDf === 0) return NULL_WEIGHT;
    const subs = textFields.map((f) => termWeight(ctx, f.field, t, Math.fround(boost * f.boost), { docFreq: maxDf }));
    return disMaxWeight(subs, q.tieBreaker ?? 0);
  });
  if (q.operator === 'and') return conjunctionWeight(perTerm, []);
  return sumWeight(perTerm, Math.max(1, minShouldMatch(perTerm.length, q.msm)));
}
