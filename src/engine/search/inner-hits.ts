/**
 * `inner_hits` of nested queries: for a top hit, the nested objects of `path` that match the inner query,
 * scored by it, best first (ties: array order), with their `_nested.offset` in the source array and their
 * own `_source` cut out of the parent's source losslessly.
 */
import { parse, stringify } from '../codec/lossless-json.ts';
import { NO_MORE_DOCS } from '../postings/cursor.ts';
import type { IndexReader } from './index-reader.ts';
import type { InnerHitsSpec, Query } from './query-ast.ts';
import { compile } from './query-compiler.ts';
import type { CompileContext, Weight } from './weight.ts';
import { filterSource } from './source-filter.ts';

type NestedQ = Extract<Query, { type: 'nested' }>;

export interface InnerHit { offset: number; score: number; source: string | null }
export interface InnerHitsResult { path: string; total: number; maxScore: number; hits: InnerHit[] }

/** Nested queries carrying `inner_hits`, anywhere in the tree. */
export function nestedWithInnerHits(q: Query | null, out: NestedQ[] = []): NestedQ[] {
  if (!q) return out;
  switch (q.type) {
    case 'nested': if (q.innerHits) out.push(q); break;
    case 'bool': for (const c of [...q.must, ...q.should, ...q.filter, ...q.mustNot]) nestedWithInnerHits(c, out); break;
    case 'constant_score': nestedWithInnerHits(q.filter, out); break;
    case 'dis_max': for (const c of q.queries) nestedWithInnerHits(c, out); break;
    case 'boosting': nestedWithInnerHits(q.positive, out); break;
    case 'function_score': nestedWithInnerHits(q.query, out); break;
    default: break;
  }
  return out;
}

function nestedSource(raw: string, path: string, offset: number, spec: InnerHitsSpec): string | null {
  if (!spec.sourceEnabled) return null;
  let v: unknown = parse(raw);
  for (const part of path.split('.')) {
    if (Array.isArray(v)) v = v[0];
    v = v && typeof v === 'object' ? (v as Record<string, unknown>)[part] : undefined;
  }
  const item = Array.isArray(v) ? v[offset] : offset === 0 ? v : undefined;
  if (item === undefined) return null;
  const text = stringify(item) ?? 'null';
  return spec.sourceIncludes ? filterSource(text, { enabled: true, includes: spec.sourceIncludes, excludes: [] }) : text;
}

export class InnerHitsFetcher {
  private readonly weights = new Map<NestedQ, Weight>();
  constructor(ctx: CompileContext, private readonly reader: IndexReader, private readonly queries: NestedQ[]) {
    for (const q of queries) this.weights.set(q, compile(q.query, ctx, 1));
  }

  /** Inner hits of global doc `doc` (a root doc) keyed by inner_hits name. */
  fetch(doc: number, rawSource: string | null): Record<string, InnerHitsResult> {
    const [ord, local] = this.reader.locate(doc);
    const seg = this.reader.segments[ord];
    const out: Record<string, InnerHitsResult> = {};
    for (const q of this.queries) {
      const spec = q.innerHits!;
      const children: number[] = [];
      if (seg.hasNested) {
        const parentOf = seg.parentOf();
        let first = local - 1;
        while (first >= 0 && parentOf[first] !== -1) first--;
        for (let c = first + 1; c < local; c++) if (parentOf[c] === local && seg.pathOf(c) === q.path) children.push(c);
      }
      const scorer = this.weights.get(q)!.scorer(ord, seg);
      const hits: InnerHit[] = [];
      children.forEach((c, offset) => {
        if (!scorer) return;
        const d = scorer.doc() < c ? scorer.seek(c) : scorer.doc();
        if (d === c && d !== NO_MORE_DOCS) hits.push({ offset, score: scorer.score(), source: null });
      });
      hits.sort((a, b) => b.score - a.score || a.offset - b.offset);
      const page = hits.slice(spec.from, spec.from + spec.size);
      for (const h of page) h.source = rawSource === null ? null : nestedSource(rawSource, q.path, h.offset, spec);
      out[spec.name] = { path: q.path, total: hits.length, maxScore: hits.length ? hits[0].score : NaN, hits: page };
    }
    return out;
  }
}
