import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { sortTerms } from './sort-terms.ts';

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
