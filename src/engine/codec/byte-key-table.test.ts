import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteKeyTable, hashBytes } from './byte-key-table.ts';

function add(t: ByteKeyTable, key: string, hash?: number): number {
  const b = Buffer.from(`<${key}>`);
  const h = hash ?? hashBytes(b, 1, b.length - 1);
  return t.find(b, 1, b.length - 1, h) >= 0 ? -1 : t.insert(b, 1, b.length - 1, h);
}

function find(t: ByteKeyTable, key: string, hash?: number): number {
  const b = Buffer.from(`..${key}`);
  return t.find(b, 2, b.length, hash ?? hashBytes(b, 2, b.length));
}

test('ids are dense, found by bytes wherever the bytes sit, across growth', () => {
  const t = new ByteKeyTable();
  for (let i = 0; i < 20_000; i++) assert.equal(add(t, `series{n="${i}"}`), i);
  assert.equal(t.size, 20_000);
  for (let i = 0; i < 20_000; i += 7) assert.equal(find(t, `series{n="${i}"}`), i);
  assert.equal(find(t, 'series{n="20000"}'), -1);
  assert.equal(find(t, 'series{n="1"'), -1, 'a prefix is another key');
  assert.equal(add(t, 'series{n="5"}'), -1, 'present keys are found, not added again');
});

test('keys with equal hashes are told apart by their bytes', () => {
  const t = new ByteKeyTable();
  assert.equal(add(t, 'a', 42), 0);
  assert.equal(add(t, 'b', 42), 1);
  assert.equal(add(t, 'ab', 42), 2);
  assert.equal(find(t, 'b', 42), 1);
  assert.equal(find(t, 'ab', 42), 2);
  assert.equal(find(t, 'c', 42), -1);
});

test('compact keeps the chosen ids in order and renumbers them', () => {
  const t = new ByteKeyTable();
  for (let i = 0; i < 5000; i++) add(t, `k${i}`);
  const remap = t.compact((id) => id % 3 === 0);
  assert.equal(t.size, 1667);
  for (let i = 0; i < 5000; i++) {
    assert.equal(remap[i], i % 3 === 0 ? i / 3 : -1);
    assert.equal(find(t, `k${i}`), i % 3 === 0 ? i / 3 : -1);
  }
  assert.equal(add(t, 'new'), 1667, 'inserts continue after the kept ids');
});

test('prefixLength: a guessed id is confirmed by its bytes at an offset, whatever follows them', () => {
  const t = new ByteKeyTable();
  add(t, 'ab'); add(t, 'abc'); add(t, 'xy');
  const b = Buffer.from('..abc 1');
  assert.equal(t.prefixLength(1, b, 2), 3);
  assert.equal(t.prefixLength(0, b, 2), 2, 'a shorter key is a prefix too: the caller checks the byte after it');
  assert.equal(t.prefixLength(2, b, 2), -1, 'other bytes');
  assert.equal(t.prefixLength(2, Buffer.from('xz'), 0), -1, 'last byte differs');
  assert.equal(t.prefixLength(1, Buffer.from('..ab'), 2), -1, 'the buffer ends inside the key');
  assert.equal(t.prefixLength(3, b, 2), -1, 'past the last id');
  assert.equal(t.prefixLength(-1, b, 2), -1);
});
