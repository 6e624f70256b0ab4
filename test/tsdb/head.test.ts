import { test } from 'node:test';
import assert from 'node:assert/strict';
import { MATCH_EQUAL, MATCH_NOT_EQUAL, MATCH_NOT_REGEXP, MATCH_REGEXP, newMatcher, STALE_NAN, VAL_FLOAT, VAL_NONE } from '../../src/engine/tsdb/api.ts';
import type { MatchType } from '../../src/engine/tsdb/api.ts';
import { labelsToRecord } from '../../src/engine/tsdb/labels.ts';
import { batch, openTestDb, tempDir } from './support/db.ts';

const m = (type: MatchType, name: string, value: string) => newMatcher(type, name, value);
const F = new Float64Array(1), U = new Uint32Array(F.buffer);


test('out-of-order, duplicate and out-of-bounds samples are refused per series with Prometheus texts', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const { db } = await openTestDb(dir);
    const a = { __name__: 'up', job: 'a' }, b = { __name__: 'up', job: 'b' };
    let r = await db.append(batch([[a, 1000, 1], [a, 2000, 1], [b, 500, 1]]));
    assert.deepEqual([r.added, r.outOfOrder, r.duplicate, r.outOfBounds], [3, 0, 0, 0]);
    r = await db.append(batch([[a, 1500, 1], [a, 2000, 1], [a, 2000, 7], [b, 600, 2]]));
    assert.deepEqual([r.added, r.outOfOrder, r.duplicate, r.outOfBounds, r.firstError], [1, 1, 1, 0, 'out of order sample']);
    r = await db.append(batch([[a, 2000, 9]]));
    assert.equal(r.firstError, 'duplicate sample for timestamp');
    // head maxT is 2000: anything older than maxT - 1h is out of bounds
    await db.append(batch([[a, 10_000_000, 1]]));
    r = await db.append(batch([[b, 10_000_000 - 3_600_001, 1]]));
    assert.deepEqual([r.outOfBounds, r.firstError], [1, 'out of bounds']);
    await db.close();
  } finally { cleanup(); }
});

test('select by matchers, label names and values', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const { db } = await openTestDb(dir);
    const samples: [Record<string, string>, number, number][] = [];
    const sets: Record<string, string>[] = [
      { __name__: 'http_requests_total', job: 'api', code: '200' },
      { __name__: 'http_requests_total', job: 'api', code: '500' },
      { __name__: 'http_requests_total', job: 'web', code: '200' },
      { __name__: 'up', job: 'api' },
      { __name__: 'up', job: 'web', env: 'prod' },
    ];
    for (let t = 0; t < 10; t++) for (const s of sets) samples.push([s, t * 15000, t]);
    await db.append(batch(samples));
    const names = (ms: ReturnType<typeof m>[]) => db.select(ms, 0, 1e12).map((s) => labelsToRecord(s.labels));
    const cases: [ReturnType<typeof m>[], number][] = [
      [[m(MATCH_EQUAL, '__name__', 'up')], 2],
      [[m(MATCH_EQUAL, '__name__', 'http_requests_total'), m(MATCH_NOT_EQUAL, 'code', '200')], 1],
      [[m(MATCH_REGEXP, 'job', 'a.*')], 3],
      [[m(MATCH_REGEXP, 'job', 'a')], 0],
      [[m(MATCH_NOT_REGEXP, 'job', 'api'), m(MATCH_EQUAL, '__name__', 'up')], 1],
      [[m(MATCH_EQUAL, 'env', '')], 4],
      [[m(MATCH_NOT_EQUAL, 'env', '')], 1],
      [[m(MATCH_REGEXP, 'env', 'prod|')], 5],
      [[m(MATCH_REGEXP, '__name__', '(?i)UP')], 2],
    ];
    for (const [ms, want] of cases) assert.equal(names(ms).length, want, ms.map((x) => `${x.name}${x.type}${x.value}`).join(','));
    const sel = db.select([m(MATCH_EQUAL, '__name__', 'http_requests_total')], 30000, 60000);
    assert.deepEqual(sel.map((s) => labelsToRecord(s.labels).code + labelsToRecord(s.labels).job), ['200api', '200web', '500api']);
    assert.deepEqual([...sel[0].t], [30000, 45000, 60000]);
    assert.deepEqual([...sel[0].v], [2, 3, 4]);
    const q = db.querier(0, 1e12);
    assert.deepEqual(q.labelNames([]), ['__name__', 'code', 'env', 'job']);
    assert.deepEqual(q.labelNames([m(MATCH_EQUAL, '__name__', 'up')]), ['__name__', 'env', 'job']);
    assert.deepEqual(q.labelValues('job', [m(MATCH_EQUAL, 'code', '500')]), ['api']);
    assert.deepEqual(q.labelValues('nope', []), []);
    await db.close();
  } finally { cleanup(); }
});

