/**
 * The client sends series refs instead of labels for series a worker has numbered; a ref that went stale
 * (series dropped from the head at a block cut, or the worker restarted with a new epoch) is answered with
 * `unknown` and the samples are resent with labels, so nothing is lost.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { ShardPool } from '../../src/server/pool.ts';
import { TsdbClient } from '../../src/server/prom/tsdb-client.ts';
import { shardOfSeries } from '../../src/engine/tsdb/labels.ts';
import { MATCH_EQUAL, newMatcher } from '../../src/engine/tsdb/api.ts';
import type { Labels } from '../../src/engine/tsdb/api.ts';
import { tempDir } from './support/db.ts';

const H = 3_600_000;
const { dir, cleanup } = tempDir('tsdb-refs-');
const pool = new ShardPool({ workers: 2, dataDir: dir, options: { allowCrashTask: true } });
const client = new TsdbClient(pool);
after(async () => { await client.close(); await pool.close(); cleanup(); });

// Frozen, as a scrape loop's label arrays are: the client caches routes (and refs) only for those.
const A: Labels = Object.freeze([{ name: '__name__', value: 'a' }, { name: 'k', value: '1' }]);
const wA = shardOfSeries(['__name__', 'a', 'k', '1'], 2);
const B: Labels = [{ name: '__name__', value: 'b' }];

test('stale refs after a block cut are resent with labels', async () => {
  await client.open({ retentionMs: 0, retentionBytes: 0 });
  assert.equal((await client.append([{ labels: A, t: 0, v: 1 }])).added, 1);
  assert.equal((await client.append([{ labels: A, t: 1000, v: 2 }])).added, 1); // by ref now
  // Keep A's worker busy past 3 h with another series on the same worker, so the head is cut and A dropped.
  let filler: Labels = B;
  for (let i = 0; shardOfSeries(['__name__', filler[0].value], 2) !== wA; i++) filler = Object.freeze([{ name: '__name__', value: `b${i}` }]);
  for (let t = 0; t <= 4 * H; t += 10 * 60_000) await client.append([{ labels: filler, t, v: t }]);
  await client.tick();
  const r = await client.append([{ labels: A, t: 4 * H, v: 3 }]);
  assert.deepEqual([r.added, r.outOfOrder, r.outOfBounds], [1, 0, 0]);
  const got = await client.select([newMatcher(MATCH_EQUAL, '__name__', 'a')], 0, 5 * H);
  assert.deepEqual([...got[0].t], [0, 1000, 4 * H]);
});

test('refs from before a worker restart are not trusted', async () => {
  await assert.rejects(pool.call(wA, 'core.crash', {}));
  const r = await client.append([{ labels: A, t: 4 * H + 1000, v: 4 }]);
  assert.equal(r.added, 1);
  const got = await client.select([newMatcher(MATCH_EQUAL, '__name__', 'a')], 0, 5 * H);
  assert.deepEqual([...got[0].v], [1, 2, 3, 4]);
});
