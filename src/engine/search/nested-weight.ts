/**
 * `nested`: runs the inner query over the hidden child docs of `path` and joins each matching child to its
 * parent doc, combining child scores with `score_mode` (avg default, max, min, sum, none → 0).
 */
import { NO_MORE_DOCS } from '../postings/cursor.ts';
import type { Segment } from '../postings/segment.ts';
import type { Query } from './query-ast.ts';
import { ArrayScorer, type Scorer } from './scorers.ts';
import { NULL_WEIGHT, type CompileContext, type Weight } from './weight.ts';
import { esPretty, queryShardError } from './shard-errors.ts';

type NestedQ = Extract<Query, { type: 'nested' }>;
type CompileFn = (q: Query, ctx: CompileContext, boost: number) => Weight;

export function nestedWeight(ctx: CompileContext, q: NestedQ, boost: number, compile: CompileFn): Weight {
  const kind = ctx.reader.infos.objects.get(q.path);
  if (kind !== 'nested') {
    if (q.ignoreUnmapped && kind === undefined) return NULL_WEIGHT;
    const echo = esPretty({ nested: { query: q.source && (q.source as Record<string, unknown>).query, path: q.path, ignore_unmapped: q.ignoreUnmapped, score_mode: q.scoreMode, boost: q.boost } });
    const cause = kind === undefined ? `[nested] failed to find nested object under path [${q.path}]` : `[nested] nested object under path [${q.path}] is not of nested type`;
    throw queryShardError(ctx, `failed to create query: ${echo}`, { code: 'SEARCH_ILLEGAL_STATE', message: cause });
  }
  const inner = compile(q.query, ctx, boost);
  return {
    scorer(ord: number, seg: Segment): Scorer | null {
      const s = inner.scorer(ord, seg);
      if (!s) return null;
      const live = ctx.reader.live[ord];
      const parents: number[] = [], scores: number[] = [];
      let curParent = -1, acc = 0, n = 0;
      const flush = (): void => {
        if (curParent < 0) return;
        let v: number;
        switch (q.scoreMode) {
          case 'avg': v = acc / n; break;
          case 'none': v = 0; break;
          default: v = acc;
        }
        parents.push(curParent); scores.push(Math.fround(v));
      };
      if (!seg.hasNested) return null;
      const parentOf = seg.parentOf();
      for (let d = s.next(); d !== NO_MORE_DOCS; d = s.next()) {
        if (seg.pathOf(d) !== q.path || (live && !live[d])) continue;
        const p = parentOf[d];
        const sc = s.score();
        if (p !== curParent) { flush(); curParent = p; acc = q.scoreMode === 'min' || q.scoreMode === 'max' ? sc : 0; n = 0; }
        if (q.scoreMode === 'max') acc = Math.max(acc, sc);
        else if (q.scoreMode === 'min') acc = Math.min(acc, sc);
        else acc += sc;
        n++;
      }
      flush();
      if (!parents.length) return null;
      // Children precede their parent and blocks are contiguous, so parents come out ascending.
      return new ArrayScorer(Uint32Array.from(parents), Float32Array.from(scores));
    },
  };
}
