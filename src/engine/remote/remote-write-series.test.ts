/**
 * The receiver's series cache: a series sent again is one lookup (same object, handle made once), label
 * sets are built as Prometheus 2.42 builds them, and idle entries go.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RemoteWriteSeries } from './remote-write-series.ts';
import { readWriteRequest, WriteRequestView } from './write-request-reader.ts';
import { EngineError } from '../errors.ts';
import type { Labels } from '../tsdb/api.ts';
import { series, writeRequest } from '../../../test/support/proto-bytes.ts';

function setup() {
  const made: Labels[] = [];
  const cache = new RemoteWriteSeries((labels) => { made.push(labels); return { n: made.length }; });
  const view = new WriteRequestView();
  return { made, cache, view, read: (...ts: number[][]) => readWriteRequest(writeRequest(...ts), view) };
}

test('a series sent again, in another request, resolves to the same entry without decoding its labels', () => {
  const { made, cache, view, read } = setup();
  const a = series([['__name__', 'a'], ['i', '1']], [[1, 1]]);
  read(a, series([['__name__', 'b']], [[1, 1]]));
  const first = cache.resolve(view, 0, 0);
  cache.resolve(view, 1, 0);
  read(series([['__name__', 'c']], [[2, 2]]), a);
  assert.equal(cache.resolve(view, 1, 1), first);
  assert.deepEqual(first.labels, [{ name: '__name__', value: 'a' }, { name: 'i', value: '1' }]);
  assert.ok(Object.isFrozen(first.labels), 'frozen: sinks cache routes by identity');
  assert.deepEqual(first.handle, { n: 1 });
  cache.resolve(view, 0, 1);
  assert.equal(made.length, 3, 'one handle per distinct label encoding');
  assert.equal(cache.size, 3);
});

test('labels are sorted (senders need not sort) and empty values dropped, as Prometheus builds the set', () => {
  const { cache, view, read } = setup();
  read(series([['z', '1'], ['__name__', 'm'], ['e', ''], ['a', '2']], [[1, 1]]));
  assert.deepEqual(cache.resolve(view, 0, 0).labels, [{ name: '__name__', value: 'm' }, { name: 'a', value: '2' }, { name: 'z', value: '1' }]);
  // Names Prometheus does not check on this path are stored as sent (its receiver accepts them too).
  read(series([['__name__', '1bad'], ['1a', 'x']], [[1, 1]]));
  assert.deepEqual(cache.resolve(view, 0, 0).labels, [{ name: '1a', value: 'x' }, { name: '__name__', value: '1bad' }]);
});

test('a repeated label name or an empty set is an invalid sample, and is not cached', () => {
  const { made, cache, view, read } = setup();
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
  assert.equal(made.length, 0);
});

test('entries idle for ten minutes (to the minute) are dropped at the next sweep; the others keep their entry', () => {
  const { made, cache, view, read } = setup();
  const a = series([['__name__', 'a']], [[1, 1]]), b = series([['__name__', 'b']], [[1, 1]]);
  read(a, b);
  cache.resolve(view, 0, 0);
  const keptB = cache.resolve(view, 1, 0);
  read(b);
  cache.resolve(view, 0, 9 * 60_000);
  cache.sweep(9 * 60_000);
  assert.equal(cache.size, 2, 'nothing idle for ten minutes yet');
  cache.sweep(10 * 60_000 + 1);
  assert.equal(cache.size, 2, 'seen in minute 0: not ten whole minutes ago yet');
  cache.sweep(11 * 60_000 + 1);
  assert.equal(cache.size, 1);
  assert.equal(cache.resolve(view, 0, 11 * 60_000 + 2), keptB);
  read(a);
  cache.resolve(view, 0, 11 * 60_000 + 3);
  assert.equal(made.length, 3, 'the dropped series was decoded again');
});
