/**
 * `rules.eval`: evaluates a rule's expression at one time next to the data the main thread fetched for it,
 * returning the instant vector (a scalar as one unlabelled sample) as plain samples.
 */
import type { TaskSubset } from './protocol.ts';
import { parseExpr } from '../engine/promql/parser.ts';
import { instantQuery } from '../engine/promql/engine.ts';
import { MemQuerier } from '../engine/tsdb/mem-querier.ts';
import { resultToVector } from '../engine/rules/query.ts';

export const rulesTasks = {
  'rules.eval': (a) => {
    const q = new MemQuerier(a.series.map((s) => ({ labels: s.labels, t: toF64(s.t), v: toF64(s.v) })));
    const r = instantQuery(q, parseExpr(a.query), a.tMs, {
      lookbackMs: a.lookbackMs, maxSamples: a.maxSamples, timeoutMs: a.timeoutMs, defaultSubqueryStepMs: 60_000,
    });
    return resultToVector(r).map((s) => ({ labels: s.metric, v: s.v }));
  },
} satisfies TaskSubset;

/** msgpack may hand typed arrays back as plain arrays or byte views; normalise to Float64Array. */
function toF64(x: unknown): Float64Array {
  if (x instanceof Float64Array) return x;
  if (x instanceof Uint8Array) return new Float64Array(x.buffer.slice(x.byteOffset, x.byteOffset + x.byteLength));
  return Float64Array.from(x as number[]);
}
