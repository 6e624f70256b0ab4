/**
 * Completion fields (ES 6.8's `completion` type) stored as ordinary terms of the field: each input becomes
 * the term `key \0 weight \0 input`, where `key` is the input analysed with the field's analyzer, its tokens
 * joined by the separator label (U+001F, ES's `preserve_separators`) or run together. Terms sort by key, so a
 * prefix lookup is a term-dictionary range scan, and the weight and the input's surface form come back with
 * the term: no new segment structure is needed (Lucene keeps an FST with the same three parts).
 */
import type { Analyzer } from '../analysis/analyzers.ts';
import { TokenBuf } from '../analysis/token-buf.ts';

export interface CompletionKeyOptions { preserveSeparators: boolean; maxInputLength: number }

/** Lucene's CompletionAnalyzer separator label. */
export const COMPLETION_SEP = '\u001f';

/** The inputs and weight of one completion value: `"text"`, or `{input: text | [texts], weight}` (weight 1 by default). */
export function completionInputs(v: unknown): { inputs: string[]; weight: number } {
  if (typeof v !== 'object' || v === null) return { inputs: [String(v)], weight: 1 };
  const o = v as Record<string, unknown>;
  const inputs = ([] as unknown[]).concat(o.input ?? []).filter((x) => x !== null && x !== undefined).map(String);
  const w = o.weight === undefined ? 1 : Number(typeof o.weight === 'object' ? String(o.weight) : o.weight);
  return { inputs, weight: w };
}

const tokens = new TokenBuf();

/** The lookup key of `text`: analysed (input cut to `maxInputLength` first), tokens joined as the field says. Not re-entrant. */
export function completionKey(analyzer: Analyzer, text: string, o: CompletionKeyOptions | null): string {
  const cut = o && text.length > o.maxInputLength ? text.slice(0, o.maxInputLength) : text;
  tokens.clear();
  analyzer.analyze(cut, tokens);
  return tokens.terms.slice(0, tokens.length).join(o?.preserveSeparators === false ? '' : COMPLETION_SEP);
}

export function encodeCompletion(key: string, weight: number, input: string): string {
  return `${key}\u0000${weight}\u0000${input}`;
}

/** Splits a stored completion term; `out` is reused. */
export function decodeCompletion(term: string, out: { key: string; weight: number; input: string }): void {
  const a = term.indexOf('\u0000'), b = term.indexOf('\u0000', a + 1);
  out.key = term.slice(0, a);
  out.weight = Number(term.slice(a + 1, b));
  out.input = term.slice(b + 1);
}
