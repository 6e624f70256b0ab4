/**
 * Query → Weight against one reader. Field types decide how a clause is executed (BM25 postings for text
 * and keyword, doc-value scans for numbers and dates); boosts multiply down the tree as Lucene's
 * `createWeight(…, boost)` does.
 */
import { AllCursor, type DocCursor, UnionCursor } from '../postings/cursor.ts';
import { TokenBuf } from '../analysis/token-buf.ts';
import type { Segment } from '../postings/segment.ts';
import type { BoolQuery, MatchQuery, Query } from './query-ast.ts';
import { ConjunctionScorer, ConstScorer, DisjunctionScorer, MappedScorer, ReqOptExclScorer, type Scorer } from './scorers.ts';
import { WindowSumScorer } from './window-scorer.ts';
import { minShouldMatch, NULL_WEIGHT, type CompileContext, type Weight } from './weight.ts';
import { existsWeight, idsWeight, matchingTermIds, prefixTermIds, rangeScanWeight, sumWeight, termSetWeight, termWeight } from './term-weights.ts';
import { NUMERIC_TYPES } from '../indexing/field-infos.ts';
import { coerceBoolean, coerceNumber } from '../indexing/doc-indexer.ts';
import { rangeWeight, parseDateValue } from './range-weight.ts';
import { fuzzyWeight, maxEditsFor } from './fuzzy.ts';
import { phraseWeight } from './phrase-weight.ts';
import { nestedWeight } from './nested-weight.ts';
import { multiMatchWeight } from './multi-match.ts';
import { queryStringToQuery } from './query-string.ts';
import { functionScoreWeight } from './function-score.ts';
import { scriptQueryWeight } from './script-query.ts';
import { sliceWeight } from './slice-query.ts';
import { geoBoxWeight, geoDistanceWeight } from './geo-queries.ts';
import { esPretty, queryShardError } from './shard-errors.ts';
import { compileLuceneRegex, compileLuceneWildcard } from '../regex/index.ts';

const f = Math.fround;

export function compile(q: Query, ctx: CompileContext, boost = 1): Weight {
  const b = f(boost * q.boost);
  switch (q.type) {
    case 'match_all': return allWeight(b);
    case 'match_none': return NULL_WEIGHT;
    case 'term': return termQuery(ctx, q.field, q.value, b, { term: { [q.field]: { value: q.value, boost: q.boost } } });
    case 'terms': return termsQuery(ctx, q.field, q.values, b);
    case 'match': return matchQuery(ctx, q, b);
    case 'match_phrase': return phraseWeight(ctx, q, b);
    case 'multi_match': return multiMatchWeight(ctx, q, b, compile);
    case 'query_string': return compile(queryStringToQuery(ctx, q), ctx, b);
    case 'range': return rangeWeight(ctx, q, b);
    case 'exists': return existsQuery(ctx, q.field, b);
    case 'prefix': case 'wildcard': case 'regexp': return patternQuery(ctx, q.type, q.field, q.value, b);
    case 'fuzzy': {
      const fi = ctx.field(q.field);
      if (!fi) return NULL_WEIGHT;
      return fuzzyWeight(ctx, q.field, q.value, q.fuzziness, q.prefixLength, q.maxExpansions, q.transpositions, b);
    }
    case 'ids': return idsWeight(q.values, b);
    case 'bool': return boolWeight(ctx, q, boost);
    case 'constant_score': return constantWeight(compile(q.filter, ctx, 1), b);
    case 'dis_max': return disMaxWeight(q.queries.map((s) => compile(s, ctx, b)), q.tieBreaker);
    case 'boosting': return boostingWeight(compile(q.positive, ctx, b), compile(q.negative, ctx, 1), q.negativeBoost);
    case 'nested': return nestedWeight(ctx, q, b, compile);
    case 'function_score': return functionScoreWeight(ctx, q, b, compile);
    case 'script': return scriptQueryWeight(ctx, q.script, b);
    case 'slice': return sliceWeight(q.id, q.max);
    case 'geo_distance': return geoDistanceWeight(ctx, q, b);
    case 'geo_bounding_box': return geoBoxWeight(ctx, q, b);
  }
}

