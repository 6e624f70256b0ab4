import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { SEGMENT_TERMS_MAGIC, SEGMENT_VERSION } from '../codec/format-ids.ts';
import { BlockCache, CacheOwner } from './block-cache.ts';
import { SegmentFileReader, SegmentFileWriter } from './segment-file.ts';
import { TermDictionaryReader, TermDictionaryWriter } from './term-dictionary.ts';
import { sortTerms } from '../postings/sort-terms.ts';

test('lookups find every written term with its values and blob, and no other string, whichever way a block is read', () => {
  // Narrow alphabets give long shared prefixes, proper-prefix terms and surrogate pairs across entry boundaries.
  const unit = fc.constantFrom('a', 'b', 'c', 'é', '中', '😀', '😁', 'z');
  const str = fc.string({ unit, minLength: 0, maxLength: 7 });
  const dir = mkdtempSync(join(tmpdir(), 'term-dict-'));
  let run = 0;
  try {
    fc.assert(fc.property(fc.uniqueArray(str, { minLength: 1, maxLength: 300 }), fc.array(str, { maxLength: 60 }), fc.boolean(), fc.array(fc.nat(), { maxLength: 20 }), (words, probes, blobs, iterate) => {
      const { terms } = sortTerms(words);
      const path = join(dir, `t${run++}.tim`);
      const w = new SegmentFileWriter(path, SEGMENT_TERMS_MAGIC, SEGMENT_VERSION);
      const tw = new TermDictionaryWriter(w, 3, blobs);
      terms.forEach((t, i) => tw.add(t, [i, i * 7, 2 ** 40 + i], blobs && i % 3 === 0 ? Uint8Array.of(i & 255, 1, 2) : null));
      const index = tw.finish();
      w.finish(false);
      const reader = new TermDictionaryReader(new SegmentFileReader(path, SEGMENT_TERMS_MAGIC, SEGMENT_VERSION, SEGMENT_VERSION), index, new BlockCache(1 << 20), new CacheOwner());
      for (const [j, t] of terms.entries()) {
        // Reading a term by ordinal decodes its block: later lookups in that block take the decoded path.
        if (iterate.includes(j)) assert.equal(reader.term(j), t);
        // Values identify the entry (value 0 is its index): reading `term(ord)` here would decode every block.
        const ord = reader.lookup(t);
        assert.equal(ord, j, `lookup of ${JSON.stringify(t)}`);
        const i = j;
        assert.deepEqual([reader.value(ord, 0), reader.value(ord, 1), reader.value(ord, 2)], [i, i * 7, 2 ** 40 + i]);
        const blob = reader.blob(ord);
        assert.deepEqual(blob && [...blob], blobs && i % 3 === 0 ? [i & 255, 1, 2] : null);
      }
      for (const p of probes) {
        const got = reader.lookup(p);
        assert.equal(got < 0 ? null : terms[reader.value(got, 0)], terms.includes(p) ? p : null, `probe ${JSON.stringify(p)}`);
      }
    }), { numRuns: 200 });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('an entry read by ordinal after its lookup was forgotten comes from the raw block, not a decoded one', () => {
  const dir = mkdtempSync(join(tmpdir(), 'term-dict-'));
  try {
    const path = join(dir, 'f.tim');
    const w = new SegmentFileWriter(path, SEGMENT_TERMS_MAGIC, SEGMENT_VERSION);
    const tw = new TermDictionaryWriter(w, 2, true);
    const terms = Array.from({ length: 1000 }, (_, i) => `t${String(i).padStart(4, '0')}`);
    terms.forEach((t, i) => tw.add(t, [i, i * 3], i % 5 === 0 ? Uint8Array.of(i & 255) : null));
    const index = tw.finish();
    w.finish(false);
    const cache = new BlockCache(1 << 22);
    const reader = new TermDictionaryReader(new SegmentFileReader(path, SEGMENT_TERMS_MAGIC, SEGMENT_VERSION, SEGMENT_VERSION), index, cache, new CacheOwner());
    // As the index reader's term-id memo does: ordinals looked up once, read again much later.
    const ords = terms.map((t) => reader.lookup(t));
    const entries = cache.stats().entries;
    for (let i = terms.length - 1; i >= 0; i--) {
      assert.deepEqual([reader.value(ords[i], 0), reader.value(ords[i], 1)], [i, i * 3]);
      assert.deepEqual(reader.blob(ords[i]) && [...reader.blob(ords[i])!], i % 5 === 0 ? [i & 255] : null);
    }
    assert.equal(cache.stats().entries, entries, 'no decoded block was cached');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
