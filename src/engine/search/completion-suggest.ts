/**
 * The `completion` suggester (ES 6.8): the prefix, analysed with the field's search analyzer, is looked up in
 * the field's completion terms (`indexing/completion-terms.ts`) by a term-dictionary range scan; each matching
 * live document is an option scored by its input's weight, once per document (its best input), best first
 * (ties: input text, then document order). `fuzzy` accepts keys whose prefix is within `fuzziness` edits of the
 * lookup key (sharing its first `prefix_length` characters; keys shorter than `min_length` match exactly
 * only) and scores weight × the length of the common exact prefix, as Lucene's FuzzyCompletionQuery.
 * `skip_duplicates` keeps one option per input text. Options carry the hit (`_index`, `_type`, `_id`, `_source`).
 */
import { InvalidArgumentError, ParseError } from '../errors.ts';
import { decodeCompletion, completionKey } from '../indexing/completion-terms.ts';
import { editDistance } from './fuzzy.ts';
import { locOfKey } from './json-pos.ts';
import { parsingError } from './query-parser.ts';
import type { CompileContext } from './weight.ts';

export interface CompletionOptions {
  field: string;
  analyzer: string | null;
  size: number;
  skipDuplicates: boolean;
  /** Null without `fuzzy`; fuzziness -1 = AUTO. */
  fuzzy: { fuzziness: number; transpositions: boolean; minLength: number; prefixLength: number } | null;
}

/** One completion option: the input that matched, its score and the document. */
export interface CompletionOption { text: string; score: number; index: string; type: string; id: string; source: string | null; shardDoc: number }

type Obj = Record<string, unknown>;
const isObj = (v: unknown): v is Obj => typeof v === 'object' && v !== null && !Array.isArray(v);
const illegal = (msg: string): InvalidArgumentError => new InvalidArgumentError('SEARCH_ILLEGAL_ARGUMENT', msg);

export function parseCompletionOptions(o: Obj): CompletionOptions {
  const c: CompletionOptions = { field: '', analyzer: null, size: 5, skipDuplicates: false, fuzzy: null };
  let field: string | null = null;
  for (const [k, v] of Object.entries(o)) {
    switch (k) {
      case 'field': field = String(v); break;
      case 'analyzer': c.analyzer = String(v); break;
      case 'size': { const n = Number(v); if (!(n > 0)) throw illegal('size must be positive'); c.size = Math.trunc(n); break; }
      case 'shard_size': break;
      case 'skip_duplicates': c.skipDuplicates = v === true || v === 'true'; break;
      case 'fuzzy': c.fuzzy = parseFuzzy(v, o, k); break;
      case 'contexts': throw parsingError('[completion] contexts are not supported by this server (the field has no context mappings)', locOfKey(o, k));
      default: throw parsingError(`[completion] unknown field [${k}], parser not found`, locOfKey(o, k));
    }
  }
  if (field === null) throw new ParseError('PARSE', 'the required field option [field] is missing');
  c.field = field;
  return c;
}

function parseFuzzy(v: unknown, o: Obj, k: string): CompletionOptions['fuzzy'] {
  const f = { fuzziness: -1, transpositions: true, minLength: 3, prefixLength: 1 };
  if (v === false || v === 'false') return null;
  if (v === true || v === 'true') return f;
  if (!isObj(v)) throw parsingError('[fuzzy] failed to parse', locOfKey(o, k));
  for (const [key, x] of Object.entries(v)) {
    switch (key) {
      case 'fuzziness': {
        const s = String(x).toUpperCase();
        f.fuzziness = s === 'AUTO' ? -1 : Number(s);
        if (f.fuzziness !== -1 && !(f.fuzziness >= 0 && f.fuzziness <= 2)) throw illegal(`Valid edit distances are [0, 1, 2] but was [${String(x)}]`);
        break;
      }
      case 'transpositions': f.transpositions = x === true || x === 'true'; break;
      case 'min_length': f.minLength = Number(x); break;
      case 'prefix_length': f.prefixLength = Number(x); break;
      case 'unicode_aware': break;
      default: throw parsingError(`[fuzzy] unknown field [${key}], parser not found`, locOfKey(v, key));
    }
  }
  return f;
}

const entry = { key: '', weight: 0, input: '' };

