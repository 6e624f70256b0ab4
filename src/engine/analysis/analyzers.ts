/**
 * Analyzers: a tokenizer followed by token filters, as Lucene chains them. Built-ins follow ES 6.8
 * (`standard`, `simple`, `whitespace`, `keyword`, `stop`, `english`, `ik_smart`, `ik_max_word`); index
 * settings add custom analyzers (`settings.analysis.analyzer.<name>` with a tokenizer and `lowercase`,
 * `uppercase`, `stop`, `asciifolding`, `english_possessive`, `porter_stem`, `trim` filters, or a typed
 * built-in with options such as `stopwords`).
 */
import { InvalidArgumentError } from '../errors.ts';
import { TokenBuf } from './token-buf.ts';
import { keywordTokenize, letterTokenize, standardTokenize, whitespaceTokenize } from './standard-tokenizer.ts';
import { ikMaxWord, ikSmart } from './ik.ts';
import { ENGLISH_STOP_WORDS } from './stop-words.ts';
import { porterStem } from './porter-stemmer.ts';

/** Appends tokens of `text` to `out` from position `pos`; returns the position after the last token. */
export type TokenizeFn = (text: string, out: TokenBuf, pos: number, offset: number) => number;
/** Rewrites tokens [from, out.length) in place (may drop tokens; positions keep their gaps). */
export type FilterFn = (out: TokenBuf, from: number) => void;

export class Analyzer {
  /**
   * The analyzer is a span tokenizer followed by `lowercase` alone (the standard analyzer): the indexer may
   * take its tokens as spans of the text and lowercase them while it looks the terms up (`analyzeLowerSpans`).
   */
  readonly lowercaseSpans: boolean;

  constructor(readonly name: string, private readonly tokenizer: TokenizeFn, private readonly filters: FilterFn[]) {
    this.lowercaseSpans = SPAN_TOKENIZERS.has(tokenizer) && filters.length === 1 && filters[0] === lowercase;
  }

  /** Analyses one value, appending to `out`; returns the next free position. */
  analyze(text: string, out: TokenBuf, pos = 0, offset = 0): number {
    const from = out.length;
    const next = this.tokenizer(text, out, pos, offset);
    for (let i = 0; i < this.filters.length; i++) this.filters[i](out, from);
    return next;
  }

  /**
   * For an analyzer with `lowercaseSpans`: the tokens of `text` as spans only (`starts`/`ends`, offsets from
   * 0), to be lowercased by the caller; `terms` is not filled. Returns the next free position.
   */
  analyzeLowerSpans(text: string, out: TokenBuf, pos: number): number {
    out.spansOnly = true;
    try {
      return this.tokenizer(text, out, pos, 0);
    } finally {
      out.spansOnly = false;
    }
  }

  /**
   * Analyses the values of one multi-valued field as Lucene inverts them: each value after the first starts
   * `positionGap` + 1 positions after the previous value's last token, and its offsets continue from the
   * previous value's end plus one (the offset gap). Used by `_analyze` and term vectors.
   */
  analyzeValues(values: readonly string[], out: TokenBuf, positionGap: number): void {
    let pos = 0, offset = 0;
    for (let i = 0; i < values.length; i++) {
      const start = out.length;
      this.analyze(values[i], out, pos, offset);
      if (out.length > start) pos = out.positions[out.length - 1] + positionGap + 1;
      offset += values[i].length + 1;
    }
  }

  /** Convenience for cold paths: the terms of `text` in order. */
  terms(text: string): string[] {
    const b = new TokenBuf();
    this.analyze(text, b);
    return b.terms.slice(0, b.length);
  }
}

const lowercase: FilterFn = (out, from) => {
  for (let i = from; i < out.length; i++) out.terms[i] = out.terms[i].toLowerCase();
};
const uppercase: FilterFn = (out, from) => {
  for (let i = from; i < out.length; i++) out.terms[i] = out.terms[i].toUpperCase();
};
const trim: FilterFn = (out, from) => {
  for (let i = from; i < out.length; i++) out.terms[i] = out.terms[i].trim();
};

function stopFilter(words: ReadonlySet<string>): FilterFn {
  return (out, from) => {
    let j = from;
    for (let i = from; i < out.length; i++) {
      if (words.has(out.terms[i])) continue;
      out.move(i, j++);
    }
    out.length = j;
  };
}

