/** The windows a rule query fetches before evaluating in a worker, and the merge of overlapping fetches. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseExpr } from '../../src/engine/promql/parser.ts';
import { mergeFetched, selectorWindows } from '../../src/engine/rules/query.ts';

const T = 1_000_000_000;
const cases: [string, [number, number][]][] = [
  ['up', [[T - 300_000, T]]],
  ['rate(x[5m] offset 1m)', [[T - 360_000, T - 60_000]]],
  ['x @ 100', [[100_000 - 300_000, 100_000]]],
  ['max_over_time(rate(x[1m])[10m:1m])', [[T - 600_000 - 60_000, T]]],
  ['a + on(i) sum(b offset -1m)', [[T - 300_000, T], [T + 60_000 - 300_000, T + 60_000]]],
];

for (const [q, want] of cases) {
  test(`selector windows of ${q}`, () => {
    assert.deepEqual(selectorWindows(parseExpr(q), T, 300_000).map((w) => [w.mintMs, w.maxtMs]), want);
  });
}

test('series fetched for several windows are united per label set', () => {
  const l = [{ name: '__name__', value: 'x' }];
  const merged = mergeFetched([
    [{ labels: l, t: Float64Array.from([1, 2, 3]), v: Float64Array.from([10, 20, 30]) }],
    [{ labels: l, t: Float64Array.from([3, 4]), v: Float64Array.from([30, 40]) }, { labels: [{ name: '__name__', value: 'y' }], t: Float64Array.from([1]), v: Float64Array.from([1]) }],
  ]);
  assert.equal(merged.length, 2);
  assert.deepEqual([...merged[0].t], [1, 2, 3, 4]);
  assert.deepEqual([...merged[0].v], [10, 20, 30, 40]);
});
