/**
 * The `phrase` suggester, as ES 6.8's PhraseSuggester runs on a shard: the text is analysed into tokens; each
 * token's candidates come from the direct generators (the term suggester's DirectSpellChecker, `spellCheck`),
 * scored by similarity × (ttf + 1) / (generator field's sum of ttf + 1), best `shard_size` kept; a noisy-channel
 * model then scores every phrase with at most `max_errors` corrections: per token log10(channel × LM), the channel
 * being the similarity (the real-word likelihood for an unchanged token) and the LM stupid backoff over the suggest
 * field ((1 + ttf) / (vocabulary + unique terms) for unigrams). A phrase's score is exp of that sum (ES's own mix
 * of log10 and exp), kept when above `confidence` × the input phrase's score. The coordinator merges the shards'
 * options by text (best score), drops those under the highest cutoff, and sorts by score then text.
 */
import { InvalidArgumentError, ParseError } from '../errors.ts';
import { TokenBuf } from '../analysis/token-buf.ts';
import { locOfKey } from './json-pos.ts';
import { parsingError } from './query-parser.ts';
import type { CompileContext } from './weight.ts';
import type { SuggestOption, TermSuggestOptions } from './suggest.ts';

export interface PhraseOptions {
  field: string;
  analyzer: string | null;
  size: number;
  shardSize: number | null;
  gramSize: number;
  maxErrors: number;
  confidence: number;
  realWordErrorLikelihood: number;
  separator: string;
  tokenLimit: number;
  discount: number;
  highlight: { pre: string; post: string } | null;
  generators: TermSuggestOptions[];
}

export interface PhraseOption { text: string; highlighted: string | null; score: number }
export interface PhraseEntry { text: string; offset: number; length: number; options: PhraseOption[]; cutoff: number }

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const illegal = (msg: string): InvalidArgumentError => new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', msg);

/** Parses `phrase` options; `generator` builds a direct generator's spell-checker options from its object. */
export function parsePhraseOptions(o: Obj, generator: (g: Obj, phrase: true) => TermSuggestOptions): PhraseOptions {
  const p: PhraseOptions = { field: '', analyzer: null, size: 5, shardSize: null, gramSize: 1, maxErrors: 1, confidence: 1, realWordErrorLikelihood: 0.95,
    separator: ' ', tokenLimit: 10, discount: 0.4, highlight: null, generators: [] };
  let field: string | null = null;
  for (const [k, v] of Object.entries(o)) {
    const n = Number(v);
    switch (k) {
      case 'field': field = String(v); break;
      case 'analyzer': p.analyzer = String(v); break;
      case 'size': if (!(n > 0)) throw illegal('size must be positive'); p.size = Math.trunc(n); break;
      case 'shard_size': if (!(n > 0)) throw illegal('shardSize must be positive'); p.shardSize = Math.trunc(n); break;
      case 'gram_size': if (!(n >= 1)) throw illegal('gramSize must be >= 1'); p.gramSize = Math.trunc(n); break;
      case 'max_errors': if (!(n > 0)) throw illegal('max_error must be > 0.0'); p.maxErrors = n; break;
      case 'confidence': if (!(n >= 0)) throw illegal('confidence must be >= 0.0'); p.confidence = n; break;
      case 'real_word_error_likelihood': if (!(n > 0)) throw illegal('real_word_error_likelihood must be > 0.0'); p.realWordErrorLikelihood = n; break;
      case 'separator': p.separator = String(v); break;
      case 'token_limit': if (!(n > 0)) throw illegal('token_limit must be >= 1'); p.tokenLimit = Math.trunc(n); break;
      case 'force_unigrams': case 'require_unigram': break;
      case 'direct_generator':
        for (const g of [v].flat()) { if (!isObj(g)) throw parsingError('[direct_generator] failed to parse', locOfKey(o, k)); p.generators.push(directGenerator(generator, g)); }
        break;
      case 'highlight': {
        const h = v as Obj;
        const pre = h?.pre_tag, post = h?.post_tag;
        if ((pre === undefined) !== (post === undefined)) throw illegal('Pre and post tag must both be null or both not be null.');
        if (pre !== undefined) p.highlight = { pre: String(pre), post: String(post) };
        break;
      }
      case 'smoothing': {
        const s = isObj(v) ? Object.keys(v)[0] : undefined;
        if (s !== 'stupid_backoff') throw parsingError(`[phrase] smoothing [${String(s)}] is not supported by this server (only stupid_backoff)`, locOfKey(o, k));
        const d = (v as Obj).stupid_backoff as Obj | undefined;
        if (d?.discount !== undefined) p.discount = Number(d.discount);
        break;
      }
      case 'collate': throw parsingError('[phrase] collate is not supported by this server', locOfKey(o, k));
      default: throw parsingError(`suggester[phrase] doesn't support field [${k}]`, locOfKey(o, k));
    }
  }
  if (field === null) throw new ParseError('PARSE', 'the required field option [field] is missing');
  p.field = field;
  // Without direct generators ES draws candidates from the suggest field with the generator defaults.
  if (p.generators.length === 0) p.generators.push(directGenerator(generator, { field }));
  return p;
}

