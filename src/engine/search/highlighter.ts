/**
 * A unified-highlighter look-alike (ES 6.8 default): re-analyses each stored value with the field's
 * analyzer, marks tokens matching the query's terms for that field (every field's terms when
 * `require_field_match` is false), splits the value into sentence passages bounded by `fragment_size`, keeps
 * the best `number_of_fragments` passages (by matched-term count) and prints them in text order with the
 * first pre/post tag around each matched token. `number_of_fragments: 0` highlights the whole value.
 */
import { TokenBuf } from '../analysis/token-buf.ts';
import type { Query } from './query-ast.ts';
import type { SearchRequest } from './search-request.ts';
import type { CompileContext } from './weight.ts';
import type { HighlightField } from './highlight-spec.ts';
import { valuesAt } from './source-filter.ts';
import { compileLuceneWildcard } from '../regex/index.ts';

type TermMatcher = { field: string | null; test: (term: string) => boolean; phrase?: { terms: string[]; rel: number[] } };

/** Collects per-field term predicates from a query tree. */
function collectTerms(ctx: CompileContext, q: Query | null, out: TermMatcher[]): void {
  if (!q) return;
  const analyzed = (field: string, text: string, analyzer?: string): void => {
    const fi = ctx.field(field);
    const a = ctx.reader.analyzers.get(analyzer ?? fi?.searchAnalyzer ?? 'standard');
    if (!a) return;
    const set = new Set(fi?.type === 'keyword' ? [text] : a.terms(text));
    out.push({ field, test: (t) => set.has(t) });
  };
  switch (q.type) {
    case 'term': out.push({ field: q.field, test: (t) => t === String(q.value) }); break;
    case 'terms': { const s = new Set(q.values.map(String)); out.push({ field: q.field, test: (t) => s.has(t) }); break; }
    case 'match': analyzed(q.field, String(q.query), q.analyzer); break;
    case 'match_phrase': {
      const fi = ctx.field(q.field);
      const a = ctx.reader.analyzers.get(q.analyzer ?? fi?.searchAnalyzer ?? 'standard');
      if (!a || q.prefix || q.slop > 0 || fi?.type !== 'text') {
        analyzed(q.field, q.query, q.analyzer);
        if (q.prefix) { const last = q.query.trim().split(/\s+/).pop()!.toLowerCase(); out.push({ field: q.field, test: (t) => t.startsWith(last) }); }
        break;
      }
      // Exact phrases highlight only the tokens of actual phrase occurrences, as the unified highlighter does.
      const b = new TokenBuf();
      a.analyze(q.query, b);
      const terms = b.terms.slice(0, b.length), rel = b.positions.slice(0, b.length).map((p) => p - b.positions[0]);
      const set = new Set(terms);
      out.push({ field: q.field, test: (t) => set.has(t), phrase: { terms, rel } });
      break;
    }
    case 'multi_match': {
      for (const f of ctx.reader.infos.order) {
        if (q.fields.some((p) => compileLuceneWildcard(p.replace(/\^.*$/, ''))(f))) analyzed(f, q.query, q.analyzer);
      }
      break;
    }
    case 'query_string': for (const w of q.query.split(/[\s()"+\-:]+/)) if (w && !/^(AND|OR|NOT)$/.test(w)) out.push({ field: null, test: (t) => t === w.toLowerCase() || t === w }); break;
    case 'prefix': out.push({ field: q.field, test: (t) => t.startsWith(q.value) }); break;
    case 'wildcard': out.push({ field: q.field, test: compileLuceneWildcard(q.value) }); break;
    case 'fuzzy': out.push({ field: q.field, test: (t) => t === q.value }); break;
    case 'bool': for (const c of [...q.must, ...q.should, ...q.filter]) collectTerms(ctx, c, out); break;
    case 'constant_score': collectTerms(ctx, q.filter, out); break;
    case 'dis_max': for (const c of q.queries) collectTerms(ctx, c, out); break;
    case 'boosting': collectTerms(ctx, q.positive, out); break;
    case 'function_score': collectTerms(ctx, q.query, out); break;
    case 'nested': collectTerms(ctx, q.query, out); break;
    default: break;
  }
}

const buf = new TokenBuf();

interface Passage { start: number; end: number; matches: [number, number][]; score: number }

function sentences(text: string, maxLen: number): [number, number][] {
  const out: [number, number][] = [];
  const re = /[^.!?。！？\n]*(?:[.!?。！？]+|\n|$)\s*/gu;
  for (let m = re.exec(text); m && m[0].length; m = re.exec(text)) {
    let s = m.index;
    const e = m.index + m[0].length;
    while (e - s > maxLen) {
      let cut = text.lastIndexOf(' ', s + maxLen);
      if (cut <= s) cut = s + maxLen;
      out.push([s, cut]);
      s = cut;
    }
    if (e > s) out.push([s, e]);
  }
  return out;
}

function highlightValue(text: string, spans: [number, number][], from: number, to: number, pre: string, post: string): string {
  let out = '', at = from;
  for (const [s, e] of spans) {
    if (s < from || e > to) continue;
    out += text.slice(at, s) + pre + text.slice(s, e) + post;
    at = e;
  }
  return out + text.slice(at, to);
}

function fieldFragments(ctx: CompileContext, hf: HighlightField, field: string, values: string[], matchers: TermMatcher[]): string[] {
  const fi = ctx.field(field);
  if (!fi || (fi.type !== 'text' && fi.type !== 'keyword')) return [];
  const mine = matchers.filter((m) => m.field === null || !hf.requireFieldMatch || m.field === field);
  const analyzer = ctx.reader.analyzers.get(fi.type === 'keyword' ? 'keyword' : fi.analyzer) ?? ctx.reader.analyzers.get('standard')!;
  const passages: Passage[] = [];
  const whole: string[] = [];
  for (const text of values) {
    buf.clear();
    analyzer.analyze(text, buf);
    const spans: [number, number][] = [];
    let lastEnd = -1;
    const inPhrase = phraseTokens(mine);
    for (let i = 0; i < buf.length; i++) {
      const hitTerm = mine.some((m) => !m.phrase && m.test(buf.terms[i]));
      if (!hitTerm && !inPhrase.has(i)) continue;
      const s = Math.max(buf.starts[i], lastEnd), e = buf.ends[i];
      if (e <= s) continue;
      spans.push([s, e]); lastEnd = e;
    }
    if (!spans.length) continue;
    if (hf.numberOfFragments === 0) { whole.push(highlightValue(text, spans, 0, text.length, hf.preTags[0], hf.postTags[0])); continue; }
    for (const [s, e] of sentences(text, hf.fragmentSize)) {
      const m = spans.filter(([a, b]) => a >= s && b <= e);
      if (m.length) passages.push({ start: s, end: e, matches: m, score: m.length, text } as Passage & { text: string });
    }
  }
  if (hf.numberOfFragments === 0) return whole;
  const best = passages.map((p, i) => ({ p, i })).sort((a, b) => b.p.score - a.p.score || a.i - b.i).slice(0, hf.numberOfFragments);
  if (hf.order !== 'score') best.sort((a, b) => a.i - b.i);
  return best.map(({ p }) => {
    const t = (p as Passage & { text: string }).text;
    return highlightValue(t, p.matches, p.start, p.end, hf.preTags[0], hf.postTags[0]).trim();
  });
}

/** Indexes of tokens (in `buf`) that belong to an exact occurrence of one of the phrase matchers. */
function phraseTokens(ms: TermMatcher[]): Set<number> {
  const out = new Set<number>();
  const byPos = new Map<number, number[]>();
  for (let i = 0; i < buf.length; i++) { const l = byPos.get(buf.positions[i]); if (l) l.push(i); else byPos.set(buf.positions[i], [i]); }
  for (const m of ms) {
    if (!m.phrase) continue;
    const { terms, rel } = m.phrase;
    for (let i = 0; i < buf.length; i++) {
      if (buf.terms[i] !== terms[0]) continue;
      const base = buf.positions[i];
      const hit: number[] = [i];
      let ok = true;
      for (let k = 1; k < terms.length && ok; k++) {
        const at = (byPos.get(base + rel[k]) ?? []).find((j) => buf.terms[j] === terms[k]);
        if (at === undefined) ok = false; else hit.push(at);
      }
      if (ok) for (const j of hit) out.add(j);
    }
  }
  return out;
}

function noMatch(values: string[], size: number): string[] {
  if (!values.length || size <= 0) return [];
  const t = values[0];
  if (t.length <= size) return [t];
  let cut = t.lastIndexOf(' ', size);
  if (cut <= 0) cut = size;
  return [t.slice(0, cut)];
}

/** Highlight section for one hit, or null when no field produced a fragment. */
export function highlightHit(ctx: CompileContext, req: SearchRequest, rawSource: string): Record<string, string[]> | null {
  const spec = req.highlight!;
  const src = JSON.parse(rawSource);
  const out: Record<string, string[]> = {};
  let any = false;
  for (const hf of spec.fields) {
    const matchers: TermMatcher[] = [];
    collectTerms(ctx, hf.highlightQuery ?? req.query, matchers);
    const fields = hf.field.includes('*') ? ctx.reader.infos.expand(hf.field) : [hf.field];
    for (const f of fields) {
      const values = valuesAt(src, ctx.field(f)?.sourcePath ?? f).map(String);
      let frags = fieldFragments(ctx, hf, f, values, matchers);
      if (!frags.length) frags = noMatch(values, hf.noMatchSize);
      if (frags.length) { out[f] = frags; any = true; }
    }
  }
  return any ? out : null;
}
