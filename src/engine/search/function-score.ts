/**
 * `function_score` basics: `weight` and `field_value_factor` functions (optionally filtered), combined by
 * `score_mode`, capped by `max_boost`, merged with the query score by `boost_mode`, then `min_score`.
 */
import type { NumericDocValues, Segment } from '../postings/segment.ts';
import type { FunctionScoreQuery, Query } from './query-ast.ts';
import { FilteredScorer, MappedScorer, type Scorer } from './scorers.ts';
import type { CompileContext, Weight } from './weight.ts';
import { queryShardError } from './shard-errors.ts';

type CompileFn = (q: Query, ctx: CompileContext, boost: number) => Weight;

const MODIFIERS: Record<string, (x: number) => number> = {
  none: (x) => x, log: Math.log10, log1p: (x) => Math.log10(x + 1), log2p: (x) => Math.log10(x + 2), ln: Math.log,
  ln1p: Math.log1p, ln2p: (x) => Math.log(x + 2), square: (x) => x * x, sqrt: Math.sqrt, reciprocal: (x) => 1 / x,
};

export function functionScoreWeight(ctx: CompileContext, q: FunctionScoreQuery, boost: number, compile: CompileFn): Weight {
  const inner = compile(q.query, ctx, boost);
  const filters = q.functions.map((fn) => (fn.filter ? compile(fn.filter, ctx, 1) : null));
  return {
    scorer(ord: number, seg: Segment): Scorer | null {
      const s = inner.scorer(ord, seg);
      if (!s) return null;
      const fs = filters.map((w) => (w ? w.scorer(ord, seg) : null));
      // Columns resolved once per segment, not per doc.
      const columns = q.functions.map((fn) => (fn.fieldValueFactor ? seg.numeric(fn.fieldValueFactor.field) : null));
      const mapped = new MappedScorer(s, (doc, score) => {
        const vals: number[] = [];
        for (let i = 0; i < q.functions.length; i++) {
          const fn = q.functions[i];
          const fc = fs[i];
          if (filters[i]) { if (!fc || (fc.doc() < doc ? fc.seek(doc) : fc.doc()) !== doc) continue; }
          let v = 1;
          if (fn.fieldValueFactor) v = fieldValueFactor(ctx, columns[i], doc, fn.fieldValueFactor);
          if (fn.weight !== undefined) v *= fn.weight;
          vals.push(v);
        }
        let factor: number;
        if (vals.length === 0) factor = 1;
        else switch (q.scoreMode) {
          case 'sum': factor = vals.reduce((a, b) => a + b, 0); break;
          case 'avg': factor = vals.reduce((a, b) => a + b, 0) / vals.length; break;
          case 'first': factor = vals[0]; break;
          case 'max': factor = Math.max(...vals); break;
          case 'min': factor = Math.min(...vals); break;
          default: factor = vals.reduce((a, b) => a * b, 1);
        }
        factor = Math.min(factor, q.maxBoost);
        let out: number;
        switch (q.boostMode) {
          case 'replace': out = factor; break;
          case 'sum': out = score + factor; break;
          case 'avg': out = (score + factor) / 2; break;
          case 'max': out = Math.max(score, factor); break;
          case 'min': out = Math.min(score, factor); break;
          default: out = score * factor;
        }
        return Math.fround(out);
      });
      if (q.minScore === undefined) return mapped;
      const min = q.minScore;
      return new FilteredScorer(mapped, () => mapped.score() >= min);
    },
  };
}

function fieldValueFactor(ctx: CompileContext, dv: NumericDocValues | null, doc: number, f: { field: string; factor: number; modifier: string; missing?: number }): number {
  let v: number;
  if (dv && dv.count(doc) > 0) v = dv.values[dv.start[doc]];
  else if (f.missing !== undefined) v = f.missing;
  else throw queryShardError(ctx, `Missing value for field [${f.field}]`);
  const m = MODIFIERS[f.modifier] ?? MODIFIERS.none;
  return m(v * f.factor);
}
