import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlockCache, CacheOwner } from './block-cache.ts';

/** Loads `owner`'s `key` through the main section, counting loads (misses) as `name:key`. */
function getter(cache: BlockCache) {
  const loads: string[] = [];
  const get = (owner: CacheOwner, name: string, key: number, bytes = 100): string =>
    cache.get(owner, key, () => { loads.push(`${name}:${key}`); return { value: `v:${name}:${key}`, bytes }; });
  return { get, loads };
}

test('the byte budget holds while a stream of new entries passes through', () => {
  const cache = new BlockCache(8 * 10_000); // main section: 3/4 of it (a quarter is the columns')
  const { get } = getter(cache);
  const o = new CacheOwner();
  for (let i = 0; i < 10_000; i++) assert.equal(get(o, 'k', i), `v:k:${i}`);
  const s = cache.stats();
  assert.ok(s.bytes <= 6 * 10_000, `cached ${s.bytes} bytes`);
  assert.equal(s.entries, Math.floor(6 * 10_000 / 100));
  assert.equal(o.entries.size, s.entries, 'evicted entries leave their owner too');
});

test('an entry read again and again outlives a scan of many cold entries', () => {
  const cache = new BlockCache(8 * 10_000); // room for 600 entries in the main section
  const { get, loads } = getter(cache);
  const hot = new CacheOwner(), cold = new CacheOwner();
  get(hot, 'hot', 0);
  for (let i = 0; i < 20_000; i++) {
    get(cold, 'cold', i);
    if (i % 100 === 0) get(hot, 'hot', 0);
  }
  assert.equal(loads.filter((k) => k === 'hot:0').length, 1, 'the hot entry was never evicted');
});

test('least recently used entries go first', () => {
  const cache = new BlockCache(8 * 10_000);
  const { get, loads } = getter(cache);
  const k = new CacheOwner(), n = new CacheOwner();
  for (let i = 0; i < 600; i++) get(k, 'k', i); // full
  // Touch the 100 oldest, then add 100 new entries.
  for (let i = 0; i < 100; i++) get(k, 'k', i);
  for (let i = 0; i < 100; i++) get(n, 'n', i);
  loads.length = 0;
  for (let i = 0; i < 100; i++) get(k, 'k', i);
  assert.deepEqual(loads, [], 'the touched entries stayed');
  for (let i = 100; i < 200; i++) get(k, 'k', i);
  assert.equal(loads.length, 100, 'the untouched oldest ones were evicted');
});

test('equal keys of different owners are different entries; drop removes exactly one owner\'s entries and bytes', () => {
  const cache = new BlockCache(8 * 10_000);
  const { get, loads } = getter(cache);
  const a = new CacheOwner(), b = new CacheOwner();
  for (let i = 0; i < 50; i++) { assert.equal(get(a, 'a', i), `v:a:${i}`); assert.equal(get(b, 'b', i), `v:b:${i}`); }
  // An entry of `a` in another section (an owner's keys are one space across sections).
  cache.getColumn(a, 1000, () => ({ value: 'column', bytes: 1000 }));
  assert.equal(cache.stats().entries, 101);
  cache.drop(a);
  assert.equal(cache.stats().entries, 50);
  assert.equal(cache.stats().bytes, 50 * 100);
  assert.equal(a.entries.size, 0);
  loads.length = 0;
  for (let i = 0; i < 50; i++) { get(a, 'a', i); get(b, 'b', i); }
  assert.equal(loads.length, 50);
  assert.ok(loads.every((k) => k.startsWith('a:')));
});

test('clear empties every section and every owner', () => {
  const cache = new BlockCache(8 * 10_000);
  const { get } = getter(cache);
  const a = new CacheOwner();
  for (let i = 0; i < 20; i++) get(a, 'a', i);
  cache.getColumn(a, 1000, () => ({ value: 'column', bytes: 100 }));
  cache.clear();
  assert.deepEqual({ entries: cache.stats().entries, bytes: cache.stats().bytes, owned: a.entries.size }, { entries: 0, bytes: 0, owned: 0 });
});
