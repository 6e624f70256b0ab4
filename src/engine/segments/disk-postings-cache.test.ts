/**
 * A disk segment's decoded postings come from the block cache once read, inline ones (terms in at most
 * INLINE_MAX_DOCS docs, kept in the dictionary entry) as well as those in the postings file: a repeated term
 * costs a cache hit, not a dictionary read and a decode. The cached postings are the ones decoded the first time.
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
const DOCS = 100;

test('inline and file postings are decoded once, then served from the block cache', async () => {
  const x = new ScratchIndex();
  // `rare` is in 3 docs (inline in the dictionary), `common` in every doc (in the postings file).
  for (let i = 0; i < DOCS; i++) x.add(`d${i}`, { body: i % 40 === 7 ? 'common rare rare' : 'common word' }, mapping);
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
    const rareDocs = Array.from({ length: DOCS }, (_, i) => i).filter((i) => i % 40 === 7);
    assert.ok(rareDocs.length <= INLINE_MAX_DOCS && DOCS > INLINE_MAX_DOCS, 'one inline term, one in the postings file');
    for (const [term, want, freq] of [['rare', rareDocs, 2], ['common', Array.from({ length: DOCS }, (_, i) => i), 1]] as const) {
      const t = field.termId(term);
      for (const withPositions of [false, true]) {
        const first = field.postings(t, withPositions);
        const before = cache.stats();
        const again = field.postings(t, withPositions);
        const after = cache.stats();
        assert.deepEqual([...again.docs.subarray(again.start, again.end)], want, `${term} docs`);
        assert.deepEqual([...again.freqs!.subarray(again.start, again.end)], want.map(() => freq), `${term} freqs`);
        if (withPositions) assert.ok(again.positions && again.posStart, `${term} positions`);
        // The same decoded arrays, found with one cache hit and nothing read or decoded again.
        assert.equal(again.docs, first.docs, `${term} (positions ${withPositions}) served from the cache`);
        assert.equal(again.positions, first.positions);
        assert.equal(after.hits, before.hits + 1);
        assert.equal(after.misses, before.misses);
      }
    }
  } finally {
    await index.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
