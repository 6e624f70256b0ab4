/**
 * A disk segment's postings are looked up in the block cache before the term's dictionary entry: a repeated term
 * costs one cache hit even after the dictionary has forgotten its entry (it remembers 128), and no read of the
 * dictionary block. Inline postings (terms in at most INLINE_MAX_DOCS docs, kept in the entry) are cached too,
 * counted at their heap footprint (~600 bytes for a few small arrays), not at their contents alone.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ShardIndex } from '../indexing/shard-index.ts';
import { BlockCache } from './block-cache.ts';
import { INLINE_MAX_DOCS } from './postings-format.ts';
import { ScratchIndex } from '../../../test/support/scratch-index.ts';

const mapping = { properties: { body: { type: 'text' } } };
const DOCS = 300;

test('postings come from the cache without the dictionary once read, inline ones counted at their heap footprint', async () => {
  const x = new ScratchIndex();
  // `common` is in every doc (postings file), `rare` in a few (inline); `u<i>` gives the dictionary 300 more terms.
  for (let i = 0; i < DOCS; i++) x.add(`d${i}`, { body: `common u${i}${i % 100 === 7 ? ' rare rare' : ''}` }, mapping);
  x.index.refresh();
  await x.flush();
  const dir = mkdtempSync(join(tmpdir(), 'postings-cache-'));
  cpSync(x.dir, dir, { recursive: true });
  await x.close();
  const cache = new BlockCache(16 << 20);
  const index = ShardIndex.open({ dir, indexSettings: {}, cache, memory: null, autoMerge: false });
  try {
    const reader = index.reader(mapping as never);
    assert.equal(reader.segments.length, 1);
    const field = reader.segments[0].field('body')!;
    const all = Array.from({ length: DOCS }, (_, i) => i);
    const rareDocs = all.filter((i) => i % 100 === 7);
    assert.ok(rareDocs.length <= INLINE_MAX_DOCS && DOCS > INLINE_MAX_DOCS, 'one inline term, one in the postings file');
    /** Reads every `u<i>` term's entry: the dictionary's remembered entries no longer hold `common`'s. */
    const forget = (): void => { for (let i = 0; i < DOCS; i++) assert.equal(field.docFreq(field.termId(`u${i}`)), 1); };

    const common = field.termId('common');
    for (const withPositions of [false, true]) {
      const first = field.postings(common, withPositions);
      forget();
      const before = cache.stats();
      const again = field.postings(common, withPositions);
      const after = cache.stats();
      assert.deepEqual([...again.docs.subarray(again.start, again.end)], all);
      assert.deepEqual([...again.freqs!.subarray(again.start, again.end)], all.map(() => 1));
      if (withPositions) assert.deepEqual([...again.positions!.subarray(again.posStart![again.start], again.posStart![again.end])], all.map(() => 0));
      // The same decoded arrays, found with one cache hit: the dictionary block was not read again.
      assert.equal(again.docs, first.docs, `served from the cache (positions ${withPositions})`);
      assert.equal(after.hits, before.hits + 1);
      assert.equal(after.misses, before.misses);
    }

    const rare = field.termId('rare');
    for (const withPositions of [false, true]) {
      forget(); // every dictionary block is cached now: what the next read adds is its postings alone
      const cold = cache.stats();
      const first = field.postings(rare, withPositions);
      const added = cache.stats();
      assert.equal(added.entries, cold.entries + 1);
      assert.ok(added.bytes - cold.bytes >= 500, `inline postings counted at ${added.bytes - cold.bytes} bytes`);
      forget();
      const before = cache.stats();
      const again = field.postings(rare, withPositions);
      const after = cache.stats();
      for (const p of [first, again]) {
        assert.deepEqual([...p.docs.subarray(p.start, p.end)], rareDocs);
        assert.deepEqual([...p.freqs!.subarray(p.start, p.end)], rareDocs.map(() => 2));
        if (withPositions) assert.deepEqual([...p.positions!.subarray(p.posStart![p.start], p.posStart![p.end])], rareDocs.flatMap(() => [2, 3]));
      }
      assert.equal(again.docs, first.docs, `inline postings served from the cache (positions ${withPositions})`);
      assert.equal(after.hits, before.hits + 1);
      assert.equal(after.misses, before.misses);
    }
  } finally {
    await index.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
