import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteReader, ByteWriter } from './byte-buf.ts';

test('str writes and reads ASCII, non-ASCII and surrogate pairs at every length around the hand-built limits', () => {
  const cases: string[] = [''];
  for (let n = 1; n <= 40; n++) {
    cases.push('a'.repeat(n), 'é'.repeat(n), `${'x'.repeat(n - 1)}ß`, `${'x'.repeat(n)}😀`, `\u007f${'y'.repeat(n)}`);
  }
  const w = new ByteWriter(16);
  for (const c of cases) w.str(c);
  const bytes = w.finish();
  const r = new ByteReader(bytes, 'mem');
  for (const c of cases) assert.equal(r.str(), c);
  // Byte for byte what the general path writes: uvarint UTF-8 length, then the UTF-8 bytes.
  const want: number[] = [];
  for (const c of cases) {
    const u = new TextEncoder().encode(c);
    for (let n = u.length; ; n = Math.floor(n / 128)) { if (n < 128) { want.push(n); break; } want.push((n % 128) | 0x80); }
    want.push(...u);
  }
  assert.deepEqual([...bytes], want);
});

test('str past the end of the buffer is corruption, not a short string', () => {
  const w = new ByteWriter(16);
  w.uvarint(10);
  w.bytes(new TextEncoder().encode('abc'));
  assert.throws(() => new ByteReader(w.finish(), 'f.tim').str(), /f\.tim/);
});
