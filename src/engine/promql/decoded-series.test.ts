import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodedSeriesBound, DeferredStoredSeries } from './decoded-series.ts';

const series = (name: string, n: number, decodes: string[], bound: DecodedSeriesBound): DeferredStoredSeries =>
  new DeferredStoredSeries([{ name: 'a', value: name }], () => {
    decodes.push(name);
    const t = Float64Array.from({ length: n }, (_, i) => i * 1000);
    return { labels: [], t, v: t.map((x) => x / 1000) };
  }, bound);

test('a deferred series is decoded once on first read and kept while the bound allows', () => {
  const decodes: string[] = [];
  const bound = new DecodedSeriesBound(100);
  const s = series('x', 10, decodes, bound);
  assert.deepEqual(decodes, []);
  assert.equal(s.n, 10);
  assert.equal(s.v[3], 3);
  assert.equal(s.t[9], 9000);
  assert.equal(s.stale, null);
  assert.deepEqual(decodes, ['x']);
  assert.equal(bound.loaded, 10);
});

test('over the bound the oldest decoded series are dropped; one read again is decoded again, and then nothing is dropped', () => {
  const decodes: string[] = [];
  const bound = new DecodedSeriesBound(25);
  const [a, b, c, d] = ['a', 'b', 'c', 'd'].map((k) => series(k, 10, decodes, bound));
  assert.equal(a.n + b.n, 20);
  assert.equal(c.n, 10); // 30 > 25: a is dropped
  assert.equal(b.t[1], 1000);
  assert.equal(c.t[1], 1000);
  assert.deepEqual(decodes, ['a', 'b', 'c']);
  assert.equal(a.v[2], 2); // decoded again: a second pass over the selection, so the bound stops dropping
  assert.equal(d.n + b.n + c.n + a.n, 40);
  assert.deepEqual(decodes, ['a', 'b', 'c', 'a', 'd']);
  // Statistics count each series' samples once.
  assert.equal(bound.loaded, 40);
});

test('a pass per step over a selection larger than the bound decodes each series at most twice', () => {
  const decodes: string[] = [];
  const bound = new DecodedSeriesBound(25);
  const all = Array.from({ length: 10 }, (_, i) => series(`s${i}`, 10, decodes, bound));
  for (let step = 0; step < 20; step++) for (const s of all) assert.equal(s.t[step % 10], (step % 10) * 1000);
  assert.ok(decodes.length <= 20, `${decodes.length} decodes`);
});

test('a series larger than the bound is still served whole', () => {
  const decodes: string[] = [];
  const bound = new DecodedSeriesBound(5);
  const s = series('big', 50, decodes, bound);
  assert.equal(s.n, 50);
  assert.equal(s.t[49], 49000);
  assert.deepEqual(decodes, ['big']);
});

test('a series let go with done() leaves the bound at once, and reading it again is a new pass, not a re-read', () => {
  const decodes: string[] = [];
  const bound = new DecodedSeriesBound(25);
  const [a, b, c] = ['a', 'b', 'c'].map((k) => series(k, 10, decodes, bound));
  assert.equal(a.n, 10);
  a.done();
  assert.equal(b.n + c.n, 20); // 30 samples decoded in all, but a's 10 were let go: b and c both stay
  assert.equal(b.t[1], 1000);
  assert.deepEqual(decodes, ['a', 'b', 'c']);
  assert.equal(a.v[4], 4); // decoded again; the bound keeps dropping (a re-read of a kept series would stop it)
  assert.equal(a.n, 10);
  assert.equal(b.n, 10); // 30 > 25 again: b, the oldest held, was dropped and is decoded once more
  assert.deepEqual(decodes, ['a', 'b', 'c', 'a', 'b']);
  assert.equal(bound.loaded, 30);
});
