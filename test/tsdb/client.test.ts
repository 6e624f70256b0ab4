/**
 * The main-thread TsdbClient over a real ShardPool (2 worker threads): routing by label hash, merged and
 * sorted reads, stale-marker bits across the thread boundary, per-sample refusals, imported blocks picked up
 * by reloadBlocks and merged with head data of another worker, deletes, status and maintenance.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { ShardPool } from '../../src/server/pool.ts';
import { TsdbClient } from '../../src/server/prom/tsdb-client.ts';
import { shardOfSeries } from '../../src/engine/tsdb/labels.ts';
import { MATCH_EQUAL, MATCH_REGEXP, newMatcher } from '../../src/engine/tsdb/api.ts';
import { writeBlock } from '../../src/engine/tsdb/index.ts';
import { labelsFromRecord } from '../../src/engine/tsdb/labels.ts';
import { tempDir } from './support/db.ts';

const { dir, cleanup } = tempDir('tsdb-client-');
const pool = new ShardPool({ workers: 2, dataDir: dir, options: {} });
const client = new TsdbClient(pool);
after(async () => { await client.close(); await pool.close(); cleanup(); });

const F = new Float64Array(1), U = new Uint32Array(F.buffer);
const STALE = (): number => { U[1] = 0x7ff00000; U[0] = 2; return F[0]; };
const bitsOf = (v: number): string => { F[0] = v; return `${U[1].toString(16)}:${U[0].toString(16)}`; };
const ALL = [newMatcher(MATCH_REGEXP, '__name__', '.+')];

test('appends spread over both workers and read back merged, sorted, exact', async () => {
  await client.open({ retentionMs: 0, retentionBytes: 0 });
  const samples = [];
  for (let k = 0; k < 5; k++) for (let i = 0; i < 40; i++) samples.push({ labels: { __name__: 'req_total', i: String(i).padStart(2, '0'), job: 'x' }, t: 1000 * k, v: k === 4 && i === 7 ? STALE() : i * 10 + k });
  const r = await client.append(samples);
  assert.deepEqual(r, { added: 200, outOfOrder: 0, duplicate: 0, outOfBounds: 0, firstError: '' });
  const owners = new Set(samples.slice(0, 40).map((s) => shardOfSeries(['__name__', 'req_total', 'i', s.labels.i, 'job', 'x'], 2)));
  assert.equal(owners.size, 2, 'the 40 series land on both workers');
  const got = await client.select([newMatcher(MATCH_EQUAL, '__name__', 'req_total')], 0, 3000);
  assert.equal(got.length, 40);
  assert.deepEqual(got.map((s) => s.labels[1].value), Array.from({ length: 40 }, (_, i) => String(i).padStart(2, '0')));
  assert.deepEqual([...got[3].t], [0, 1000, 2000, 3000]);
  assert.deepEqual([...got[3].v], [30, 31, 32, 33]);
  const all = await client.select([newMatcher(MATCH_EQUAL, 'i', '07')], 0, 10_000);
  assert.equal(bitsOf(all[0].v[4]), '7ff00000:2');
});

test('refusals are counted with Prometheus texts', async () => {
  const r = await client.append([
    { labels: { __name__: 'req_total', i: '00', job: 'x' }, t: 500, v: 1 },
    { labels: { __name__: 'req_total', i: '01', job: 'x' }, t: 4000, v: 99 },
    { labels: [{ name: '__name__', value: 'fresh' }], t: 1, v: 1 },
  ]);
  assert.equal(r.outOfOrder, 1);
  assert.equal(r.duplicate, 1);
  assert.equal(r.added, 1);
  assert.ok(['out of order sample', 'duplicate sample for timestamp'].includes(r.firstError));
});

test('labels, values, series, delete', async () => {
  assert.deepEqual(await client.labelNames([]), ['__name__', 'i', 'job']);
  assert.deepEqual(await client.labelValues('__name__', []), ['fresh', 'req_total']);
  assert.deepEqual(await client.labelValues('i', [[newMatcher(MATCH_REGEXP, 'i', '0[0-2]')]]), ['00', '01', '02']);
  const series = await client.series([[newMatcher(MATCH_REGEXP, 'i', '1[0-1]')], [newMatcher(MATCH_EQUAL, '__name__', 'fresh')]]);
  assert.deepEqual(series.map((s) => s.map((l) => l.value).join(',')), ['fresh', 'req_total,10,x', 'req_total,11,x']);
  await client.deleteSeries([[newMatcher(MATCH_EQUAL, 'i', '10')]], 1000, 2000);
  const got = await client.select([newMatcher(MATCH_EQUAL, 'i', '10')], 0, 10_000);
  assert.deepEqual([...got[0].t], [0, 3000, 4000]);
});

test('an imported block is served after reloadBlocks and merged with the owner worker\'s head', async () => {
  const t = Float64Array.from([-2000, -1000]), v = Float64Array.from([7, 8]);
  await writeBlock(path.join(dir, 'tsdb'), [{ labels: labelsFromRecord({ __name__: 'req_total', i: '05', job: 'x' }), t, v }], -7_200_000, 0);
  let got = await client.select([newMatcher(MATCH_EQUAL, 'i', '05')], -10_000, 10_000);
  assert.equal(got[0].t.length, 5);
  await client.reloadBlocks();
  got = await client.select([newMatcher(MATCH_EQUAL, 'i', '05')], -10_000, 10_000);
  assert.deepEqual([...got[0].t], [-2000, -1000, 0, 1000, 2000, 3000, 4000]);
  assert.deepEqual([...got[0].v.slice(0, 3)], [7, 8, 50]);
});

test('status merges shards; tick and walReplay answer', async () => {
  const st = await client.status();
  assert.equal(st.reduce((n, s) => n + s.numSeries, 0), 41);
  const ticks = await client.tick();
  assert.equal(ticks.length, 2);
  const wr = await client.walReplay();
  assert.equal(wr.length, 2);
  const allSeries = await client.select(ALL, -Infinity, Infinity);
  assert.equal(allSeries.length, 41);
});