test('querier cursor: next, seek, stale markers keep their bits', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const { db } = await openTestDb(dir);
    const b = batch([]);
    const ls = { __name__: 'x' };
    const s = [];
    for (let i = 0; i < 300; i++) s.push([ls, i * 1000, i] as [Record<string, string>, number, number]);
    const bb = batch(s);
    bb.vs[150] = STALE_NAN;
    await db.append(bb);
    void b;
    const set = db.querier(0, 1e12).select(true, null, [m(MATCH_EQUAL, '__name__', 'x')]);
    assert.equal(set.next(), true);
    const it = set.at().iterator(null);
    assert.equal(it.seek(149_500), VAL_FLOAT);
    assert.equal(it.t, 150_000);
    F[0] = it.v;
    assert.deepEqual([U[1], U[0]], [0x7ff00000, 2]);
    assert.equal(it.seek(100), VAL_FLOAT); // no-op when already past
    assert.equal(it.t, 150_000);
    assert.equal(it.next(), VAL_FLOAT);
    assert.equal(it.v, 151);
    assert.equal(it.seek(299_000), VAL_FLOAT);
    assert.equal(it.next(), VAL_NONE);
    assert.equal(set.next(), false);
    const fetched = db.select([m(MATCH_EQUAL, '__name__', 'x')], 0, 1e12)[0];
    F[0] = fetched.v[150];
    assert.deepEqual([U[1], U[0]], [0x7ff00000, 2]);
    assert.equal(fetched.t.length, 300);
    await db.close();
  } finally { cleanup(); }
});

test('WAL replay restores series, samples and tombstones', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const { db, store } = await openTestDb(dir);
    const ls = { __name__: 'c', i: '1' };
    const s: [Record<string, string>, number, number][] = [];
    for (let i = 0; i < 500; i++) s.push([ls, i * 15000, i]);
    await db.append(batch(s));
    await db.append(batch([[{ __name__: 'd' }, 7_000_000, 1]]));
    await db.deleteSeries([m(MATCH_EQUAL, '__name__', 'c')], 0, 15000 * 9);
    await db.close();
    const { db: db2 } = await openTestDb(dir, store);
    const got = db2.select([m(MATCH_REGEXP, '__name__', '.+')], 0, 1e12);
    assert.equal(got.length, 2);
    assert.equal(got[0].t.length, 490);
    assert.equal(got[0].t[0], 150000);
    const r = await db2.append(batch([[ls, 499 * 15000, 5]]));
    assert.equal(r.duplicate, 1);
    await db2.close();
  } finally { cleanup(); }
});

test('the flat label form keys the same series as label objects (also after replay)', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const { db, store } = await openTestDb(dir);
    const flat = ['__name__', 'x', 'job', 'j'];
    await db.append({ flat: [flat], sidx: [0], ts: Float64Array.of(1), vs: Float64Array.of(1) });
    await db.append(batch([[{ __name__: 'x', job: 'j' }, 2, 2]]));
    assert.equal(db.head.numSeries, 1);
    await db.close();
    const { db: db2 } = await openTestDb(dir, store);
    const r = await db2.append({ flat: [flat], sidx: [0], ts: Float64Array.of(3), vs: Float64Array.of(3) });
    assert.equal(r.added, 1);
    assert.equal(db2.head.numSeries, 1);
    assert.deepEqual(Array.from(r.refs!), [db2.head.refAt(db2.head.seriesOfFlat(flat))]);
    await db2.close();
  } finally { cleanup(); }
});
