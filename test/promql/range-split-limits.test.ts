/**
 * A split range query (`server/prom/range-split.ts`) answers what the whole query answers at the sample
 * limit: each half gets half of `--query.max-samples`, and a half past it makes the node evaluate the query
 * whole. Evaluated in process (the routes over the test evaluator, told it has two threads).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SelfMetrics } from '../../src/server/self-metrics.ts';
import { call, setup, T0 } from './support.ts';

// The data (support.ts) runs from T0 - 1 h to T0 + 10 min: the later half's windows hold fewer samples
// than the earlier half's, so the halves count unequal shares of the query's samples.
const PATH = `/api/v1/query_range?query=${encodeURIComponent('max_over_time(demo_num_cpus[5m])')}&start=${(T0 - 3_300_000) / 1000}&end=${(T0 + 1_200_000) / 1000}&step=60`;

async function answer(maxSamples: number, split: boolean): Promise<{ status: number; body: string; splits: number }> {
  const metrics = new SelfMetrics();
  const router = setup({ maxSamples, metrics, threads: split ? 2 : 1, splitMinSteps: split ? 2 : 0 });
  const r = await call(router, 'GET', PATH);
  const splits = Number(/^tessera_engine_split_range_queries_total (\S+)$/m.exec(metrics.render())?.[1] ?? '0');
  return { status: r.status, body: String(r.body), splits };
}

test('at the sample limit a split query answers as the whole query, falling back to it when a half is past half the limit', async () => {
  // The smallest limit the whole query keeps to.
  let lo = 1, hi = 1_000_000;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if ((await answer(mid, false)).status === 200) hi = mid; else lo = mid + 1;
  }
  const atLimit = await answer(lo, true), wantAtLimit = await answer(lo, false);
  assert.equal(atLimit.status, 200);
  assert.equal(atLimit.body, wantAtLimit.body);
  assert.equal(atLimit.splits, 0, 'the larger half is past half the limit: evaluated whole');
  const past = await answer(lo - 1, true), wantPast = await answer(lo - 1, false);
  assert.equal(past.status, 422);
  assert.deepEqual(past, wantPast);
  const roomy = await answer(2 * lo, true);
  assert.equal(roomy.splits, 1);
  assert.equal(roomy.body, wantAtLimit.body);
});
