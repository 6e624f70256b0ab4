import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ARENA_SAMPLES, DecodedSeriesBound, DeferredStoredSeries } from './decoded-series.ts';

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

/** A series of `n` samples (t = i s, v = i × k) decoded as the packed replies decode: into the bound's room. */
const allocated = (name: string, n: number, k: number, bound: DecodedSeriesBound): DeferredStoredSeries =>
  new DeferredStoredSeries([{ name: 'a', value: name }], (alloc) => {
    const { t, v, at } = alloc(n);
    for (let i = 0; i < n; i++) { t[at + i] = i * 1000; v[at + i] = i * k; }
    return { labels: [], t: t.subarray(at, at + n), v: v.subarray(at, at + n) };
  }, bound);

const LONG = ARENA_SAMPLES / 4 + 1000;

test('a long series let go with done() lends its arrays to the next long series; one still held never does', () => {
  const bound = new DecodedSeriesBound();
  const a = allocated('a', LONG, 1, bound);
  assert.equal(a.v[LONG - 1], LONG - 1);
  const aBuffer = a.t.buffer;
  const b = allocated('b', LONG - 10, 2, bound);
  assert.equal(b.v[5], 10);
  assert.notEqual(b.t.buffer, aBuffer, 'a is still held: b gets arrays of its own');
  assert.equal(a.v[7], 7, 'a untouched by b');
  const bBuffer = b.t.buffer;
  b.done();
  const c = allocated('c', LONG - 20, 3, bound);
  assert.equal(c.t.buffer, bBuffer, 'c reuses b\'s arrays');
  assert.equal(c.n, LONG - 20);
  assert.equal(c.v[LONG - 21], (LONG - 21) * 3);
  assert.equal(a.v[7], 7, 'a untouched by c');
  c.done();
  // Longer than the spare: fresh arrays, the right samples.
  const d = allocated('d', LONG + 50, 4, bound);
  assert.equal(d.n, LONG + 50);
  assert.equal(d.v[LONG + 49], (LONG + 49) * 4);
  // A let-go series read again is decoded again, and the series decoded since keep their samples.
  d.done();
  assert.equal(c.v[3], 9);
  const e = allocated('e', LONG, 5, bound);
  assert.equal(e.v[2], 10);
  assert.equal(c.v[LONG - 21], (LONG - 21) * 3);
  assert.equal(e.v[LONG - 1], (LONG - 1) * 5);
});
