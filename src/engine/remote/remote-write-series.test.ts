/**
 * The receiver's series cache: a series sent again is one lookup (same series id), label sets are built as
 * Prometheus 2.42 builds them and kept once per set, and idle entries go.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RemoteWriteSeries } from './remote-write-series.ts';
import { readWriteRequest, WriteRequestView } from './write-request-reader.ts';
import { EngineError } from '../errors.ts';
import { series, writeRequest } from '../../../test/support/proto-bytes.ts';

function setup() {
  const cache = new RemoteWriteSeries();
  const view = new WriteRequestView();
  const labels = (i: number, nowMs: number) => cache.table.labels(cache.resolve(view, i, nowMs));
  return { cache, view, labels, read: (...ts: number[][]) => readWriteRequest(writeRequest(...ts), view) };
}

test('a series sent again, in another request, resolves to the same series; another encoding of a set too', () => {
  const { cache, view, read } = setup();
  const a = series([['__name__', 'a'], ['i', '1']], [[1, 1]]);
  read(a, series([['__name__', 'b']], [[1, 1]]));
  const first = cache.resolve(view, 0, 0);
  cache.resolve(view, 1, 0);
  read(series([['__name__', 'c']], [[2, 2]]), a, series([['i', '1'], ['__name__', 'a']], [[3, 3]]));
  assert.equal(cache.resolve(view, 1, 1), first);
  assert.deepEqual(cache.table.labels(first), [{ name: '__name__', value: 'a' }, { name: 'i', value: '1' }]);
  cache.resolve(view, 0, 1);
  assert.equal(cache.resolve(view, 2, 1), first, 'the same set, sent unsorted: the same series');
  assert.equal(cache.size, 4, 'one cache entry per distinct label encoding');
  assert.equal(cache.table.size, 3, 'one series per label set');
});

test('labels are sorted (senders need not sort) and empty values dropped, as Prometheus builds the set', () => {
  const { labels, read } = setup();
  read(series([['z', '1'], ['__name__', 'm'], ['e', ''], ['a', '2']], [[1, 1]]));
  assert.deepEqual(labels(0, 0), [{ name: '__name__', value: 'm' }, { name: 'a', value: '2' }, { name: 'z', value: '1' }]);
  // Names Prometheus does not check on this path are stored as sent (its receiver accepts them too).
  read(series([['__name__', '1bad'], ['1a', 'x']], [[1, 1]]));
  assert.deepEqual(labels(0, 0), [{ name: '1a', value: 'x' }, { name: '__name__', value: '1bad' }]);
});

test('a repeated label name or an empty set is an invalid sample, and is not cached', () => {
  const { cache, view, read } = setup();
  const invalid = (message: string) => (e: unknown) => {
    assert.ok(e instanceof EngineError);
    assert.equal(e.code, 'TSDB_INVALID_SAMPLE');
    assert.equal(e.message, message);
    return true;
  };
  read(series([['__name__', 'd'], ['a', '1'], ['a', '2']], [[1, 1]]));
  assert.throws(() => cache.resolve(view, 0, 0), invalid('label name "a" is not unique: invalid sample'));
  read(series([['__name__', 'd'], ['a', '1'], ['b', '1'], ['a', '2']], [[1, 1]]));
  assert.throws(() => cache.resolve(view, 0, 0), invalid('label name "a" is not unique: invalid sample'), 'found after sorting');
  read(series([['a', '']], [[1, 1]]));
  assert.throws(() => cache.resolve(view, 0, 0), invalid('empty labelset: invalid sample'));
  read(series([], [[1, 1]]));
  assert.throws(() => cache.resolve(view, 0, 0), invalid('empty labelset: invalid sample'));
  assert.equal(cache.size, 0);
  assert.equal(cache.table.size, 0);
});

test('entries idle for ten minutes (to the minute) are dropped at the next sweep; the others keep their entry', () => {
  const { cache, view, labels, read } = setup();
  const a = series([['__name__', 'a']], [[1, 1]]), b = series([['__name__', 'b']], [[1, 1]]);
  read(a, b);
  cache.resolve(view, 0, 0);
  cache.resolve(view, 1, 0);
  read(b);
  cache.resolve(view, 0, 9 * 60_000);
  cache.sweep(9 * 60_000);
  assert.equal(cache.size, 2, 'nothing idle for ten minutes yet');
  cache.sweep(10 * 60_000 + 1);
  assert.equal(cache.size, 2, 'seen in minute 0: not ten whole minutes ago yet');
  cache.sweep(11 * 60_000 + 1);
  assert.equal(cache.size, 1);
  assert.equal(cache.table.size, 1);
  assert.deepEqual(labels(0, 11 * 60_000 + 2), [{ name: '__name__', value: 'b' }], 'the kept series, renumbered');
  read(a);
  assert.deepEqual(labels(0, 11 * 60_000 + 3), [{ name: '__name__', value: 'a' }], 'the dropped series, decoded again');
  assert.equal(cache.table.size, 2);
});
