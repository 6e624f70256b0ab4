/** `/api/v1/status/tsdb` body from per-shard figures: merge, ranking, memory, and the empty-head cases. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { tsdbStatusBody } from '../../src/server/prom/tsdb-status.ts';
import type { ShardStatus } from '../../src/server/prom/tsdb-client.ts';

const shard = (over: Partial<ShardStatus>): ShardStatus => ({ numSeries: 0, chunkCount: 0, minTime: null, maxTime: null, blocksMaxTime: null, pairs: {}, ...over });

test('two shards merge into one ranking', () => {
  const body = JSON.parse(tsdbStatusBody([
    shard({ numSeries: 3, chunkCount: 3, minTime: 1000, maxTime: 5000, pairs: { __name__: ['up', 2, 'x_total', 1], job: ['api', 3] } }),
    shard({ numSeries: 2, chunkCount: 4, minTime: 500, maxTime: 4000, pairs: { __name__: ['up', 2], job: ['web', 2], le: ['0.5', 1] } }),
  ], 10));
  assert.deepEqual(body.data.headStats, { numSeries: 5, numLabelPairs: 5, chunkCount: 7, minTime: 500, maxTime: 5000 });
  assert.deepEqual(body.data.seriesCountByMetricName, [{ name: 'up', value: 4 }, { name: 'x_total', value: 1 }]);
  assert.deepEqual(body.data.labelValueCountByLabelName, [{ name: '__name__', value: 2 }, { name: 'job', value: 2 }, { name: 'le', value: 1 }]);
  assert.deepEqual(body.data.memoryInBytesByLabelName, [{ name: '__name__', value: 2 * 4 + 7 }, { name: 'job', value: 3 * 3 + 3 * 2 }, { name: 'le', value: 3 }]);
  assert.deepEqual(body.data.seriesCountByLabelValuePair.slice(0, 3), [{ name: 'up', value: 4 }, { name: 'job=api', value: 3 }, { name: 'job=web', value: 2 }].map((x, i) => i === 0 ? { name: '__name__=up', value: 4 } : x));
});

test('empty head: newest block max time, or Go int64 extremes without blocks', () => {
  assert.match(tsdbStatusBody([shard({ blocksMaxTime: 7200000 }), shard({})], 10), /"minTime":7200000,"maxTime":7200000/);
  assert.match(tsdbStatusBody([shard({})], 10), /"minTime":9223372036854775807,"maxTime":-9223372036854775808/);
});
