import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { SortScratch, sortTerms } from './sort-terms.ts';

test('sortTerms orders by UTF-16 code units, as Array#sort does, for any strings, and says where each came from', () => {
  // Small alphabets make long shared prefixes and equal strings; full Unicode covers wide code units and surrogates.
  const narrow = fc.string({ unit: fc.constantFrom('a', 'b', 'é', 'Ā', '\u0000', '😀'), maxLength: 6 });
  const strings = fc.oneof(narrow, fc.string({ unit: 'grapheme', maxLength: 8 }), fc.string({ maxLength: 12 }));
  fc.assert(fc.property(fc.array(strings, { maxLength: 400 }), (xs) => {
    const copy = xs.slice();
    const { terms, ids } = sortTerms(xs);
    assert.deepEqual(terms, copy.slice().sort());
    assert.deepEqual(xs, copy, 'the input is not changed');
    // ids name each sorted term's place in the input, each place once.
    assert.deepEqual([...ids].map((i) => xs[i]), terms);
    assert.deepEqual([...ids].sort((a, b) => a - b), xs.map((_, i) => i));
  }), { numRuns: 300 });
});

test('sortTerms with one scratch kept across sorts of growing and shrinking vocabularies gives what a fresh sort gives', () => {
  const scratch = new SortScratch();
  const words = fc.array(fc.string({ unit: fc.constantFrom('a', 'b', 'c', 'é', 'Ā'), maxLength: 5 }), { maxLength: 300 });
  fc.assert(fc.property(fc.array(words, { minLength: 2, maxLength: 6 }), (lists) => {
    for (const xs of lists) {
      const fresh = sortTerms(xs), kept = sortTerms(xs, scratch);
      assert.deepEqual(kept.terms, fresh.terms);
      assert.deepEqual([...kept.ids], [...fresh.ids]);
    }
  }), { numRuns: 100 });
});
