import { test } from 'node:test';
import assert from 'node:assert/strict';
import { TermHash } from './term-hash.ts';
import { mulberry32 } from '../../../bench/support/mulberry32.ts';

// Mixed case ASCII, digits, and spans whose lowercase is not ASCII-only or changes length ('İ' → 'i̇').
// Terms at the inline key's edge (8 and 9 characters, a shared 8-character prefix, a NUL, which no inline key
// holds) exercise both the in-slot comparison and the string comparison.
const SPECIAL = ['Ärger', 'ärger', 'İstanbul', 'ΣΊΣΥΦΟΣ', 'straße', 'STRASSE', 'a', 'A', 'Zz', '9Z', '@', '',
  'abcdefgh', 'ABCDEFGH', 'abcdefghi', 'abcdefghij', 'abcdefgH1', 'abc\u0000', 'abc', 'ab\u0000c'];

function words(n: number, seed: number): string[] {
  const r = mulberry32(seed);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    let w = '';
    const len = 1 + Math.floor(r() * 9);
    for (let j = 0; j < len; j++) {
      const k = Math.floor(r() * 62);
      w += String.fromCharCode(k < 26 ? 97 + k : k < 52 ? 65 + k - 26 : 48 + k - 52);
    }
    out.push(w);
  }
  return out;
}

test('addLowerSpan gives the id add gives to the lowercased slice, across table growth', () => {
  const all = [...SPECIAL, ...words(20_000, 1)];
  const text = all.join(' ');
  // `mixed` starts presized (as a buffer following a larger one does): ids and terms must not depend on it.
  const byAdd = new TermHash(), bySpan = new TermHash(), mixed = new TermHash(30_000);
  let at = 0;
  for (let i = 0; i < all.length; i++) {
    const w = all[i], start = at, end = at + w.length;
    at = end + 1;
    const lower = w.toLowerCase();
    const a = byAdd.add(lower), b = bySpan.addLowerSpan(text, start, end);
    assert.equal(a, b, `ids differ for ${JSON.stringify(w)}`);
    assert.equal(bySpan.terms[b], lower);
    // Interleaving both entry points on one hash finds the same terms.
    const m = i % 2 === 0 ? mixed.add(lower) : mixed.addLowerSpan(text, start, end);
    assert.equal(mixed.terms[m], lower);
  }
  assert.deepEqual(bySpan.terms, byAdd.terms);
  assert.ok(byAdd.size > 10_000, 'the table grew several times');
  // Every term is found again (not re-added) by both paths after all growth.
  const size = bySpan.size;
  at = 0;
  for (const w of all) {
    assert.equal(bySpan.terms[bySpan.addLowerSpan(text, at, at + w.length)], w.toLowerCase());
    assert.equal(bySpan.terms[bySpan.add(w.toLowerCase())], w.toLowerCase());
    at += w.length + 1;
  }
  assert.equal(bySpan.size, size);
  assert.deepEqual(mixed.terms.slice().sort(), byAdd.terms.slice().sort());
});

test('terms that differ only in length or one character get their own ids', () => {
  const h = new TermHash();
  const text = 'ab abc abd ABD aB';
  assert.equal(h.addLowerSpan(text, 0, 2), 0);
  assert.equal(h.addLowerSpan(text, 3, 6), 1);
  assert.equal(h.addLowerSpan(text, 7, 10), 2);
  assert.equal(h.addLowerSpan(text, 11, 14), 2, 'ABD is abd');
  assert.equal(h.addLowerSpan(text, 15, 17), 0, 'aB is ab');
  assert.deepEqual(h.terms, ['ab', 'abc', 'abd']);
});

test('hashes that follow one another (cleared) give the terms and ids of fresh ones, however their vocabularies overlap', () => {
  // Three buffers in turn (two tables alternate): each shares part of the previous one's words, in other
  // cases, next to words of the same length and hash-table neighbourhood, and long words (compared by string).
  const vocab = [...SPECIAL, ...words(6_000, 2), ...words(300, 3).map((w) => `${w}-long-suffix-${w.length}`)];
  const buffers = [vocab.slice(0, 4_000), vocab.slice(2_000, 6_000).map((w, i) => (i % 3 === 0 ? w.toUpperCase() : w)), vocab.slice(1_000, 3_000).concat(vocab.slice(5_000))];
  let recycled = new TermHash();
  for (const [n, list] of buffers.entries()) {
    if (n > 0) recycled = recycled.cleared();
    const fresh = new TermHash(), text = list.join(' ');
    let at = 0;
    for (const w of list) {
      assert.equal(recycled.addLowerSpan(text, at, at + w.length), fresh.addLowerSpan(text, at, at + w.length), `buffer ${n}: ${w}`);
      at += w.length + 1;
    }
    assert.deepEqual(recycled.terms, fresh.terms, `buffer ${n}`);
  }
});
