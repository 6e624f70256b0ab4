/**
 * The `script` query: a filter that runs a painless script against every document of a segment and keeps
 * those for which it returns true, with a constant score of the query's boost (ES 6.8's `ScriptQuery`).
 * Deleted documents and nested children are skipped before the script runs, so a script never sees a doc
 * the search could not return.
 */
import { AllCursor } from '../postings/cursor.ts';
import type { Segment } from '../postings/segment.ts';
import type { ScriptSpec } from '../documents/painless.ts';
import { ConstScorer, FilteredScorer, type Scorer } from './scorers.ts';
import { DocLookup, SearchScript } from './script-doc.ts';
import type { CompileContext, Weight } from './weight.ts';

export function scriptQueryWeight(ctx: CompileContext, spec: ScriptSpec, boost: number): Weight {
  // Compiled when the query is bound to the shard: a compile error fails the shard, as in ES.
  const script = new SearchScript(spec, 'boolean');
  return {
    scorer(ord: number, seg: Segment): Scorer | null {
      const lookup = new DocLookup(seg, ctx.reader.infos, ctx.type ?? '_doc');
      const live = ctx.reader.segments[ord] === seg ? ctx.reader.live[ord] : null;
      const parentOf = seg.hasNested ? seg.parentOf() : null;
      const accept = (d: number): boolean => {
        if ((live !== null && live[d] === 0) || (parentOf !== null && parentOf[d] !== -1)) return false;
        return script.run(lookup, d, 0) === true;
      };
      return new FilteredScorer(new ConstScorer(new AllCursor(seg.maxDoc), boost), accept);
    },
  };
}
