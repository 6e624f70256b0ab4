import { test } from 'node:test';
import assert from 'node:assert/strict';
import { BlockCache } from './block-cache.ts';

/** Loads `key` through the main section, counting loads (misses). */
function getter(cache: BlockCache) {
  const loads: string[] = [];
  const get = (key: string, bytes = 100): string => cache.get(key, () => { loads.push(key); return { value: `v:${key}`, bytes }; });
  return { get, loads };
}

test('the byte budget holds while a stream of new entries passes through', () => {
  const cache = new BlockCache(8 * 10_000); // main section: 5/8 of it
  const { get } = getter(cache);
  for (let i = 0; i < 10_000; i++) assert.equal(get(`k${i}`), `v:k${i}`);
  const s = cache.stats();
  assert.ok(s.bytes <= 5 * 10_000, `cached ${s.bytes} bytes`);
  assert.equal(s.entries, Math.floor(5 * 10_000 / 100));
});

test('an entry read again and again outlives a scan of many cold entries', () => {
  const cache = new BlockCache(8 * 10_000); // room for 500 entries in the main section
  const { get, loads } = getter(cache);
  get('hot');
  for (let i = 0; i < 20_000; i++) {
    get(`cold${i}`);
    if (i % 100 === 0) get('hot');
  }
  assert.equal(loads.filter((k) => k === 'hot').length, 1, 'the hot entry was never evicted');
});

test('least recently used entries go first', () => {
  const cache = new BlockCache(8 * 10_000);
  const { get, loads } = getter(cache);
  for (let i = 0; i < 500; i++) get(`k${i}`); // full
  // Touch the 100 oldest, then add 100 new entries.
  for (let i = 0; i < 100; i++) get(`k${i}`);
  for (let i = 0; i < 100; i++) get(`n${i}`);
  loads.length = 0;
  for (let i = 0; i < 100; i++) get(`k${i}`);
  assert.deepEqual(loads, [], 'the touched entries stayed');
  for (let i = 100; i < 200; i++) get(`k${i}`);
  assert.equal(loads.length, 100, 'the untouched oldest ones were evicted');
});

test('dropPrefix removes exactly the prefixed entries and their bytes', () => {
  const cache = new BlockCache(8 * 10_000);
  const { get, loads } = getter(cache);
  for (let i = 0; i < 50; i++) { get(`a:${i}`); get(`b:${i}`); }
  cache.dropPrefix('a:');
  assert.equal(cache.stats().entries, 50);
  assert.equal(cache.stats().bytes, 50 * 100);
  loads.length = 0;
  for (let i = 0; i < 50; i++) { get(`a:${i}`); get(`b:${i}`); }
  assert.equal(loads.length, 50);
  assert.ok(loads.every((k) => k.startsWith('a:')));
});
