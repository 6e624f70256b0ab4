/** Cumulative bucket counts: bounds as client_golang makes them, observations and sums of counts. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { addBucketCounts, exponentialBuckets, observeBucketed, type BucketCounts } from './bucket-counts.ts';

test('exponential bounds are the ones Prometheus 2.42 exposes for its chunk histograms', () => {
  assert.deepEqual(exponentialBuckets(32, 1.5, 12).slice(-3), [1230.1875, 1845.28125, 2767.921875]);
  assert.deepEqual(exponentialBuckets(4, 1.5, 12).slice(-2), [230.66015625, 345.990234375]);
  assert.deepEqual(exponentialBuckets(100, 4, 10).slice(-1), [26_214_400]);
});

test('an observation counts in every bucket at or above it; counts add bucket by bucket', () => {
  const b = [1, 2, 4];
  const h: BucketCounts = { counts: [0, 0, 0], sum: 0, count: 0 };
  for (const v of [0.5, 2, 3, 9]) observeBucketed(h, b, v);
  assert.deepEqual(h, { counts: [1, 2, 3], sum: 14.5, count: 4 });
  const into: BucketCounts = { counts: new Float64Array([1, 1, 1]), sum: 1, count: 1 };
  addBucketCounts(into, h);
  assert.deepEqual([...into.counts, into.sum, into.count], [2, 3, 4, 15.5, 5]);
});