const FOLD_SPECIAL: Record<string, string> = { ß: 'ss', æ: 'ae', Æ: 'AE', ø: 'o', Ø: 'O', ł: 'l', Ł: 'L', đ: 'd', Đ: 'D', œ: 'oe', Œ: 'OE', þ: 'th', Þ: 'TH', ð: 'd', Ð: 'D', ı: 'i' };
const asciifolding: FilterFn = (out, from) => {
  for (let i = from; i < out.length; i++) {
    const t = out.terms[i];
    if (/^[\x00-\x7f]*$/.test(t)) continue;
    out.terms[i] = t.normalize('NFD').replace(/\p{M}/gu, '').replace(/[ßæÆøØłŁđĐœŒþÞðÐı]/g, (c) => FOLD_SPECIAL[c]);
  }
};
const possessive: FilterFn = (out, from) => {
  for (let i = from; i < out.length; i++) {
    const t = out.terms[i];
    if (/['’][sS]$/.test(t)) out.terms[i] = t.slice(0, -2);
  }
};
const porter: FilterFn = (out, from) => {
  for (let i = from; i < out.length; i++) out.terms[i] = porterStem(out.terms[i]);
};

/** Tokenizers whose every token is a slice of the text (`TokenBuf.pushSpan`). */
const SPAN_TOKENIZERS = new WeakSet<TokenizeFn>();

function standardTok(maxLen: number): TokenizeFn {
  const fn: TokenizeFn = (t, o, p, off) => standardTokenize(t, o, p, off, maxLen);
  SPAN_TOKENIZERS.add(fn);
  return fn;
}

const TOKENIZERS: Record<string, TokenizeFn> = {
  standard: standardTok(255),
  whitespace: whitespaceTokenize,
  keyword: keywordTokenize,
  letter: letterTokenize,
  lowercase: letterTokenize,
  ik_smart: ikSmart,
  ik_max_word: ikMaxWord,
};

const FILTERS: Record<string, FilterFn> = {
  lowercase, uppercase, trim, asciifolding, standard: () => {},
  stop: stopFilter(ENGLISH_STOP_WORDS),
  english_possessive: possessive,
  porter_stem: porter,
};

const BUILTIN: Record<string, Analyzer> = {
  standard: new Analyzer('standard', TOKENIZERS.standard, [lowercase]),
  default: new Analyzer('standard', TOKENIZERS.standard, [lowercase]),
  simple: new Analyzer('simple', letterTokenize, [lowercase]),
  whitespace: new Analyzer('whitespace', whitespaceTokenize, []),
  keyword: new Analyzer('keyword', keywordTokenize, []),
  stop: new Analyzer('stop', letterTokenize, [lowercase, stopFilter(ENGLISH_STOP_WORDS)]),
  english: new Analyzer('english', TOKENIZERS.standard, [possessive, lowercase, stopFilter(ENGLISH_STOP_WORDS), porter]),
  ik_smart: new Analyzer('ik_smart', ikSmart, []),
  ik_max_word: new Analyzer('ik_max_word', ikMaxWord, []),
};

type Json = Record<string, any>;

function stopSet(v: unknown): ReadonlySet<string> {
  if (v === undefined || v === '_english_') return ENGLISH_STOP_WORDS;
  if (v === '_none_') return new Set();
  if (Array.isArray(v)) return new Set(v.map(String));
  if (typeof v === 'string') return new Set(v.split(',').map((s) => s.trim()));
  throw new InvalidArgumentError('INVALID_ARGUMENT', `invalid stopwords [${String(v)}]`);
}

/** Expands `{"index.analysis.analyzer.a.type": …}` style keys into nested objects. */
export function expandSettings(settings: Json): Json {
  const out: Json = {};
  for (const [k, v] of Object.entries(settings ?? {})) {
    const parts = k.split('.');
    let o = out;
    for (let i = 0; i < parts.length - 1; i++) o = (o[parts[i]] ??= {});
    const last = parts[parts.length - 1];
    o[last] = v && typeof v === 'object' && !Array.isArray(v) ? deepMerge(o[last] ?? {}, expandSettings(v)) : v;
  }
  return out;
}

function deepMerge(a: Json, b: Json): Json {
  for (const [k, v] of Object.entries(b)) a[k] = v && typeof v === 'object' && !Array.isArray(v) && a[k] ? deepMerge(a[k], v) : v;
  return a;
}

/** The analyzers of one index: built-ins plus those declared in its settings. */
export class AnalyzerRegistry {
  private readonly custom = new Map<string, Analyzer>();

  constructor(indexSettings: Json = {}) {
    const s = expandSettings(indexSettings);
    const analysis: Json = s.index?.analysis ?? s.analysis ?? {};
    for (const [name, def] of Object.entries<Json>(analysis.analyzer ?? {})) {
      this.custom.set(name, this.build(name, def, analysis));
    }
  }

  /** The analyzer named `name`, or null when neither built in nor declared. */
  get(name: string): Analyzer | null {
    return this.custom.get(name) ?? BUILTIN[name] ?? null;
  }

  has(name: string): boolean { return this.get(name) !== null; }

  private build(name: string, def: Json, analysis: Json): Analyzer {
    const type = def.type ?? (def.tokenizer ? 'custom' : undefined);
    if (type === 'custom') {
      const tok = this.tokenizer(String(def.tokenizer ?? ''), analysis);
      const filters = [def.filter ?? []].flat().map((f: string) => this.filter(String(f), analysis));
      return new Analyzer(name, tok, filters);
    }
    if (type === 'standard') return new Analyzer(name, standardTok(def.max_token_length ?? 255), [lowercase, stopFilter(stopSet(def.stopwords ?? '_none_'))]);
    if (type === 'stop') return new Analyzer(name, letterTokenize, [lowercase, stopFilter(stopSet(def.stopwords))]);
    if (type === 'english') return new Analyzer(name, TOKENIZERS.standard, [possessive, lowercase, stopFilter(stopSet(def.stopwords)), porter]);
    const base = typeof type === 'string' ? BUILTIN[type] : undefined;
    if (base) return base;
    throw new InvalidArgumentError('INVALID_ARGUMENT', `Unknown analyzer type [${String(type)}] for [${name}]`);
  }

  private tokenizer(name: string, analysis: Json): TokenizeFn {
    const def: Json | undefined = analysis.tokenizer?.[name];
    if (def) {
      if (def.type === 'standard') return standardTok(def.max_token_length ?? 255);
      const t = TOKENIZERS[def.type];
      if (t) return t;
    }
    const t = TOKENIZERS[name];
    if (!t) throw new InvalidArgumentError('INVALID_ARGUMENT', `failed to find tokenizer under [${name}]`);
    return t;
  }

  private filter(name: string, analysis: Json): FilterFn {
    const def: Json | undefined = analysis.filter?.[name];
    if (def) {
      if (def.type === 'stop') return stopFilter(stopSet(def.stopwords));
      const f = FILTERS[def.type];
      if (f) return f;
    }
    const f = FILTERS[name];
    if (!f) throw new InvalidArgumentError('INVALID_ARGUMENT', `failed to find filter under [${name}]`);
    return f;
  }
}
