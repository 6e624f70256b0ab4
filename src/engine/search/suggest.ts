/**
 * The `term` suggester, as ES 6.8's TermSuggester over Lucene 7's DirectSpellChecker: the suggest text is analysed
 * with the field's search analyzer; for each token each shard proposes dictionary terms within `max_edits`
 * (Damerau–Levenshtein: a transposition is one edit) that share the token's first `prefix_length` code points,
 * scored 1 − edits / min(token length, term length) in code points, with the shard's doc frequencies; the
 * coordinator merges the shards' options (frequencies add up, the best score wins), sorts and trims to `size`.
 *
 * DirectSpellChecker details kept: a first pass at one edit, then one at `max_edits` whose prefix is at least one
 * code point; the exact token is never proposed; `suggest_mode` missing (no options for a token in the index),
 * popular (only terms more frequent than the token) or always; tokens shorter than `min_word_length` or in more
 * than `max_term_freq` of the shard's docs get none; candidates need more than `min_doc_freq` docs and a score of
 * at least `accuracy` (and above 0); each shard keeps `shard_size` (default max(size, 5)) options per token from its
 * `shard_size × max_inspections` best candidates. `string_distance` other than `internal` rescores the same
 * candidates (string-distance.ts).
 */
import { InvalidArgumentError, ParseError } from '../errors.ts';
import { locOfKey } from './json-pos.ts';
import { parsingError } from './query-parser.ts';
import { editDistance } from './fuzzy.ts';
import { TokenBuf } from '../analysis/token-buf.ts';
import { STRING_DISTANCES, stringDistance, type StringDistanceName } from './string-distance.ts';
import type { CompileContext } from './weight.ts';
import { parsePhraseOptions, phraseShard, reducePhrase, type PhraseEntry, type PhraseOptions } from './phrase-suggest.ts';
import { completeShard, parseCompletionOptions, reduceCompletion, type CompletionOption, type CompletionOptions } from './completion-suggest.ts';

export interface TermSuggestOptions {
  field: string;
  analyzer: string | null;
  size: number;
  shardSize: number | null;
  suggestMode: 'missing' | 'popular' | 'always';
  sort: 'score' | 'frequency';
  maxEdits: number;
  prefixLength: number;
  minWordLength: number;
  maxInspections: number;
  minDocFreq: number;
  maxTermFreq: number;
  accuracy: number;
  lowercaseTerms: boolean;
  stringDistance: StringDistanceName;
}

/** One named suggestion: a term suggester (`term`) or a completion suggester (`completion`, looked up by `prefix`/`text`). */
export interface SuggestionSpec { name: string; text: string | null; term: TermSuggestOptions | null; completion: CompletionOptions | null; phrase: PhraseOptions | null }
export interface SuggestSpec { globalText: string | null; suggestions: SuggestionSpec[] }

/** One token's result: the analysed term, where it sits in the text, and its options. */
export interface SuggestEntry { text: string; offset: number; length: number; options: SuggestOption[] }
export interface SuggestOption { text: string; score: number; freq: number }
/** A completion suggestion's single entry (the prefix) with its document options. */
export interface CompletionEntry { text: string; offset: number; length: number; options: CompletionOption[] }
/** Per suggestion (request order): its entries, one per token (term) or the one prefix entry (completion). */
export type SuggestResult = ({ name: string; kind: 'term'; entries: SuggestEntry[] } | { name: string; kind: 'completion'; entries: CompletionEntry[] }
  | { name: string; kind: 'phrase'; entries: PhraseEntry[] })[];

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);

const illegal = (msg: string): InvalidArgumentError => new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', msg);

