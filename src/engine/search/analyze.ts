/**
 * `_analyze`: runs a named analyzer, a field's analyzer, or an ad-hoc tokenizer + filters chain over one or
 * several texts and returns ES's token list (`token`, `start_offset`, `end_offset`, `type`, `position`).
 */
import { AnalyzerRegistry } from '../analysis/analyzers.ts';
import { TokenBuf, type Token } from '../analysis/token-buf.ts';
import { InvalidArgumentError } from '../errors.ts';
import type { MappingJson } from './api.ts';
import { FieldInfos } from '../indexing/field-infos.ts';
import { POSITION_INCREMENT_GAP } from '../indexing/doc-indexer.ts';

export interface AnalyzeArgs {
  settings?: Record<string, unknown>;
  mapping?: MappingJson | null;
  index?: string;
  analyzer?: string;
  tokenizer?: string | Record<string, unknown>;
  filter?: unknown[];
  field?: string;
  text: string | string[];
}

const registries = new Map<string, AnalyzerRegistry>();

function registry(settings: Record<string, unknown> | undefined): AnalyzerRegistry {
  const key = JSON.stringify(settings ?? {});
  let r = registries.get(key);
  if (!r) { r = new AnalyzerRegistry(settings ?? {}); if (registries.size > 64) registries.clear(); registries.set(key, r); }
  return r;
}

export function analyzeRequest(a: AnalyzeArgs): { tokens: Token[] } {
  const reg = registry(a.settings);
  let analyzer;
  if (a.tokenizer !== undefined) {
    const tok = typeof a.tokenizer === 'string' ? a.tokenizer : '__tok';
    const analysis: Record<string, unknown> = {
      analyzer: { __adhoc: { type: 'custom', tokenizer: tok, filter: (a.filter ?? []).map((f, i) => (typeof f === 'string' ? f : `__f${i}`)) } },
      tokenizer: typeof a.tokenizer === 'string' ? {} : { __tok: a.tokenizer },
      filter: Object.fromEntries((a.filter ?? []).map((f, i) => [`__f${i}`, f]).filter(([, f]) => typeof f !== 'string')),
    };
    const base = (a.settings ?? {}) as Record<string, any>;
    const merged = { ...base, analysis: { ...(base.analysis ?? {}), ...analysis, analyzer: { ...(base.analysis?.analyzer ?? {}), ...(analysis.analyzer as object) } } };
    analyzer = new AnalyzerRegistry(merged).get('__adhoc');
  } else {
    let name = a.analyzer;
    if (!name && a.field) {
      const fi = new FieldInfos(a.mapping ?? null).get(a.field);
      name = fi ? (fi.type === 'text' ? fi.analyzer : 'keyword') : 'standard';
    }
    name ??= 'standard';
    analyzer = reg.get(name);
    if (!analyzer) throw new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', a.index ? `failed to find analyzer [${name}]` : `failed to find global analyzer [${name}]`);
  }
  const buf = new TokenBuf();
  analyzer!.analyzeValues([a.text].flat().map(String), buf, POSITION_INCREMENT_GAP);
  return { tokens: buf.toTokens() };
}
