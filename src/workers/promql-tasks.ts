/**
 * `promql.eval`: evaluates a query next to the data in a shard worker, over the series the main thread
 * fetched for it, and returns the encoded `data` JSON so the HTTP thread only wraps the envelope.
 */
import type { PromqlEvalReply, TaskSubset } from './protocol.ts';
import { outOfBand } from '../engine/codec/msgpack.ts';
import { parseExpr, instantQuery, rangeQuery, resultJsonOpen, matrixJson, SERIES_INDEX_FIELDS } from '../engine/promql/index.ts';
import type { EngineOptions } from '../engine/promql/index.ts';
import { MemQuerier } from '../engine/tsdb/mem-querier.ts';
import { mergeSelected, mergeSelections } from '../engine/tsdb/packed-series.ts';
import { DecodedSeriesBound } from '../engine/promql/decoded-series.ts';

export const promqlTasks = {
  'promql.eval': (a): PromqlEvalReply => {
    const started = performance.now();
    const expr = parseExpr(a.query);
    // Series stay as their chunks until the evaluation reads them (see DecodedSeriesBound).
    const q = new MemQuerier(mergeSelections(a.selected.map(mergeSelected)));
    const decoded = new DecodedSeriesBound();
    const opts: EngineOptions = {
      lookbackMs: a.lookbackMs, maxSamples: a.maxSamples, defaultSubqueryStepMs: a.defaultSubqueryStepMs,
      timeoutMs: Math.max(0, a.deadlineMs - Date.now()), cancel: a.cancel, decoded, atStartMs: a.atStartMs, atEndMs: a.atEndMs,
    };
    // The encoded result (megabytes for a long range query) is transferred rather than copied through msgpack.
    if (a.kind === 'instant') return { json: outOfBand(resultJsonOpen(instantQuery(q, expr, a.startMs, opts))), evalMs: performance.now() - started, samples: decoded.loaded };
    const m = rangeQuery(q, expr, a.startMs, a.endMs, a.stepMs, opts);
    const index = new Float64Array(m.length * SERIES_INDEX_FIELDS);
    const json = matrixJson(m, a.startMs, a.stepMs, index);
    return { json: outOfBand(json), evalMs: performance.now() - started, samples: decoded.loaded, index: outOfBand(index) };
  },
} satisfies TaskSubset;
