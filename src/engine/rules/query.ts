/**
 * Rule queries over an in-process `Querier` (tests, and the fallback when no worker path is wired):
 * Prometheus's `EngineQueryFunc`, which accepts vector and scalar results only.
 */
import type { Expr } from '../promql/ast.ts';
import { DEFAULT_ENGINE_OPTIONS, instantQuery, type EngineOptions } from '../promql/engine.ts';
import type { QueryResult, Vector } from '../promql/value.ts';
import type { Querier } from '../tsdb/api.ts';
import type { QueryFn } from './rule.ts';

/** A scalar becomes one sample with no labels; matrices and strings are refused. */
export function resultToVector(r: QueryResult): Vector {
  if (r.type === 'vector') return r.vector;
  if (r.type === 'scalar') return [{ metric: [], t: r.t, v: r.v }];
  throw new Error('rule result is not a vector or scalar');
}

export function querierQueryFn(querier: () => Querier, opts: EngineOptions = DEFAULT_ENGINE_OPTIONS): QueryFn {
  return async (expr: Expr, tMs: number) => resultToVector(instantQuery(querier(), expr, tMs, opts));
}
