/**
 * The client sends series refs instead of labels for series a worker has numbered; a ref that went stale
 * (series dropped from the head at a block cut, or the worker restarted with a new epoch) is answered with
 * `unknown` and the samples are resent with labels, so nothing is lost.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { ShardPool } from '../../src/server/pool.ts';
import { TsdbClient, type TsdbTransport } from '../../src/server/prom/tsdb-client.ts';
import type { AppendArgs } from '../../src/workers/protocol.ts';
import { shardOfSeries } from '../../src/engine/tsdb/labels.ts';
import { MATCH_EQUAL, newMatcher } from '../../src/engine/tsdb/api.ts';
import type { Labels } from '../../src/engine/tsdb/api.ts';
import { tempDir } from './support/db.ts';
import { SampleColumns } from '../../src/engine/scrape/sample-columns.ts';
import { SeriesTable } from '../../src/engine/scrape/series-table.ts';

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

test('columns of a series table go to the same series as objects, by ref after the first, and survive a restart', async () => {
  const C: Labels = Object.freeze([{ name: '__name__', value: 'c' }, { name: 'k', value: '2' }]);
  const D: Labels = Object.freeze([{ name: '__name__', value: 'd' }]);
  const table = new SeriesTable();
  const sc = table.intern(C), sd = table.intern(D);
  const cols = new SampleColumns(table);
  const at = async (t: number) => {
    cols.clear();
    cols.push(sc, t, t / 1000);
    cols.push(sd, t, -t);
    const p = counting.appendColumns(cols);
    cols.clear(); // the client took them in before returning
    return p;
  };
  const wc = shardOfSeries(['__name__', 'c', 'k', '2'], 2);
  // A second client over the same workers, counting the series it sends with labels.
  let sentWithLabels = 0;
  const counting = new TsdbClient({
    size: pool.size,
    call: ((w: number, op: string, args: AppendArgs) => {
      if (op === 'tsdb.append') sentWithLabels += args.series.length;
      return pool.call(w, op as 'tsdb.append', args);
    }) as typeof pool.call,
  } as TsdbTransport);
  const T = 6 * H;
  assert.equal((await at(T)).added, 2);
  assert.equal(sentWithLabels, 2);
  assert.equal((await at(T + 1000)).added, 2);
  assert.equal(sentWithLabels, 2, 'the second append went by the refs kept in the table');
  assert.equal((await client.append([{ labels: C, t: T + 2000, v: 7 }])).added, 1); // the object path, same series
  assert.equal((await at(T + 3000)).added, 2);
  await assert.rejects(pool.call(wc, 'core.crash', {}));
  assert.equal((await at(T + 4000)).added, 2); // the table's ref is from before the restart: resent with labels
  assert.equal(sentWithLabels, 3 + (shardOfSeries(['__name__', 'd'], 2) === wc ? 1 : 0), 'only the series of the restarted worker');
  const c = await client.select([newMatcher(MATCH_EQUAL, '__name__', 'c')], T, T + 5000);
  assert.equal(c.length, 1);
  assert.deepEqual([...c[0].t], [T, T + 1000, T + 2000, T + 3000, T + 4000]);
  assert.deepEqual([...c[0].v], [T / 1000, T / 1000 + 1, 7, T / 1000 + 3, T / 1000 + 4]);
  const d = await client.select([newMatcher(MATCH_EQUAL, '__name__', 'd')], T, T + 5000);
  assert.deepEqual([...d[0].v], [-T, -T - 1000, -T - 3000, -T - 4000]);
});
