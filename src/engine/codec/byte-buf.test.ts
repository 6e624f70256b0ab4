import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteReader, ByteWriter } from './byte-buf.ts';

test('str round-trips ASCII, non-ASCII and surrogate pairs at every length around the hand-built limit', () => {
  const cases: string[] = [''];
  for (let n = 1; n <= 40; n++) {
    cases.push('a'.repeat(n), 'é'.repeat(n), `${'x'.repeat(n - 1)}ß`, `${'x'.repeat(n)}😀`, `\u007f${'y'.repeat(n)}`);
  }
  const w = new ByteWriter(16);
  for (const c of cases) w.str(c);
  const r = new ByteReader(w.finish(), 'mem');
  for (const c of cases) assert.equal(r.str(), c);
});

test('str past the end of the buffer is corruption, not a short string', () => {
  const w = new ByteWriter(16);
  w.uvarint(10);
  w.bytes(new TextEncoder().encode('abc'));
  assert.throws(() => new ByteReader(w.finish(), 'f.tim').str(), /f\.tim/);
});
