/**
 * `promql.eval`: evaluates a query next to the data in a shard worker, over the series the main thread
 * fetched for it, and returns the encoded `data` JSON so the HTTP thread only wraps the envelope.
 */
import type { TaskTable } from './protocol.ts';
import { parseExpr, instantQuery, rangeQuery, resultJsonOpen, matrixJson } from '../engine/promql/index.ts';
import type { EngineOptions } from '../engine/promql/index.ts';
import { MemQuerier } from '../engine/tsdb/mem-querier.ts';
import { unpackSeries } from '../engine/tsdb/packed-series.ts';
import type { PackedSeries } from '../engine/tsdb/packed-series.ts';

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
  series: PackedSeries;
}

/** The encoded `data` object without its closing brace, as UTF-8 bytes (bytes cross threads without re-encoding). */
export interface PromqlEvalReply { json: Uint8Array; evalMs: number }

export const promqlTasks: TaskTable = {
  'promql.eval': (a: PromqlEvalArgs): PromqlEvalReply => {
    const started = performance.now();
    const expr = parseExpr(a.query);
    const q = new MemQuerier(unpackSeries(a.series));
    const opts: EngineOptions = {
      lookbackMs: a.lookbackMs, maxSamples: a.maxSamples, defaultSubqueryStepMs: a.defaultSubqueryStepMs,
      timeoutMs: Math.max(0, a.deadlineMs - Date.now()),
    };
    const json = a.kind === 'range'
      ? matrixJson(rangeQuery(q, expr, a.startMs, a.endMs, a.stepMs, opts))
      : resultJsonOpen(instantQuery(q, expr, a.startMs, opts));
    return { json, evalMs: performance.now() - started };
  },
};
