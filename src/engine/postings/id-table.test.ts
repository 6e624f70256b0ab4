import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ByteColumn } from '../codec/byte-column.ts';
import { IdTable } from './id-table.ts';

test('an id table finds each id\'s live doc through growth, deletes, re-adds and non-ASCII ids', () => {
  const ids = new ByteColumn(4096);
  const t = new IdTable(ids);
  const live = new Map<string, number>();
  let doc = 0;
  const add = (id: string): void => { ids.setString(doc, id); t.set(id, doc); live.set(id, doc); doc++; };
  // 5,000 ids grow the 1,024-slot table several times; every third is deleted, every ninth then added again
  // (a new doc over its dead slot); ids differ by one character or one byte of a multi-byte character, and
  // some are long (hundreds of bytes: longer than the buffer a growing table first copies each id into).
  const name = (i: number): string => (i % 10 === 0 ? `ü-${i}-€` : i % 97 === 0 ? `${i}-`.padEnd(150 + (i % 362), 'é') : `id-${i}`);
  for (let i = 0; i < 5000; i++) add(name(i));
  for (let i = 0; i < 5000; i += 3) { assert.equal(t.delete(name(i)), live.get(name(i))); live.delete(name(i)); }
  for (let i = 0; i < 5000; i += 9) add(name(i));
  for (let i = 0; i < 5000; i++) assert.equal(t.get(name(i)), live.get(name(i)) ?? -1, name(i));
  assert.equal(t.delete('id-3'), -1, 'a deleted id is not deleted twice');
  assert.equal(t.get('id-'), -1);
  assert.equal(t.get('id-50000'), -1);

  const frozen = t.over(ids.frozen(doc));
  for (let i = 0; i < 5000; i += 7) assert.equal(frozen.get(name(i)), live.get(name(i)) ?? -1, `${name(i)} after freezing`);
});

test('ids with the same hash are told apart by their bytes, before and after the table grows', () => {
  // FNV-1a over the id's UTF-8 bytes, as the table hashes: find two ids that collide (a birthday search).
  const fnv = (s: string): number => { let h = 0x811c9dc5 | 0; for (let i = 0; i < s.length; i++) { h ^= s.charCodeAt(i); h = Math.imul(h, 0x01000193); } return h; };
  const seen = new Map<number, string>();
  let pair: [string, string] | null = null;
  for (let i = 0; pair === null; i++) {
    const id = `c${i}`, h = fnv(id), other = seen.get(h);
    if (other !== undefined) pair = [other, id]; else seen.set(h, id);
  }
  const [a, b] = pair;
  assert.equal(fnv(a), fnv(b));
  const ids = new ByteColumn(4096), t = new IdTable(ids);
  ids.setString(0, a); t.set(a, 0);
  assert.equal(t.get(b), -1, 'an id whose hash another id has is not that id');
  ids.setString(1, b); t.set(b, 1);
  assert.deepEqual([t.get(a), t.get(b)], [0, 1]);
  for (let d = 2; d < 3000; d++) { ids.setString(d, `x${d}`); t.set(`x${d}`, d); }
  assert.deepEqual([t.get(a), t.get(b), t.get('x2999')], [0, 1, 2999], 'after growth');
  assert.equal(t.delete(a), 0);
  assert.deepEqual([t.get(a), t.get(b)], [-1, 1], 'deleting one leaves the other');
});