export function parseSuggest(v: unknown): SuggestSpec {
  if (!isObj(v)) throw parsingError(`[suggest] must be an object`);
  const spec: SuggestSpec = { globalText: null, suggestions: [] };
  for (const [name, x] of Object.entries(v)) {
    if (!isObj(x)) {
      if (name !== 'text') throw illegal(`[suggest] does not support [${name}]`);
      spec.globalText = String(x);
      continue;
    }
    let text: string | null = null, term: TermSuggestOptions | null = null, completion: CompletionOptions | null = null, phrase: PhraseOptions | null = null;
    for (const [k, y] of Object.entries(x)) {
      const loc = locOfKey(x, k);
      if (isObj(y)) {
        if (k === 'term') term = parseTermOptions(y);
        else if (k === 'completion') completion = parseCompletionOptions(y);
        else if (k === 'phrase') phrase = parsePhraseOptions(y, parseTermOptions);
        else throw parsingError(`unable to parse SuggestionBuilder with name [${k}]: parser not found`, loc);
      } else if (k === 'text' || k === 'prefix') text = String(y);
      else if (k === 'regex') throw parsingError(`suggestion [regex] is not supported by this server`, loc);
      else throw parsingError(`suggestion does not support [${k}]`, loc);
    }
    if (!term && !completion && !phrase) throw new ParseError('PARSE', 'missing suggestion object');
    spec.suggestions.push({ name, text, term, completion, phrase });
  }
  return spec;
}

/** Term suggester options; `generator` parses a phrase suggester's `direct_generator` (same spell checker). */
function parseTermOptions(o: Obj, generator = false): TermSuggestOptions {
  const t: TermSuggestOptions = {
    field: '', analyzer: null, size: 5, shardSize: null, suggestMode: 'missing', sort: 'score', maxEdits: 2, prefixLength: 1,
    minWordLength: 4, maxInspections: 5, minDocFreq: 0, maxTermFreq: 0.01, accuracy: 0.5, lowercaseTerms: false, stringDistance: 'internal',
  };
  let field: string | null = null;
  for (const [k, v] of Object.entries(o)) {
    if (isObj(v) || Array.isArray(v)) throw parsingError(`suggester[term] parsing failed on [${k}]`, locOfKey(o, k));
    const n = Number(v);
    switch (k) {
      case 'field': field = String(v); break;
      case 'analyzer': t.analyzer = String(v); break;
      case 'size': if (n <= 0) throw illegal(`size must be positive`); t.size = Math.trunc(n); break;
      case 'shard_size': if (n <= 0) throw illegal(`shardSize must be positive`); t.shardSize = Math.trunc(n); break;
      case 'suggest_mode': {
        const m = String(v).toLowerCase();
        if (m !== 'missing' && m !== 'popular' && m !== 'always') throw illegal(`Illegal suggest mode ${String(v).toUpperCase()}`);
        t.suggestMode = m; break;
      }
      case 'sort': {
        const s = String(v).toLowerCase();
        if (s !== 'score' && s !== 'frequency') throw illegal(`Illegal suggest sort ${String(v)}`);
        t.sort = s; break;
      }
      case 'string_distance': {
        const d = String(v).toLowerCase();
        if (d === 'ngram') throw parsingError(`[string_distance] [ngram] is not supported by this server`, locOfKey(o, k));
        if (!STRING_DISTANCES[d]) throw illegal(`Illegal distance option ${String(v)}`);
        t.stringDistance = STRING_DISTANCES[d]; break;
      }
      case 'max_edits': if (!(n >= 1 && n <= 2)) throw illegal(`maxEdits must be between 1 and 2`); t.maxEdits = Math.trunc(n); break;
      case 'max_inspections': if (n < 0) throw illegal(`maxInspections must be positive`); t.maxInspections = Math.trunc(n); break;
      case 'prefix_length': if (n < 0) throw illegal(`prefixLength must be positive`); t.prefixLength = Math.trunc(n); break;
      case 'min_word_length': case 'min_word_len': if (n < 1) throw illegal(`minWordLength must be greater or equal to 1`); t.minWordLength = Math.trunc(n); break;
      case 'accuracy': if (!(n >= 0 && n <= 1)) throw illegal(`accuracy must be between 0 and 1`); t.accuracy = n; break;
      case 'max_term_freq': t.maxTermFreq = frequencyOption(n, 'maxTermFreq'); break;
      case 'min_doc_freq': t.minDocFreq = frequencyOption(n, 'minDocFreq'); break;
      case 'lowercase_terms': t.lowercaseTerms = v === true || v === 'true'; break;
      default: throw parsingError(generator ? `[direct_generator] unknown field [${k}], parser not found` : `suggester[term] doesn't support field [${k}]`, locOfKey(o, k));
    }
  }
  if (field === null) throw new ParseError('PARSE', 'the required field option [field] is missing');
  t.field = field;
  return t;
}