/** This shard's best options for `prefix` (at most `size`). */
export function completeShard(ctx: CompileContext, o: CompletionOptions, prefix: string, withSource: boolean): CompletionOption[] {
  const fi = ctx.field(o.field);
  if (!fi) throw illegal(`no mapping found for field [${o.field}]`);
  if (fi.type !== 'completion') throw illegal(`Field [${o.field}] is not a completion suggest field`);
  const analyzerName = o.analyzer ?? fi.searchAnalyzer;
  const analyzer = ctx.reader.analyzers.get(analyzerName);
  if (!analyzer) throw illegal(`analyzer [${analyzerName}] doesn't exists`);
  // The lookup key keeps the field's separators (a trailing separator is the user's space after a whole word).
  const key = completionKey(analyzer, prefix, fi.completion);
  const maxEdits = o.fuzzy === null || key.length < o.fuzzy.minLength ? 0
    : o.fuzzy.fuzziness >= 0 ? o.fuzzy.fuzziness : key.length <= 2 ? 0 : key.length <= 5 ? 1 : 2;
  const scan = maxEdits === 0 ? key : key.slice(0, Math.min(o.fuzzy?.prefixLength ?? 0, key.length));
  const best = new Map<number, { score: number; text: string }>();
  for (let ord = 0; ord < ctx.reader.segments.length; ord++) {
    const seg = ctx.reader.segments[ord];
    const fp = seg.field(o.field);
    if (!fp) continue;
    const live = ctx.reader.live[ord], base = ctx.reader.docBases[ord];
    for (let t = fp.seekCeil(scan); t < fp.numTerms; t++) {
      const term = fp.term(t);
      if (!term.startsWith(scan)) break;
      decodeCompletion(term, entry);
      const score = maxEdits === 0 ? (entry.key.startsWith(key) ? entry.weight : -1) : fuzzyScore(key, entry.key, entry.weight, maxEdits, o.fuzzy!.transpositions);
      if (score < 0) continue;
      const p = fp.postings(t, false);
      for (let i = p.start; i < p.end; i++) {
        const d = p.docs[i];
        if (live !== null && live[d] === 0) continue;
        const cur = best.get(base + d);
        if (!cur || score > cur.score || (score === cur.score && entry.input < cur.text)) best.set(base + d, { score, text: entry.input });
      }
    }
  }
  const ranked = [...best].map(([doc, b]) => ({ doc, ...b })).sort((a, b) => b.score - a.score || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0) || a.doc - b.doc);
  const out: CompletionOption[] = [];
  const seen = new Set<string>();
  for (const r of ranked) {
    if (out.length >= o.size) break;
    if (o.skipDuplicates) { if (seen.has(r.text)) continue; seen.add(r.text); }
    const st = ctx.reader.stored(r.doc);
    out.push({ text: r.text, score: Math.fround(r.score), index: ctx.index, type: ctx.type ?? '_doc', id: st.id,
      source: withSource ? Buffer.from(st.source.buffer, st.source.byteOffset, st.source.byteLength).toString('utf8') : null, shardDoc: r.doc });
  }
  return out;
}

/**
 * Lucene's FuzzyCompletionQuery on one key: some prefix of `candidate` within `maxEdits` of `key`; the score is
 * the weight times the longest exact common prefix (the weight alone when that is empty). -1 when no match.
 */
function fuzzyScore(key: string, candidate: string, weight: number, maxEdits: number, transpositions: boolean): number {
  const q = [...key].map((c) => c.codePointAt(0)!);
  const c = [...candidate].map((x) => x.codePointAt(0)!);
  let matched = false;
  for (let len = Math.max(0, q.length - maxEdits); len <= Math.min(c.length, q.length + maxEdits); len++) {
    if (editDistance(q, c.slice(0, len), maxEdits, transpositions) <= maxEdits) { matched = true; break; }
  }
  if (!matched) return -1;
  let common = 0;
  while (common < q.length && common < c.length && q[common] === c[common]) common++;
  return common === 0 ? weight : weight * common;
}

/** Coordinator: every shard's options, best first (ties: text, then shard order), duplicates dropped if asked, `size` kept. */
export function reduceCompletion(o: CompletionOptions, perShard: CompletionOption[][]): CompletionOption[] {
  const all: { opt: CompletionOption; shard: number }[] = [];
  perShard.forEach((list, shard) => { for (const opt of list) all.push({ opt, shard }); });
  all.sort((a, b) => b.opt.score - a.opt.score || (a.opt.text < b.opt.text ? -1 : a.opt.text > b.opt.text ? 1 : 0) || a.shard - b.shard || a.opt.shardDoc - b.opt.shardDoc);
  const out: CompletionOption[] = [];
  const seen = new Set<string>();
  for (const { opt } of all) {
    if (out.length >= o.size) break;
    if (o.skipDuplicates) { if (seen.has(opt.text)) continue; seen.add(opt.text); }
    out.push(opt);
  }
  return out;
}
