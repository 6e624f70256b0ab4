/** The query thread's task: a query's received buffers are freed once it is answered, when they are large. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { valueSymbol } from 'piscina';
import runQuery from './query.ts';
import { outOfBand, packWithViews, transferList, unpackWithViews } from '../engine/codec/msgpack.ts';
import { packSelect, type PackedSelect } from '../engine/tsdb/packed-series.ts';
import { QUERY_CONTROL_WORDS, type BatchMessage, type CallResult, type PromqlEvalArgs, type PromqlEvalReply } from './protocol.ts';

/** `n` series of `samples` samples each (t = 15 s apart, values varying so the chunks do not compress to nothing). */
function selection(n: number, samples: number): PackedSelect {
  const got = Array.from({ length: n }, (_, i) => {
    const t = new Float64Array(samples), v = new Float64Array(samples);
    for (let k = 0; k < samples; k++) { t[k] = k * 15_000; v[k] = Math.sin(k * (i + 1)) * 1000 + i; }
    return { labels: [{ name: '__name__', value: 'x' }, { name: 'i', value: String(i).padStart(4, '0') }], t, v };
  });
  const p = packSelect(got, true);
  return { ...p, refs: outOfBand(p.refs), lOff: outOfBand(p.lOff), cOff: outOfBand(p.cOff), bStart: outOfBand(p.bStart), bEnd: outOfBand(p.bEnd), data: outOfBand(p.data) };
}

function evaluate(sel: PackedSelect, atMs: number): { json: string; received: ArrayBuffer[]; bytes: number } {
  const args: Omit<PromqlEvalArgs, 'cancel'> = {
    query: 'count(x)', kind: 'instant', startMs: atMs, endMs: atMs, stepMs: 0, deadlineMs: Date.now() + 60_000,
    lookbackMs: 300_000, maxSamples: 50_000_000, defaultSubqueryStepMs: 60_000, selected: [[sel]],
  };
  const batch: BatchMessage = packWithViews([{ op: 'promql.eval', args }]);
  const received = transferList(batch);
  const bytes = received.reduce((n, b) => n + b.byteLength, 0);
  const out = runQuery({ batch, control: new SharedArrayBuffer(4 * QUERY_CONTROL_WORDS) }) as Record<symbol, BatchMessage>;
  const [result] = unpackWithViews<CallResult[]>(out[valueSymbol]);
  assert.ok(result.ok, JSON.stringify(result));
  // The data part of the envelope (the HTTP thread closes it).
  return { json: Buffer.from((result.value as PromqlEvalReply).json).toString(), received, bytes };
}

test('a query whose received data is large frees it once answered; a small one leaves it to the collector', () => {
  const big = evaluate(selection(100, 8_000), 8_000 * 15_000 - 15_000);
  assert.equal(big.json, '{"resultType":"vector","result":[{"metric":{},"value":[119985,"100"]}]');
  assert.ok(big.bytes >= 4 * 1024 * 1024, `${big.bytes} bytes`);
  assert.ok(big.received.length > 1);
  for (const b of big.received) assert.equal(b.byteLength, 0, 'a received buffer still holds its bytes');

  const small = evaluate(selection(3, 100), 99 * 15_000);
  assert.equal(small.json, '{"resultType":"vector","result":[{"metric":{},"value":[1485,"3"]}]');
  assert.ok(small.received.every((b) => b.byteLength > 0), 'a small query\'s buffers were released');
});
