/**
 * `promql.eval`: evaluates a query next to the data in a shard worker, over the series the main thread
 * fetched for it, and returns the encoded `data` JSON so the HTTP thread only wraps the envelope.
 */
import type { TaskTable } from './protocol.ts';
import { parseExpr, instantQuery, rangeQuery, resultJsonOpen, matrixJson } from '../engine/promql/index.ts';
import type { EngineOptions } from '../engine/promql/index.ts';
import { MemQuerier } from '../engine/tsdb/mem-querier.ts';
import type { FetchedSeries } from '../engine/tsdb/api.ts';

export interface PromqlEvalArgs {
  query: string;
  kind: 'instant' | 'range';
  startMs: number;
  endMs: number;
  stepMs: number;
  /** Absolute deadline (ms since the epoch) shared with the main thread. */
  deadlineMs: number;
  lookbackMs: number;
  maxSamples: number;
  defaultSubqueryStepMs: number;
  series: FetchedSeries[];
}

export interface PromqlEvalReply { json: string }

export const promqlTasks: TaskTable = {
  'promql.eval': (a: PromqlEvalArgs): PromqlEvalReply => {
    const expr = parseExpr(a.query);
    const q = new MemQuerier(a.series.map((s) => ({ labels: s.labels, t: toF64(s.t), v: toF64(s.v) })));
    const opts: EngineOptions = {
      lookbackMs: a.lookbackMs, maxSamples: a.maxSamples, defaultSubqueryStepMs: a.defaultSubqueryStepMs,
      timeoutMs: Math.max(0, a.deadlineMs - Date.now()),
    };
    if (a.kind === 'range') return { json: matrixJson(rangeQuery(q, expr, a.startMs, a.endMs, a.stepMs, opts)) };
    return { json: resultJsonOpen(instantQuery(q, expr, a.startMs, opts)) };
  },
};

/** msgpack may hand typed arrays back as plain arrays or byte views; normalise to Float64Array. */
function toF64(x: unknown): Float64Array {
  if (x instanceof Float64Array) return x;
  if (x instanceof Uint8Array) return new Float64Array(x.buffer.slice(x.byteOffset, x.byteOffset + x.byteLength));
  return Float64Array.from(x as number[]);
}