export function allWeight(score: number): Weight {
  return { scorer: (_o: number, seg: Segment) => new ConstScorer(new AllCursor(seg.maxDoc), score), matchAllScore: score };
}

export function constantWeight(inner: Weight, score: number): Weight {
  return {
    scorer(ord: number, seg: Segment): Scorer | null {
      const s = inner.scorer(ord, seg);
      return s ? new ConstScorer(s, score) : null;
    },
  };
}

/** Metadata fields: `_id` (ids), `_index` and `_type` (match all docs of this shard or none). */
function metaQuery(ctx: CompileContext, field: string, values: unknown[], boost: number): Weight | null {
  if (field === '_id') return idsWeight(values.map(String), boost);
  if (field === '_index') return values.map(String).includes(ctx.index) ? allWeight(boost) : NULL_WEIGHT;
  if (field === '_type') return values.map(String).includes(ctx.type ?? '_doc') ? allWeight(boost) : NULL_WEIGHT;
  return null;
}

/** `echo` is the query as ES prints it in a `failed to create query` reason. */
function termQuery(ctx: CompileContext, field: string, value: unknown, boost: number, echo: unknown): Weight {
  const meta = metaQuery(ctx, field, [value], boost);
  if (meta) return meta;
  const fi = ctx.field(field);
  if (!fi) return NULL_WEIGHT;
  if (fi.type === 'text' || fi.type === 'keyword') return termWeight(ctx, field, String(value), boost);
  if (fi.type === 'boolean') {
    const v = coerceBoolean(value);
    if (v === null) throw queryShardError(ctx, `Can't parse boolean value [${String(value)}], expected [true] or [false]`);
    return termSetWeight(field, boost, (fp) => { const i = fp.termId(v ? 'T' : 'F'); return i < 0 ? [] : [i]; });
  }
  if (NUMERIC_TYPES.has(fi.type)) {
    const n = coerceNumber(value, fi.type === 'float' || fi.type === 'half_float' ? fi.type : 'double');
    if (n === null) {
      // ES: the field type's parser throws NumberFormatException; QueryShardContext wraps it.
      throw queryShardError(ctx, `failed to create query: ${esPretty(echo)}`, { code: 'SEARCH_NUMBER_FORMAT', message: `For input string: "${String(value)}"` });
    }
    if ((fi.type === 'long' || fi.type === 'integer' || fi.type === 'short' || fi.type === 'byte') && !Number.isInteger(n)) return NULL_WEIGHT;
    return rangeScanWeight(field, boost, n, true, n, true);
  }
  if (fi.type === 'date') {
    const ms = parseDateValue(ctx, value, fi.format, undefined, false);
    return rangeScanWeight(field, boost, ms, true, ms, true);
  }
  return NULL_WEIGHT;
}

function termsQuery(ctx: CompileContext, field: string, values: unknown[], boost: number): Weight {
  const meta = metaQuery(ctx, field, values, boost);
  if (meta) return meta;
  const fi = ctx.field(field);
  if (!fi || values.length === 0) return NULL_WEIGHT;
  if (fi.type === 'text' || fi.type === 'keyword' || fi.type === 'boolean') {
    const want = values.map((v) => fi.type === 'boolean' ? (coerceBoolean(v) ? 'T' : 'F') : String(v));
    return termSetWeight(field, boost, (fp) => {
      const out: number[] = [];
      for (const w of want) { const t = fp.termId(w); if (t >= 0) out.push(t); }
      return out;
    });
  }
  const subs = values.map((v) => termQuery(ctx, field, v, boost, { terms: { [field]: values, boost } }));
  return constantWeight(disMaxWeight(subs, 0), boost);
}

