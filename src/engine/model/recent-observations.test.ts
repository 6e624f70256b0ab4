import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quantileOfSorted, RECENT_OBSERVATIONS, RecentObservations } from './recent-observations.ts';

test('recent observations keep the latest ones, with the sum and count of all', () => {
  const o = new RecentObservations();
  assert.deepEqual(o.data(), { values: [], sum: 0, count: 0 });
  for (let i = 1; i <= RECENT_OBSERVATIONS + 100; i++) o.observe(i);
  const { values, sum, count } = o.data();
  assert.equal(count, RECENT_OBSERVATIONS + 100);
  assert.equal(sum, (count * (count + 1)) / 2);
  // The first 100 were overwritten.
  assert.deepEqual(values.sort((a, b) => a - b), Array.from({ length: RECENT_OBSERVATIONS }, (_, i) => i + 101));
});

// [sorted values, q, expected]
const QUANTILES: [number[], number, number][] = [
  [[], 0.5, NaN],
  [[7], 0.01, 7], [[7], 0.99, 7],
  [[1, 2, 3, 4], 0.5, 3], [[1, 2, 3, 4], 0.01, 1], [[1, 2, 3, 4], 0.99, 4],
  [Array.from({ length: 100 }, (_, i) => i), 0.9, 90],
];

for (const [sorted, q, expected] of QUANTILES) {
  test(`quantile ${q} of ${sorted.length} values → ${expected}`, () => assert.deepEqual(quantileOfSorted(sorted, q), expected));
}