/** A direct generator draws exactly `size` candidates per token (the term suggester's floor of 5 does not apply). */
function directGenerator(parse: (g: Obj, phrase: true) => TermSuggestOptions, g: Obj): TermSuggestOptions {
  const t = parse(g, true);
  t.shardSize = t.size;
  return t;
}

/** A token's candidate (or the token itself, `user`): similarity and generator score. */
interface Candidate { term: string; distance: number; score: number; ttf: number; user: boolean }

const tokens = new TokenBuf();

/** This shard's phrase corrections for `text`. `spellCheck` is the term suggester's DirectSpellChecker. */
export function phraseShard(ctx: CompileContext, o: PhraseOptions, text: string,
  spellCheck: (ctx: CompileContext, g: TermSuggestOptions, token: string) => SuggestOption[]): PhraseEntry {
  const entry: PhraseEntry = { text, offset: 0, length: text.length, options: [], cutoff: Number.MIN_VALUE };
  const fi = ctx.field(o.field);
  if (!fi) throw illegal(`no mapping found for field [${o.field}]`);
  const gens = o.generators;
  const analyzerName = o.analyzer ?? fi.searchAnalyzer;
  const analyzer = ctx.reader.analyzers.get(analyzerName);
  if (!analyzer) throw illegal(`analyzer [${analyzerName}] doesn't exists`);
  const suggestStats = fieldTotals(ctx, o.field);
  if (suggestStats.sumTtf === 0 || gens.length === 0) return entry;
  tokens.clear();
  analyzer.analyze(text, tokens);
  if (tokens.length === 0 || tokens.length >= o.tokenLimit) return entry;
  const genField = gens[0].field;
  const dictSize = fieldTotals(ctx, genField).sumTtf;
  const candScore = (distance: number, ttf: number): number => distance * ((ttf + 1) / (dictSize + 1));
  const sets: { original: Candidate; candidates: Candidate[] }[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const term = tokens.terms[i];
    const ttf = ttfOf(ctx, genField, term);
    const original: Candidate = { term, distance: 1, score: candScore(1, ttf), ttf: ttfOf(ctx, o.field, term), user: true };
    const byTerm = new Map<string, Candidate>();
    for (const g of gens) {
      for (const s of spellCheck(ctx, g, term)) {
        if (!byTerm.has(s.text)) byTerm.set(s.text, { term: s.text, distance: s.score, score: candScore(s.score, ttfOf(ctx, g.field, s.text)), ttf: ttfOf(ctx, o.field, s.text), user: false });
      }
    }
    // Strongest first; equal scores put later terms first (ES's Candidate order); at most shard_size kept.
    const candidates = [...byTerm.values()].sort((a, b) => b.score - a.score || (a.term < b.term ? 1 : a.term > b.term ? -1 : 0)).slice(0, shardSize(o));
    sets.push({ original, candidates });
  }
  const lm = new WordScorer(ctx, o, suggestStats);
  const tokenScore = (path: Candidate[], at: number): number => Math.log10(lm.channel(path[at]) * lm.model(path, at));
  if (o.confidence > 0) {
    const path = sets.map((s) => s.original);
    let sum = 0;
    for (let i = 0; i < path.length; i++) sum += tokenScore(path, i);
    entry.cutoff = Math.exp(sum) * o.confidence;
  }
  const errors = Math.max(1, o.maxErrors >= 1 ? Math.trunc(o.maxErrors) : Math.floor(o.maxErrors * sets.length + 0.5));
  const best: { score: number; path: Candidate[] }[] = [];
  const path: Candidate[] = new Array(sets.length);
  const walk = (ord: number, left: number, pathScore: number): void => {
    const choices = left > 0 ? [sets[ord].original, ...sets[ord].candidates] : [sets[ord].original];
    for (const c of choices) {
      path[ord] = c;
      const s = pathScore + tokenScore(path, ord);
      if (ord === sets.length - 1) keep(best, Math.exp(s), path, entry.cutoff, shardSize(o));
      else walk(ord + 1, c.user ? left : left - 1, s);
    }
  };
  walk(0, errors, 0);
  best.sort(compareCorrections);
  entry.options = best.map((b) => ({
    text: b.path.map((c) => c.term).join(o.separator),
    highlighted: o.highlight ? b.path.map((c) => (c.user ? c.term : o.highlight!.pre + c.term + o.highlight!.post)).join(o.separator) : null,
    score: Math.fround(b.score),
  }));
  return entry;
}

