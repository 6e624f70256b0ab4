/**
 * The hand-written WriteRequest reader against hand-built bytes: columns and key ranges of a well-formed
 * request, what it skips, and gogo-protobuf's errors for what it refuses.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readSeriesLabels, readWriteRequest, WriteRequestView } from './write-request-reader.ts';
import { InvalidArgumentError } from '../errors.ts';
import { STALE_NAN_HI, STALE_NAN_LO } from '../tsdb/api.ts';
import { bytesField, doubleField, label, sample, series, strField, tag, varint, varintField, writeRequest } from '../../../test/support/proto-bytes.ts';

interface Decoded { series: { labels: string[]; keyed: boolean }[]; samples: [number, number, number][] }

function decode(buf: Uint8Array, view = new WriteRequestView()): Decoded {
  readWriteRequest(buf, view);
  const out: Decoded = { series: [], samples: [] };
  for (let i = 0; i < view.seriesCount; i++) {
    const flat: string[] = [];
    readSeriesLabels(view, i, flat);
    out.series.push({ labels: flat, keyed: view.keyStart[i] >= 0 });
  }
  for (let k = 0; k < view.sampleCount; k++) out.samples.push([view.sampleSeries[k], view.ts[k], view.vs[k]]);
  return out;
}

function refused(buf: Uint8Array | number[], message: string): void {
  const view = new WriteRequestView();
  assert.throws(() => readWriteRequest(Uint8Array.from(buf), view), (e: unknown) => {
    assert.ok(e instanceof InvalidArgumentError, String(e));
    assert.equal((e as Error).message, message);
    return true;
  });
  assert.equal(view.seriesCount, 0, 'a refused request leaves no columns');
  assert.equal(view.sampleCount, 0);
}

test('series, labels in wire order, samples with their series, timestamps across the int64 range', () => {
  const got = decode(writeRequest(
    series([['__name__', 'a'], ['job', 'j']], [[1.5, 1000], [2, 1_700_000_000_123]]),
    series([['__name__', 'b']], [[-3, -1], [4, 2 ** 53 - 1], [5, -(2 ** 40)]]),
    series([['__name__', 'c']], []),
  ));
  assert.deepEqual(got.series, [
    { labels: ['__name__', 'a', 'job', 'j'], keyed: true }, { labels: ['__name__', 'b'], keyed: true }, { labels: ['__name__', 'c'], keyed: true },
  ]);
  assert.deepEqual(got.samples, [[0, 1000, 1.5], [0, 1_700_000_000_123, 2], [1, -1, -3], [1, 2 ** 53 - 1, 4], [1, -(2 ** 40), 5]]);
});

test('values are copied bit for bit: a staleness marker keeps its NaN payload', () => {
  const view = new WriteRequestView();
  // Spelled as bytes: a JS array of numbers would canonicalise the NaN before it reached the encoder.
  const stale = [...tag(1, 1), 0x02, 0, 0, 0, 0, 0, 0xf0, 0x7f, ...varintField(2, 1)];
  readWriteRequest(writeRequest([...bytesField(1, label('__name__', 's')), ...bytesField(2, stale)]), view);
  const bits = new Uint32Array(view.vs.buffer, 0, 2);
  assert.deepEqual([bits[0], bits[1]], [STALE_NAN_LO, STALE_NAN_HI]);
});

test('absent fields take their defaults; unknown fields are skipped at every level, groups included', () => {
  const unknownAll = [...varintField(15, 7), ...tag(16, 5), 1, 2, 3, 4, ...tag(17, 1), 1, 2, 3, 4, 5, 6, 7, 8, ...strField(18, 'x'),
    ...tag(19, 3), ...varintField(1, 1), ...tag(19, 4)];
  const ts = [
    ...bytesField(1, [...label('__name__', 'u'), ...unknownAll]),
    ...unknownAll,
    ...bytesField(2, [...unknownAll, ...doubleField(1, 9)]), // no timestamp: 0
    ...bytesField(2, []), // empty sample: 0 at 0
    ...bytesField(3, sample(1, 1)), // an exemplar
  ];
  const got = decode(Uint8Array.from([...unknownAll, ...bytesField(1, ts), ...bytesField(3, strField(2, 'metadata'))]));
  assert.deepEqual(got.series, [{ labels: ['__name__', 'u'], keyed: true }]);
  assert.deepEqual(got.samples, [[0, 0, 9], [0, 0, 0]]);
});

test('the key is the byte range of the label fields; labels split by samples have none but still decode', () => {
  const view = new WriteRequestView();
  const a = series([['__name__', 'k'], ['x', 'y']], [[1, 1]]);
  const split = [...bytesField(1, label('__name__', 'k')), ...bytesField(2, sample(1, 1)), ...bytesField(1, label('x', 'y'))];
  const buf = writeRequest(a, a, split, series([], [[1, 1]]));
  readWriteRequest(buf, view);
  const key = (i: number): string => Buffer.from(buf.subarray(view.keyStart[i], view.keyEnd[i])).toString('hex');
  assert.equal(key(0), key(1));
  assert.equal(key(0), Buffer.from(series([['__name__', 'k'], ['x', 'y']], [])).toString('hex'));
  assert.equal(view.keyStart[2], -1);
  assert.equal(view.keyStart[3], view.keyEnd[3], 'no labels: an empty key');
  const flat: string[] = [];
  readSeriesLabels(view, 2, flat);
  assert.deepEqual(flat, ['__name__', 'k', 'x', 'y']);
});

test('columns grow past their initial size and are reused by the next request', () => {
  const many: number[][] = [];
  for (let i = 0; i < 300; i++) many.push(series([['__name__', 'm'], ['i', String(i)]], [[i, i * 10], [i + 0.5, i * 10 + 1]]));
  const view = new WriteRequestView();
  const got = decode(writeRequest(...many), view);
  assert.equal(got.series.length, 300);
  assert.equal(got.samples.length, 600);
  assert.deepEqual(got.samples[599], [299, 2991, 299.5]);
  assert.deepEqual(decode(writeRequest(series([['__name__', 'n']], [[1, 2]])), view).samples, [[0, 2, 1]]);
});

test('malformed requests are refused with gogo-protobuf\'s messages', () => {
  const ok = writeRequest(series([['__name__', 'a']], [[1, 1]]));
  refused([0x0a], 'unexpected EOF'); // a length missing
  refused([0x0a, 0x80], 'unexpected EOF'); // a truncated varint
  refused(ok.subarray(0, ok.length - 1), 'unexpected EOF');
  refused([0x0a, 0x05, 0x0a], 'unexpected EOF'); // a length past the end
  // A sample whose length runs past its series (but not past the request).
  refused([...bytesField(1, [...bytesField(2, sample(1, 1)).slice(0, 2)]), ...Array(30).fill(0x08)], 'unexpected EOF');
  refused([...tag(1, 0), 1], 'proto: wrong wireType = 0 for field Timeseries');
  refused(bytesField(1, [...tag(1, 0), 1]), 'proto: wrong wireType = 0 for field Labels');
  refused(bytesField(1, [...tag(2, 5), 1, 2, 3, 4]), 'proto: wrong wireType = 5 for field Samples');
  refused(bytesField(1, bytesField(2, varintField(1, 3))), 'proto: wrong wireType = 0 for field Value');
  refused(bytesField(1, bytesField(2, doubleField(2, 3))), 'proto: wrong wireType = 1 for field Timestamp');
  refused(bytesField(1, bytesField(2, [...tag(2, 0), ...Array(10).fill(0xff), 0x01])), 'proto: integer overflow');
  refused([...tag(5, 0), ...Array(10).fill(0x80), 0x00], 'proto: integer overflow');
  refused([0x00, 0x00], 'proto: WriteRequest: illegal tag 0 (wire type 0)');
  refused([...tag(4, 4)], 'proto: WriteRequest: wiretype end group for non-group');
  refused([...tag(4, 7)], 'proto: illegal wireType 7');
});

test('label fields are checked when decoded', () => {
  const view = new WriteRequestView();
  readWriteRequest(writeRequest([...bytesField(1, [...tag(1, 0), 5])]), view);
  assert.throws(() => readSeriesLabels(view, 0, []), /proto: wrong wireType = 0 for field Name/);
  readWriteRequest(writeRequest([...bytesField(1, [0x0a, 0x09, 0x61])]), view);
  assert.throws(() => readSeriesLabels(view, 0, []), /unexpected EOF/);
  readWriteRequest(writeRequest([...bytesField(1, [...strField(1, 'n'), ...varintField(3, 1), ...strField(2, 'v')])]), view);
  const flat: string[] = [];
  readSeriesLabels(view, 0, flat);
  assert.deepEqual(flat, ['n', 'v'], 'an unknown field inside a label is skipped');
  assert.deepEqual(varint(-1).length, 10, 'helper sanity: negative int64 varints take 10 bytes');
});
