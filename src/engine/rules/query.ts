/**
 * Rule queries over an in-process `Querier` (tests, and the fallback when no worker path is wired):
 * Prometheus's `EngineQueryFunc`, which accepts vector and scalar results only.
 */
import type { Expr } from '../promql/ast.ts';
import { DEFAULT_ENGINE_OPTIONS, instantQuery, type EngineOptions } from '../promql/engine.ts';
import type { QueryResult, Vector } from '../promql/value.ts';
import type { FetchedSeries, Matcher, Querier } from '../tsdb/api.ts';
import { labelsKey, type QueryFn } from './rule.ts';

/** A scalar becomes one sample with no labels; matrices and strings are refused. */
export function resultToVector(r: QueryResult): Vector {
  if (r.type === 'vector') return r.vector;
  if (r.type === 'scalar') return [{ metric: [], t: r.t, v: r.v }];
  throw new Error('rule result is not a vector or scalar');
}

export function querierQueryFn(querier: () => Querier, opts: EngineOptions = DEFAULT_ENGINE_OPTIONS): QueryFn {
  return async (expr: Expr, tMs: number) => resultToVector(instantQuery(querier(), expr, tMs, opts));
}

export interface SelectorWindow { matchers: readonly Matcher[]; mintMs: number; maxtMs: number }

/**
 * Every selector of `expr` with the time window an instant evaluation at `tMs` reads (lookback for instant
 * selectors, the range for range selectors, shifted by `offset`, pinned by `@`, widened by subqueries),
 * so the caller can fetch exactly that data and evaluate next to it.
 */
export function selectorWindows(expr: Expr, tMs: number, lookbackMs: number): SelectorWindow[] {
  const out: SelectorWindow[] = [];
  const at = (n: { timestamp: number | null; startOrEnd: 'start' | 'end' | null }): number | null =>
    n.timestamp ?? (n.startOrEnd !== null ? tMs : null);
  const visit = (e: Expr, lo: number, hi: number): void => {
    switch (e.kind) {
      case 'vector': case 'matrix': {
        const vs = e.kind === 'vector' ? e : e.vs;
        const back = e.kind === 'vector' ? lookbackMs : e.range;
        const t = at(vs);
        out.push({ matchers: vs.matchers, mintMs: (t ?? lo) - vs.offset - back, maxtMs: (t ?? hi) - vs.offset });
        break;
      }
      case 'subquery': { const t = at(e); visit(e.expr, (t ?? lo) - e.offset - e.range, (t ?? hi) - e.offset); break; }
      case 'paren': case 'unary': visit(e.expr, lo, hi); break;
      case 'binary': visit(e.lhs, lo, hi); visit(e.rhs, lo, hi); break;
      case 'aggregate': if (e.param) visit(e.param, lo, hi); visit(e.expr, lo, hi); break;
      case 'call': for (const a of e.args) visit(a, lo, hi); break;
      default: break;
    }
  };
  visit(expr, tMs, tMs);
  return out;
}

/** One series per label set; samples of a series fetched for several windows are united. */
export function mergeFetched(lists: readonly (readonly FetchedSeries[])[]): FetchedSeries[] {
  const byKey = new Map<string, FetchedSeries>();
  for (const list of lists) {
    for (const s of list) {
      const k = labelsKey(s.labels);
      const old = byKey.get(k);
      byKey.set(k, old ? unite(old, s) : s);
    }
  }
  return [...byKey.values()];
}

function unite(a: FetchedSeries, b: FetchedSeries): FetchedSeries {
  const t = new Float64Array(a.t.length + b.t.length), v = new Float64Array(t.length);
  let i = 0, j = 0, n = 0;
  while (i < a.t.length || j < b.t.length) {
    if (j >= b.t.length || (i < a.t.length && a.t[i] < b.t[j])) { t[n] = a.t[i]; v[n++] = a.v[i++]; }
    else if (i >= a.t.length || b.t[j] < a.t[i]) { t[n] = b.t[j]; v[n++] = b.v[j++]; }
    else { t[n] = a.t[i]; v[n++] = a.v[i++]; j++; }
  }
  return { labels: a.labels, t: t.subarray(0, n), v: v.subarray(0, n) };
}