function frequencyOption(n: number, what: string): number {
  if (!(n >= 0)) throw illegal(`${what} must be positive`);
  if (n > 1 && n !== Math.floor(n)) throw illegal(`if ${what} is greater than 1, it must not be a fraction`);
  return n;
}

const tokens = new TokenBuf();
const codePoints = (s: string): number[] => { const out: number[] = []; for (const c of s) out.push(c.codePointAt(0)!); return out; };

/** Runs every suggestion against one shard's reader; `withSource` puts `_source` on completion options. */
export function suggestShard(ctx: CompileContext, spec: SuggestSpec, withSource = true): SuggestResult {
  return spec.suggestions.map((s) => {
    const text = s.text ?? spec.globalText;
    if (text === null) throw illegal('The required text option is missing');
    if (s.completion) {
      return { name: s.name, kind: 'completion' as const, entries: [{ text, offset: 0, length: text.length, options: completeShard(ctx, s.completion, text, withSource) }] };
    }
    if (s.phrase) return { name: s.name, kind: 'phrase' as const, entries: [phraseShard(ctx, s.phrase, text, spellCheck)] };
    const o = s.term!;
    const fi = ctx.field(o.field);
    if (!fi) throw illegal(`no mapping found for field [${o.field}]`);
    const analyzerName = o.analyzer ?? fi.searchAnalyzer;
    const analyzer = ctx.reader.analyzers.get(analyzerName);
    if (!analyzer) throw illegal(`analyzer [${analyzerName}] doesn't exists`);
    tokens.clear();
    analyzer.analyze(text, tokens);
    const entries: SuggestEntry[] = [];
    for (let i = 0; i < tokens.length; i++) {
      entries.push({ text: tokens.terms[i], offset: tokens.starts[i], length: tokens.ends[i] - tokens.starts[i], options: spellCheck(ctx, o, tokens.terms[i]) });
    }
    return { name: s.name, kind: 'term' as const, entries };
  });
}

function docFreq(ctx: CompileContext, field: string, term: string): number {
  let df = 0;
  for (const seg of ctx.reader.segments) {
    const fp = seg.field(field);
    const t = fp ? fp.termId(term) : -1;
    if (t >= 0) df += fp!.docFreq(t);
  }
  return df;
}

/** DirectSpellChecker.suggestSimilar for one token on this shard (also the phrase suggester's direct generator). */
export function spellCheck(ctx: CompileContext, o: TermSuggestOptions, token: string): SuggestOption[] {
  const term = o.lowercaseTerms ? token.toLowerCase() : token;
  const q = codePoints(term);
  if (q.length < o.minWordLength) return [];
  let df = docFreq(ctx, o.field, term);
  if (o.suggestMode === 'missing' && df > 0) return [];
  const maxDoc = ctx.reader.maxDoc();
  if (o.maxTermFreq >= 1 ? df > o.maxTermFreq : df > Math.ceil(Math.fround(o.maxTermFreq * maxDoc))) return [];
  if (o.suggestMode !== 'popular') df = 0;
  if (o.minDocFreq >= 1) df = Math.max(df, Math.trunc(o.minDocFreq));
  else if (o.minDocFreq > 0) df = Math.max(df, Math.trunc(Math.fround(o.minDocFreq * maxDoc)) - 1);
  const numSug = o.shardSize ?? Math.max(o.size, 5);
  const inspections = numSug * o.maxInspections;
  // The one-edit pass first, then (when it found too few) the max_edits pass; the union is kept.
  let cands = candidates(ctx, o, term, q, 1, o.prefixLength, df, inspections);
  if (o.maxEdits > 1 && cands.size < inspections) {
    for (const [t, c] of candidates(ctx, o, term, q, o.maxEdits, Math.max(o.prefixLength, o.maxEdits - 1), df, inspections)) if (!cands.has(t)) cands.set(t, c);
  }
  const list = [...cands.values()];
  list.sort(o.sort === 'score' ? byScore : byFrequency);
  return list.slice(0, numSug);
}

