/**
 * The storage reads a query needs: every selector with the inclusive time range its evaluation will look at
 * (after Prometheus's `getTimeRangesForSelector`), so the caller can fetch exactly that data before evaluating.
 */
import type { Matcher } from '../tsdb/api.ts';
import type { Expr, VectorSelector } from './ast.ts';

export interface SelectorRange { matchers: readonly Matcher[]; mintMs: number; maxtMs: number }

export interface RangeOptions {
  lookbackMs: number;
  defaultSubqueryStepMs: number;
  /** The times `@ start()` and `@ end()` stand for, when not `startMs`/`endMs` (see `EngineOptions`). */
  atStartMs?: number;
  atEndMs?: number;
}

/** Lists each selector of `expr` with the `[mint, maxt]` it reads when evaluated over `[startMs, endMs]`. */
export function selectorRanges(expr: Expr, startMs: number, endMs: number, opts: RangeOptions): SelectorRange[] {
  const out: SelectorRange[] = [];
  const atStartMs = opts.atStartMs ?? startMs, atEndMs = opts.atEndMs ?? endMs;
  const at = (n: { timestamp: number | null; startOrEnd: 'start' | 'end' | null }): number | null =>
    n.timestamp ?? (n.startOrEnd === 'start' ? atStartMs : n.startOrEnd === 'end' ? atEndMs : null);
  const selector = (vs: VectorSelector, lo: number, hi: number, back: number): void => {
    const t = at(vs);
    out.push({ matchers: vs.matchers, mintMs: (t ?? lo) - vs.offset - back, maxtMs: (t ?? hi) - vs.offset });
  };
  const visit = (e: Expr, lo: number, hi: number): void => {
    switch (e.kind) {
      case 'vector': selector(e, lo, hi, opts.lookbackMs); break;
      case 'matrix': selector(e.vs, lo, hi, e.range); break;
      case 'subquery': {
        const t = at(e);
        visit(e.expr, (t ?? lo) - e.offset - e.range, (t ?? hi) - e.offset);
        break;
      }
      case 'paren': case 'unary': visit(e.expr, lo, hi); break;
      case 'binary': visit(e.lhs, lo, hi); visit(e.rhs, lo, hi); break;
      case 'aggregate': if (e.param) visit(e.param, lo, hi); visit(e.expr, lo, hi); break;
      case 'call': for (const a of e.args) visit(a, lo, hi); break;
      default: break;
    }
  };
  visit(expr, startMs, endMs);
  return out;
}
