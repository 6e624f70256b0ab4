import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteWriter } from '../codec/byte-buf.ts';
import { pack } from '../codec/msgpack.ts';
import { DOC_TRANSLOG_DELETE, DOC_TRANSLOG_DELETE_V1, DOC_TRANSLOG_INDEX, DOC_TRANSLOG_INDEX_V1 } from '../codec/format-ids.ts';
import { CorruptionError } from '../errors.ts';
import { decodeTranslogOp, encodeTranslogOp, type TranslogOp } from './translog-record.ts';

const src = (s: string): Uint8Array => Buffer.from(s);
const cases: TranslogOp[] = [
  { id: 'log-1', version: 1, seqNo: 0, primaryTerm: 1, routing: null, source: src('{"a":1}'), deletedAt: null },
  { id: 'ünïcode-ид-' + 'x'.repeat(40), version: 7, seqNo: 2 ** 40, primaryTerm: 3, routing: 'user-ß', source: src('{"t":"été"}'), deletedAt: null },
  { id: 'ext', version: 9_007_199_254_740_993, seqNo: 5, primaryTerm: 1, routing: null, source: src(''), deletedAt: null },
  { id: 'gone', version: 4, seqNo: 6, primaryTerm: 1, routing: null, source: null, deletedAt: 1_764_201_600_123 },
  { id: 'gone-routed', version: 1, seqNo: 7, primaryTerm: 2, routing: 'r', source: null, deletedAt: 0 },
];

test('version 2 records round-trip every field, in one shared buffer', () => {
  const w = new ByteWriter(16);
  const spans: [number, number, number][] = [];
  for (const c of cases) { const start = w.len; const type = encodeTranslogOp(w, c.id, c.version, c.seqNo, c.primaryTerm, c.routing, c.source, c.deletedAt); spans.push([type, start, w.len]); }
  assert.deepEqual(spans.map((s) => s[0]), [DOC_TRANSLOG_INDEX, DOC_TRANSLOG_INDEX, DOC_TRANSLOG_INDEX, DOC_TRANSLOG_DELETE, DOC_TRANSLOG_DELETE]);
  spans.forEach(([type, a, b], i) => {
    const got = decodeTranslogOp(type, w.buf.subarray(a, b), 'test');
    assert.deepEqual({ ...got, source: got.source && Buffer.from(got.source).toString() }, { ...cases[i], source: cases[i].source && Buffer.from(cases[i].source!).toString() });
  });
});

test('the version 2 layout is pinned byte for byte', () => {
  const w = new ByteWriter();
  encodeTranslogOp(w, 'a', 2, 300, 1, 'r', src('{}'), null);
  assert.equal(Buffer.from(w.buf.subarray(0, w.len)).toString('hex'), '01' + '0161' + '0000000000000040' + 'ac02' + '01' + '0172' + '02' + '7b7d');
});

test('version 1 records (msgpack arrays) are still read', () => {
  const idx = decodeTranslogOp(DOC_TRANSLOG_INDEX_V1, pack(['a', 3, 9, 1, 'r', src('{"x":1}'), null]), 'test');
  assert.deepEqual({ ...idx, source: Buffer.from(idx.source!).toString() }, { id: 'a', version: 3, seqNo: 9, primaryTerm: 1, routing: 'r', source: '{"x":1}', deletedAt: null });
  assert.deepEqual(decodeTranslogOp(DOC_TRANSLOG_DELETE_V1, pack(['a', 4, 10, 1, null, null, 1234]), 'test'),
    { id: 'a', version: 4, seqNo: 10, primaryTerm: 1, routing: null, source: null, deletedAt: 1234 });
});

test('a truncated record or an unknown type is reported as corruption of the named log', () => {
  const w = new ByteWriter();
  encodeTranslogOp(w, 'abc', 1, 1, 1, null, src('{"long":"enough"}'), null);
  assert.throws(() => decodeTranslogOp(DOC_TRANSLOG_INDEX, w.buf.subarray(0, w.len - 3), 'translog of [i][0]'),
    (e: unknown) => e instanceof CorruptionError && e.file === 'translog of [i][0]');
  assert.throws(() => decodeTranslogOp(9, w.buf.subarray(0, w.len), 'translog of [i][0]'), /unknown translog record type 9/);
});
