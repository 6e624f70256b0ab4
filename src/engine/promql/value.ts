/** Evaluation values (after `promql/value.go`) and the errors evaluation raises. */
import type { Labels } from '../tsdb/api.ts';
import { EngineError, LimitExceededError, QueryCanceledError, QueryTimeoutError } from '../errors.ts';

/** One series of a matrix: parallel arrays, timestamps ascending (ms). */
/** One series of a range result (steps in `t`, ms, with their values); not the storage's `tsdb/api.ts` `Series`. */
export interface ResultSeries { metric: Labels; t: number[]; v: number[] }
export type Matrix = ResultSeries[];
/** One element of an instant vector. `t` is the sample's own timestamp where it matters (timestamp()). */
export interface Sample { metric: Labels; t: number; v: number }
export type Vector = Sample[];

export type QueryResult =
  | { type: 'vector'; vector: Vector; t: number }
  | { type: 'scalar'; v: number; t: number }
  | { type: 'matrix'; matrix: Matrix }
  | { type: 'string'; s: string; t: number };

/** An evaluation error Prometheus reports as errorType "execution" (HTTP 422). */
export class PromExecutionError extends EngineError {
  constructor(message: string) { super('PROMQL_EXECUTION', message); }
}

export function execError(msg: string): PromExecutionError { return new PromExecutionError(msg); }
export function tooManySamples(): LimitExceededError {
  return new LimitExceededError('LIMIT_EXCEEDED', 'query processing would load too many samples into memory in query execution');
}
export function canceledError(where: string): QueryCanceledError {
  return new QueryCanceledError('QUERY_CANCELED', `query was canceled in ${where}`);
}

export function timeoutError(where: string): QueryTimeoutError {
  return new QueryTimeoutError('QUERY_TIMEOUT', `query timed out in ${where}`);
}

export { isStaleNaN, STALE_NAN } from '../tsdb/api.ts';
