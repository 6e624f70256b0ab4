/**
 * The flat series table: label sets in and out as bytes, hash collisions, growth, compaction (ids renumbered,
 * refs moved with their series, old ids mapped for one generation) and the sink's ref columns.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SeriesTable } from './series-table.ts';
import { labelsHash } from '../tsdb/labels.ts';
import type { Label } from '../tsdb/api.ts';

const set = (id: string | number, extra: Label[] = []): Label[] =>
  [{ name: '__name__', value: 'm' }, ...extra, { name: 'id', value: String(id) }];

test('label sets round-trip through their bytes, UTF-8 and escapes included; one id per set', () => {
  const t = new SeriesTable();
  const odd = [{ name: '__name__', value: 'ünïcödé_😀' }, { name: 'a', value: 'x"y\\z\nw' }, { name: 'b', value: '中文' }];
  const a = t.intern(odd), b = t.intern(set(1));
  assert.deepEqual([a, b], [0, 1]);
  assert.deepEqual(t.labels(a), odd);
  assert.deepEqual(t.flat(b), ['__name__', 'm', 'id', '1']);
  assert.equal(t.intern(odd.map((l) => ({ ...l }))), a, 'equal sets, other objects: the same id');
  assert.equal(t.find(set(1)), b);
  assert.equal(t.find(set(2)), -1);
  assert.equal(t.hash(b), labelsHash(set(1)), 'the hash the TSDB routes by');
  assert.equal(t.size, 2);
});

test('sets are sorted by name and empty values dropped, as the TSDB stores them', () => {
  const t = new SeriesTable();
  const id = t.intern([{ name: 'z', value: '1' }, { name: 'e', value: '' }, { name: '__name__', value: 'm' }]);
  assert.deepEqual(t.labels(id), [{ name: '__name__', value: 'm' }, { name: 'z', value: '1' }]);
  assert.equal(t.find([{ name: '__name__', value: 'm' }, { name: 'z', value: '1' }]), id);
  assert.equal(t.hash(id), labelsHash([{ name: '__name__', value: 'm' }, { name: 'z', value: '1' }]));
});

test('common pairs and symbols shorten the bytes, and decode back; a string keeps its encoding for good', () => {
  const target = [{ name: 'instance', value: 'h:9100' }, { name: 'job', value: 'node' }];
  const t = new SeriesTable(target);
  const full = (i: number, job = 'node') => [{ name: '__name__', value: 'up_total' }, { name: 'instance', value: 'h:9100' }, { name: 'job', value: job }, { name: 'n', value: String(i) }];
  const a = t.intern(full(1)), b = t.intern(full(2, 'other')), c = t.intern([{ name: '__name__', value: 'ünï' }, { name: 'ünï', value: '\ufffd' }]);
  assert.deepEqual(t.labels(a), full(1));
  assert.deepEqual(t.labels(b), full(2, 'other'), 'a pair like a common one but with another value');
  assert.deepEqual(t.labels(c), [{ name: '__name__', value: 'ünï' }, { name: 'ünï', value: '\ufffd' }]);
  assert.equal(t.find(full(1)), a);
  assert.equal(t.find(full(2, 'other')), b);
  assert.equal(t.find(full(2)), -1);
  const plain = new SeriesTable();
  assert.deepEqual(plain.labels(plain.intern(full(1))), full(1));
  for (let i = 0; i < 70_000; i++) plain.intern([{ name: `l${i}`, value: 'v' }]); // past the symbol limit
  const late = plain.intern([{ name: 'late_name', value: 'x' }, { name: 'z', value: 'y' }]);
  assert.deepEqual(plain.labels(late), [{ name: 'late_name', value: 'x' }, { name: 'z', value: 'y' }]);
  assert.equal(plain.find([{ name: 'late_name', value: 'x' }, { name: 'z', value: 'y' }]), late, 'no symbol then, none later: the same bytes');
  assert.equal(plain.find([{ name: 'l5', value: 'v' }]), 6);
});

test('two sets with the same 32-bit hash stay apart', () => {
  // Found by search: labelsHash collides for these two ids.
  assert.equal(labelsHash(set(149599)), labelsHash(set(312382)));
  const t = new SeriesTable();
  const a = t.intern(set(149599)), b = t.intern(set(312382));
  assert.notEqual(a, b);
  assert.equal(t.find(set(149599)), a);
  assert.equal(t.find(set(312382)), b);
  assert.deepEqual(t.labels(b), set(312382));
});

test('growth past every initial capacity keeps every set, its seen value and its ref', () => {
  const t = new SeriesTable();
  const N = 20_000;
  for (let i = 0; i < N; i++) {
    const id = t.intern(set(i, [{ name: 'handler', value: `/api/v${i % 50}` }]));
    t.setSeen(id, i + 1);
    t.setRef(id, 1e12 + i, i % 3, 7);
  }
  assert.equal(t.size, N);
  for (const i of [0, 1023, 1024, 4097, N - 1]) {
    const id = t.find(set(i, [{ name: 'handler', value: `/api/v${i % 50}` }]));
    assert.equal(id, i);
    assert.equal(t.seen(id), i + 1);
    assert.equal(t.refFor(id, i % 3, 7), 1e12 + i, 'a ref beyond 32 bits');
  }
});

test('refs are valid only for the worker and epoch that gave them', () => {
  const t = new SeriesTable();
  const id = t.intern(set(1));
  assert.equal(t.refFor(id, 0, 0), 0, 'none yet');
  t.setRef(id, 42, 1, 5);
  assert.equal(t.refFor(id, 1, 5), 42);
  assert.equal(t.refFor(id, 0, 5), 0, 'another worker (the pool was resized)');
  assert.equal(t.refFor(id, 1, 6), 0, 'a later epoch (the worker restarted)');
  t.clearRef(id);
  assert.equal(t.refFor(id, 1, 5), 0);
});

test('compact drops series, renumbers the rest in order with their refs, and maps old ids for one generation', () => {
  const t = new SeriesTable();
  for (let i = 0; i < 3000; i++) {
    const id = t.intern(set(i));
    t.setSeen(id, i % 2 === 0 ? 10 : 1);
    t.setRef(id, 100 + i, 0, 1);
  }
  const g = t.generation;
  const remap = t.compact((id) => t.seen(id) === 10);
  assert.equal(t.size, 1500);
  assert.equal(t.generation, g + 1);
  for (const i of [0, 2, 1500, 2998]) {
    const id = t.find(set(i));
    assert.equal(id, i / 2);
    assert.equal(remap[i], id);
    assert.equal(t.current(i, g), id);
    assert.equal(t.refFor(id, 0, 1), 100 + i);
    assert.deepEqual(t.labels(id), set(i));
  }
  for (const i of [1, 2999]) {
    assert.equal(t.find(set(i)), -1);
    assert.equal(t.current(i, g), -1);
  }
  // A dropped set comes back as a new series, without the old ref.
  const back = t.intern(set(1));
  assert.equal(back, 1500);
  assert.equal(t.refFor(back, 0, 1), 0);
  assert.equal(t.seen(back), 0);
  t.compact(() => true);
  assert.equal(t.current(2, g), -1, 'two compactions ago: unknown');
  assert.equal(t.current(3, g + 1), 3);
});

test('tables are independent: the same set has its own id, seen value and ref in each', () => {
  const tables = Array.from({ length: 8 }, () => new SeriesTable());
  tables.forEach((t, k) => { for (let i = 0; i <= k; i++) t.intern(set(`${k}-${i}`)); });
  tables.forEach((t, k) => {
    const id = t.intern(set('shared'));
    assert.equal(id, k + 1);
    t.setSeen(id, k);
    t.setRef(id, k + 1, 0, 0);
  });
  tables.forEach((t, k) => {
    const id = t.find(set('shared'));
    assert.equal(t.seen(id), k);
    assert.equal(t.refFor(id, 0, 0), k + 1);
    assert.equal(t.find(set(`${(k + 1) % 8}-${(k + 1) % 8}`)), -1);
  });
});