function existsQuery(ctx: CompileContext, field: string, boost: number): Weight {
  const fields = ctx.reader.infos.expand(field);
  if (fields.length === 0) {
    // An object path: exists when any sub-field exists.
    const subs = [...ctx.reader.infos.fields.keys()].filter((p) => p.startsWith(field + '.'));
    if (subs.length === 0) return NULL_WEIGHT;
    return constantWeight(disMaxWeight(subs.map((s) => existsWeight(s, 1)), 0), boost);
  }
  if (fields.length === 1) return existsWeight(fields[0], boost);
  return constantWeight(disMaxWeight(fields.map((s) => existsWeight(s, 1)), 0), boost);
}

function patternQuery(ctx: CompileContext, type: 'prefix' | 'wildcard' | 'regexp', field: string, value: string, boost: number): Weight {
  const fi = ctx.field(field);
  if (!fi || (fi.type !== 'text' && fi.type !== 'keyword')) return NULL_WEIGHT;
  if (type === 'prefix') {
    return termSetWeight(field, boost, (fp) => prefixTermIds(fp, value));
  }
  const matches = type === 'wildcard' ? compileLuceneWildcard(value) : compileLuceneRegex(value);
  return termSetWeight(field, boost, (fp) => matchingTermIds(fp, matches));
}

const tokenBuf = new TokenBuf();

/** Analyses `text` for `field` with `analyzer` or the field's search analyzer; throws on an unknown analyzer. */
export function analyzeQueryText(ctx: CompileContext, field: string, text: string, analyzer: string | undefined, what = 'match'): TokenBuf {
  const fi = ctx.field(field);
  const name = analyzer ?? fi?.searchAnalyzer ?? 'standard';
  const a = ctx.reader.analyzers.get(name);
  if (!a) throw queryShardError(ctx, `[${what}] analyzer [${name}] not found`);
  tokenBuf.clear();
  a.analyze(text, tokenBuf);
  return tokenBuf;
}

export function matchQuery(ctx: CompileContext, q: MatchQuery, boost: number): Weight {
  const fi = ctx.field(q.field);
  if (!fi) return NULL_WEIGHT;
  if (fi.type !== 'text') {
    try {
      if (q.fuzziness !== undefined && fi.type === 'keyword') {
        return fuzzyWeight(ctx, q.field, String(q.query), q.fuzziness, q.prefixLength, q.maxExpansions, q.transpositions, boost);
      }
      return termQuery(ctx, q.field, q.query, boost, { match: { [q.field]: { query: q.query, operator: q.operator.toUpperCase(), boost: q.boost } } });
    } catch (e) {
      if (q.lenient) return NULL_WEIGHT;
      throw e;
    }
  }
  const toks = analyzeQueryText(ctx, q.field, String(q.query), q.analyzer);
  if (toks.length === 0) return q.zeroTerms === 'all' ? allWeight(boost) : NULL_WEIGHT;
  const subs: Weight[] = [];
  for (let i = 0; i < toks.length; i++) {
    const t = toks.terms[i];
    if (q.fuzziness !== undefined && maxEditsFor(q.fuzziness, t) > 0) {
      subs.push(fuzzyWeight(ctx, q.field, t, q.fuzziness, q.prefixLength, q.maxExpansions, q.transpositions, boost));
    } else {
      subs.push(termWeight(ctx, q.field, t, boost));
    }
  }
  if (q.operator === 'and') return conjunctionWeight(subs, []);
  const msm = minShouldMatch(subs.length, q.msm);
  return sumWeight(subs, Math.max(1, msm));
}