const shardSize = (o: PhraseOptions): number => o.shardSize ?? Math.max(o.size, 5);

/** Keeps the best `limit` corrections above the cutoff (ES's bounded priority queue). */
function keep(best: { score: number; path: Candidate[] }[], score: number, path: Candidate[], cutoff: number, limit: number): void {
  if (!(score > cutoff)) return;
  const c = { score, path: path.slice() };
  if (best.length < limit) { best.push(c); return; }
  let worst = 0;
  for (let i = 1; i < best.length; i++) if (compareCorrections(best[i], best[worst]) > 0) worst = i;
  if (compareCorrections(c, best[worst]) < 0) best[worst] = c;
}

/** Best first: higher score, then (equal scores) earlier terms position by position. */
function compareCorrections(a: { score: number; path: Candidate[] }, b: { score: number; path: Candidate[] }): number {
  if (a.score !== b.score) return b.score - a.score;
  for (let i = 0; i < Math.min(a.path.length, b.path.length); i++) {
    if (a.path[i].term !== b.path[i].term) return a.path[i].term < b.path[i].term ? -1 : 1;
  }
  return a.path.length - b.path.length;
}

/** ES's WordScorer with stupid backoff: channel and language-model probabilities over the suggest field. */
class WordScorer {
  private readonly denominator: number;
  constructor(private readonly ctx: CompileContext, private readonly o: PhraseOptions, stats: { sumTtf: number; numTerms: number }) {
    this.denominator = stats.sumTtf + (stats.sumTtf + stats.numTerms > 1 ? stats.numTerms : 0);
  }
  channel(c: Candidate): number { return c.distance === 1 ? this.o.realWordErrorLikelihood : c.distance; }
  private unigram(c: Candidate): number { return (1 + c.ttf) / this.denominator; }
  model(path: Candidate[], at: number): number {
    const g = this.o.gramSize;
    if (at === 0 || g === 1) return this.unigram(path[at]);
    const w = path[at], w1 = path[at - 1];
    const bigram = ttfOf(this.ctx, this.o.field, w1.term + this.o.separator + w.term);
    if (at === 1 || g === 2) return bigram < 1 ? this.o.discount * this.unigram(w) : bigram / (w1.ttf + 1e-11);
    if (bigram < 1) return this.o.discount * this.unigram(w);
    const trigram = ttfOf(this.ctx, this.o.field, path[at - 2].term + this.o.separator + w1.term + this.o.separator + w.term);
    return trigram < 1 ? this.o.discount * (bigram / (w1.ttf + 1e-11)) : trigram / (bigram + 1e-11);
  }
}

/** Shard-wide total term frequency of a term (docFreq for fields without frequencies). */
function ttfOf(ctx: CompileContext, field: string, term: string): number {
  let n = 0;
  for (const seg of ctx.reader.segments) {
    const f = seg.field(field);
    const t = f ? f.termId(term) : -1;
    if (t >= 0) n += f!.hasFreqs ? f!.totalTermFreq(t) : f!.docFreq(t);
  }
  return n;
}

/**
 * A field's sum of term frequencies and its unique-term count: Lucene's `Terms.size()` is known for one segment
 * only (a multi-segment view answers -1, which ES then uses as is).
 */
function fieldTotals(ctx: CompileContext, field: string): { sumTtf: number; numTerms: number } {
  let sumTtf = 0, numTerms = 0, segs = 0;
  for (const seg of ctx.reader.segments) {
    const f = seg.field(field);
    if (!f) continue;
    segs++;
    sumTtf += f.hasFreqs ? f.sumTotalTermFreq : f.sumDocFreq;
    numTerms = f.numTerms;
  }
  return { sumTtf, numTerms: segs === 1 ? numTerms : -1 };
}

/** Coordinator: options merged by text (best score), kept above the highest shard cutoff, sorted, `size` kept. */
export function reducePhrase(o: PhraseOptions, perShard: PhraseEntry[]): PhraseEntry {
  const first = perShard[0];
  const cutoff = Math.max(...perShard.map((e) => e.cutoff));
  const merged = new Map<string, PhraseOption>();
  for (const e of perShard) {
    for (const opt of e.options) {
      const m = merged.get(opt.text);
      if (!m) merged.set(opt.text, { ...opt });
      else if (opt.score > m.score) m.score = opt.score;
    }
  }
  const options = [...merged.values()].filter((x) => x.score > cutoff)
    .sort((a, b) => b.score - a.score || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0)).slice(0, o.size);
  return { text: first.text, offset: first.offset, length: first.length, options, cutoff };
}