/** Terms of the field within `maxEdits` of the token (sharing `prefix` code points), best `limit` by score. */
function candidates(ctx: CompileContext, o: TermSuggestOptions, term: string, q: number[], maxEdits: number, prefix: number, minDf: number, limit: number): Map<string, SuggestOption> {
  const pre = String.fromCodePoint(...q.slice(0, Math.min(prefix, q.length)));
  const dfs = new Map<string, number>();
  for (const seg of ctx.reader.segments) {
    const fp = seg.field(o.field);
    if (!fp) continue;
    for (let t = fp.seekCeil(pre); t < fp.numTerms; t++) {
      const cand = fp.term(t);
      if (!cand.startsWith(pre)) break;
      dfs.set(cand, (dfs.get(cand) ?? 0) + fp.docFreq(t));
    }
  }
  const kept: SuggestOption[] = [];
  for (const [cand, df] of dfs) {
    if (cand === term || df <= minDf) continue;
    const c = codePoints(cand);
    const ed = editDistance(q, c, maxEdits, true);
    if (ed > maxEdits) continue;
    // The fuzzy enumeration accepts a term only with a positive similarity; another distance then rescores it.
    const sim = Math.fround(1 - Math.fround(ed / Math.min(c.length, q.length)));
    if (sim <= 0) continue;
    const score = o.stringDistance === 'internal' ? sim : stringDistance(o.stringDistance, term, cand);
    if (score < o.accuracy) continue;
    kept.push({ text: cand, score, freq: df });
  }
  // The spell checker's queue keeps the best boosts, ties to the smaller term.
  kept.sort((a, b) => b.score - a.score || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  return new Map(kept.slice(0, limit).map((k) => [k.text, k]));
}

function byScore(a: SuggestOption, b: SuggestOption): number {
  return b.score - a.score || b.freq - a.freq || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0);
}

function byFrequency(a: SuggestOption, b: SuggestOption): number {
  return b.freq - a.freq || b.score - a.score || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0);
}

/** Coordinator side: per suggestion and token, the shards' options merged by text, sorted, trimmed to `size`. */
export function reduceSuggest(spec: SuggestSpec, perShard: SuggestResult[]): SuggestResult {
  return spec.suggestions.map((s, i) => {
    const first = perShard[0][i];
    if (first.kind === 'phrase') {
      return { name: s.name, kind: 'phrase' as const, entries: [reducePhrase(s.phrase!, perShard.map((r) => r[i].entries[0] as PhraseEntry))] };
    }
    if (first.kind === 'completion') {
      const e = first.entries[0];
      const options = reduceCompletion(s.completion!, perShard.map((r) => (r[i].entries[0] as CompletionEntry).options));
      return { name: s.name, kind: 'completion' as const, entries: [{ text: e.text, offset: e.offset, length: e.length, options }] };
    }
    const entries = first.entries.map((e, j) => {
      const merged = new Map<string, SuggestOption>();
      for (const shard of perShard) {
        for (const opt of (shard[i].entries[j] as SuggestEntry | undefined)?.options ?? []) {
          const m = merged.get(opt.text);
          if (!m) merged.set(opt.text, { ...opt });
          else { m.freq += opt.freq; if (opt.score > m.score) m.score = opt.score; }
        }
      }
      const options = [...merged.values()].sort(s.term!.sort === 'score' ? byScore : byFrequency).slice(0, s.term!.size);
      return { text: e.text, offset: e.offset, length: e.length, options };
    });
    return { name: s.name, kind: 'term' as const, entries };
  });
}
