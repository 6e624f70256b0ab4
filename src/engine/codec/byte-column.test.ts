import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteColumn } from './byte-column.ts';

// Values that cross slab ends (a 1 KiB slab here), one larger than a quarter slab (its own slab), an empty one,
// and strings with multi-byte characters short and long (the decoder's ASCII loop and its fallback).
const STRINGS = ['log-1', '', 'Ärger', 'x'.repeat(300), 'ü'.repeat(70), 'a€b', '🙂', 'plain-ascii-id'];

test('a byte column holds each doc\'s value, across slab ends and for large, empty and multi-byte values', () => {
  const c = new ByteColumn(1024);
  const values: (Uint8Array | null)[] = [];
  for (let d = 0; d < 400; d++) {
    if (d % 7 === 3) { values.push(null); continue; } // docs without a value (nested children)
    const v = new Uint8Array(d === 100 ? 600 : d % 50).map((_, i) => (d * 31 + i) & 255);
    c.set(d, v);
    values.push(v);
  }
  for (let d = 0; d < 400; d++) assert.deepEqual(c.get(d), values[d], `doc ${d}`);
  assert.equal(c.get(10_000), null, 'a doc past the columns has no value');
  assert.equal(c.bytes, values.reduce((n, v) => n + (v?.byteLength ?? 0), 0));

  const s = new ByteColumn(1024);
  STRINGS.forEach((v, d) => s.setString(d, v));
  assert.deepEqual(STRINGS.map((_, d) => s.getString(d)), STRINGS);
  STRINGS.forEach((v, d) => {
    const bytes = Buffer.from(v, 'utf8');
    assert.ok(s.equals(d, bytes, bytes.length), v);
    assert.ok(!s.equals(d, Buffer.from(v + 'x'), bytes.length + 1), `${v} + x`);
  });
});

test('a frozen column keeps its values while the next column, over its recycled per-doc arrays, is written', () => {
  const first = new ByteColumn(256);
  for (let d = 0; d < 100; d++) first.setString(d, `first-${d}`);
  const frozen = first.frozen(100);
  const next = new ByteColumn(256, first);
  for (let d = 0; d < 60; d += 2) next.setString(d, `next-${d}`);
  for (let d = 0; d < 100; d++) assert.equal(frozen.getString(d), `first-${d}`);
  for (let d = 0; d < 60; d++) assert.equal(next.get(d) === null, d % 2 === 1, `doc ${d} of the next column`);
  assert.equal(next.getString(58), 'next-58');
});
