/**
 * Format freeze of the TSDB WAL records (docs/format.md "TSDB WAL records", Prometheus's `tsdb/record`
 * encodings): hand-derived bytes, negative deltas and times, exact NaN bits, and round trips.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { labelsFromRecord } from './labels.ts';
import {
  decodeSamplesRecord, decodeSeriesRecord, decodeTombstonesRecord, encodeSamplesRecord, encodeSeriesRecord,
  encodeTombstonesRecord, recordType, SampleBatch, samplesRecordBound,
} from './prom-wal-records.ts';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const F = new Float64Array(1);
const U = new Uint32Array(F.buffer);
const bits = (v: number): string => { F[0] = v; return U[1].toString(16).padStart(8, '0') + U[0].toString(16).padStart(8, '0'); };
const STALE = ((): number => { U[1] = 0x7ff00000; U[0] = 2; return F[0]; })();

function samples(list: [number, number, number][]): Uint8Array {
  const refs = list.map((s) => s[0]), ts = list.map((s) => s[1]), vs = Float64Array.from(list.map((s) => s[2]));
  return encodeSamplesRecord(refs, ts, vs, list.map((_, i) => i), list.length);
}

test('series record: type 1, ref <u64be>, label count, length-prefixed names and values', () => {
  const rec = encodeSeriesRecord([{ ref: 1, labels: labelsFromRecord({ __name__: 'up', job: 'x' }) }]);
  assert.equal(hex(rec), '01' + '0000000000000001' + '02' + '08' + Buffer.from('__name__').toString('hex') + '02' + '7570' + '03' + '6a6f62' + '01' + '78');
  assert.deepEqual(decodeSeriesRecord(rec, 'f'), [{ ref: 1, labels: labelsFromRecord({ __name__: 'up', job: 'x' }) }]);
  const many = Array.from({ length: 50 }, (_, i) => ({ ref: 2 ** 40 + i, labels: labelsFromRecord({ __name__: 'm', i: String(i), ü: 'ß'.repeat(i) }) }));
  assert.deepEqual(decodeSeriesRecord(encodeSeriesRecord(many), 'f'), many);
});

test('samples record: type 2, base ref and time <u64be>, then zig-zag deltas from the base and the value <f64be>', () => {
  const rec = samples([[5, 1000, 1.0], [3, 2000, 2.0]]);
  assert.equal(hex(rec), '02' + '0000000000000005' + '00000000000003e8' + '00' + '00' + '3ff0000000000000' + '03' + 'd00f' + '4000000000000000');
  assert.equal(hex(samples([[1, -1, 0]])), '02' + '0000000000000001' + 'ffffffffffffffff' + '0000' + '0000000000000000', 'negative time: two\'s complement');
  assert.equal(hex(samples([])), '02', 'an empty samples record is its type byte');
});

test('samples round trip: large refs, negative times and deltas, NaN payloads (stale marker) bit-exact', () => {
  const list: [number, number, number][] = [[2 ** 40, -5_000, STALE], [1, 1_700_000_000_000, NaN], [7, -(2 ** 50), -0], [2 ** 52, 2 ** 52, Infinity]];
  const b = new SampleBatch();
  decodeSamplesRecord(samples(list), 'f', b);
  assert.equal(b.n, list.length);
  for (let i = 0; i < list.length; i++) {
    assert.equal(b.refs[i], list[i][0]);
    assert.equal(b.ts[i], list[i][1]);
    assert.equal(bits(b.vs[i]), bits(list[i][2]));
  }
  const big: [number, number, number][] = Array.from({ length: 5000 }, (_, i) => [i % 97, 1e12 + i * 15_000, i / 3]);
  decodeSamplesRecord(samples(big), 'f', b);
  assert.equal(b.n, 5000);
  assert.equal(b.vs[4999], 4999 / 3);
});

test('a samples record written into a reused buffer is the same bytes, whatever the buffer held', () => {
  const list: [number, number, number][] = Array.from({ length: 300 }, (_, i) => [i * 7 + 1, 1e12 + i * 15_000 - (i % 5) * 1e6, i % 11 === 0 ? STALE : i / 7]);
  const refs = list.map((x) => x[0]), ts = list.map((x) => x[1]), vs = Float64Array.from(list.map((x) => x[2])), idx = list.map((_, i) => i);
  const fresh = encodeSamplesRecord(refs, ts, vs, idx, list.length);
  for (const fill of [0x00, 0xff, 0x80]) {
    const buf = new Uint8Array(samplesRecordBound(list.length) + 64).fill(fill);
    const rec = encodeSamplesRecord(refs, ts, vs, idx, list.length, buf);
    assert.equal(rec.buffer, buf.buffer, 'written into the given buffer');
    assert.equal(hex(rec), hex(fresh), `buffer filled with ${fill}`);
  }
});

test('tombstones record: type 3, then ref <u64be> · mint <varint> · maxt <varint> per interval', () => {
  const rec = encodeTombstonesRecord([{ ref: 7, mint: -5, maxt: 10 }]);
  assert.equal(hex(rec), '03' + '0000000000000007' + '09' + '14');
  assert.deepEqual(decodeTombstonesRecord(rec, 'f'), [{ ref: 7, mint: -5, maxt: 10 }]);
  assert.equal(recordType(rec), 3);
});

test('a truncated or mistyped record is a CorruptionError naming the file', () => {
  const rec = samples([[5, 1000, 1.0]]);
  assert.throws(() => decodeSamplesRecord(rec.subarray(0, rec.length - 1), 'seg-7', new SampleBatch()), /seg-7.*sample value/);
  assert.throws(() => decodeSeriesRecord(rec, 'seg-7'), /record type 2 where 1/);
});