export function conjunctionWeight(scoring: Weight[], filters: Weight[]): Weight {
  return {
    scorer(ord: number, seg: Segment): Scorer | null {
      const s: Scorer[] = [], nf: DocCursor[] = [];
      for (const w of scoring) { const x = w.scorer(ord, seg); if (!x) return null; s.push(x); }
      for (const w of filters) { const x = w.scorer(ord, seg); if (!x) return null; nf.push(x); }
      if (s.length === 1 && nf.length === 0) return s[0];
      if (s.length === 0) return new ConstScorer(new ConjunctionScorer([], nf), 0);
      return new ConjunctionScorer(s, nf);
    },
  };
}

export function disMaxWeight(subs: Weight[], tie: number): Weight {
  return {
    scorer(ord: number, seg: Segment): Scorer | null {
      const ss: Scorer[] = [];
      for (const w of subs) { const s = w.scorer(ord, seg); if (s) ss.push(s); }
      if (ss.length === 0) return null;
      if (ss.length === 1) return ss[0];
      return new DisjunctionScorer(ss, 1, 'max', f(tie));
    },
  };
}

function boostingWeight(pos: Weight, neg: Weight, negBoost: number): Weight {
  return {
    scorer(ord: number, seg: Segment): Scorer | null {
      const p = pos.scorer(ord, seg);
      if (!p) return null;
      const n = neg.scorer(ord, seg);
      if (!n) return p;
      return new MappedScorer(p, (doc, s) => (n.doc() < doc ? n.seek(doc) : n.doc()) === doc ? f(s * f(negBoost)) : s);
    },
  };
}

function boolWeight(ctx: CompileContext, q: BoolQuery, outer: number): Weight {
  const b = f(outer * q.boost);
  const must = q.must.map((c) => compile(c, ctx, b));
  const filter = q.filter.map((c) => compile(c, ctx, 1));
  const should = q.should.map((c) => compile(c, ctx, b));
  const mustNot = q.mustNot.map((c) => compile(c, ctx, 1));
  if (!must.length && !filter.length && !should.length && !mustNot.length) return allWeight(b);
  let msm = q.msm !== undefined ? minShouldMatch(should.length, q.msm) : 0;
  if (q.msm === undefined && should.length && ((!must.length && !filter.length) || q.filterContext)) msm = 1;
  if (msm > should.length) return NULL_WEIGHT;
  return {
    scorer(ord: number, seg: Segment): Scorer | null {
      const req: Scorer[] = [], nonScoring: DocCursor[] = [], opt: Scorer[] = [], excl: DocCursor[] = [];
      for (const w of must) { const s = w.scorer(ord, seg); if (!s) return null; req.push(s); }
      for (const w of filter) { const s = w.scorer(ord, seg); if (!s) return null; nonScoring.push(s); }
      for (const w of should) { const s = w.scorer(ord, seg); if (s) opt.push(s); }
      for (const w of mustNot) { const s = w.scorer(ord, seg); if (s) excl.push(s); }
      if (opt.length < msm) return null;
      const exclCursor = excl.length === 0 ? null : excl.length === 1 ? excl[0] : new UnionCursor(excl);
      let main: Scorer;
      let optional: Scorer | null = null;
      if (msm > 0) {
        const dis = opt.length === 1 ? opt[0] : new WindowSumScorer(opt, msm);
        main = req.length || nonScoring.length ? new ConjunctionScorer([...req, dis], nonScoring) : dis;
      } else if (req.length || nonScoring.length) {
        main = req.length ? (req.length === 1 && !nonScoring.length ? req[0] : new ConjunctionScorer(req, nonScoring)) : new ConstScorer(new ConjunctionScorer([], nonScoring), 0);
        if (opt.length) optional = opt.length === 1 ? opt[0] : new WindowSumScorer(opt, 1);
      } else {
        // Pure negative (must_not only): ES adds match_all as a filter, so matches score 0.
        main = new ConstScorer(new AllCursor(seg.maxDoc), 0);
      }
      if (!optional && !exclCursor) return main;
      return new ReqOptExclScorer(main, optional, exclCursor);
    },
  };
}
