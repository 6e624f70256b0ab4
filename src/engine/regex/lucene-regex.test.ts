/** Lucene 7 regexp syntax (ES `regexp` query, `terms` include/exclude), run as RE2. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileLuceneRegex, decimalInterval } from './lucene-regex.ts';
import { InvalidArgumentError } from '../errors.ts';

// [pattern, term, match?]
const CASES: [string, string, boolean][] = [
  ['[ab]', 'a', true], ['[ab]', 'ab', false], ['ab.*', 'abc', true], ['ab.*', 'xabc', false],
  ['a.c', 'a\nc', true], // `.` is any character
  ['^a$', '^a$', true], ['^a$', 'a', false], // anchors are ordinary characters
  ['\\d', 'd', true], ['\\d', '1', false], // `\c` is the literal c
  ['"a.b"', 'a.b', true], ['"a.b"', 'axb', false], ['a()b', 'ab', true],
  ['@', 'anything at all', true], ['a#', 'a', false], ['#|b', 'b', true],
  ['a{2,3}', 'aa', true], ['a{2,3}', 'aaaa', false], ['a{2,}', 'aaaaa', true], ['a{2}', 'aa', true],
  ['(ab|cd)+', 'abcdab', true], ['[^a-c]x', 'dx', true], ['[^a-c]x', 'bx', false], ['[a\\-]', '-', true],
  ['foo<1-100>', 'foo42', true], ['foo<1-100>', 'foo0042', true], ['foo<1-100>', 'foo101', false],
  ['<01-10>', '07', true], ['<01-10>', '7', false], ['<100-20>', '55', true], ['<0-0>', '0', true], ['<0-0>', '00', false],
  ['ab.*&.*cd', 'abxcd', true], ['ab.*&.*cd', 'abx', false], ['~(ab.*)', 'xyz', true], ['~(ab.*)', 'abc', false],
  ['x|~(y)', 'z', true], ['a*', '', true], ['*a', '*a', true], // a leading `*` is a literal
  ['😀.', '😀😀', true],
];

test('Lucene regexp syntax matches whole terms as Lucene does', () => {
  for (const [re, term, want] of CASES) assert.equal(compileLuceneRegex(re)(term), want, `${re} on ${JSON.stringify(term)}`);
});

test('decimal intervals match exactly the numbers of the range', () => {
  for (const [min, max] of [[0, 9], [7, 123], [1, 100], [15, 1500], [99, 101], [0, 1000000]] as const) {
    const re = new RegExp(`^(?:${decimalInterval(min, max, 0)})$`); // no backtracking risk: bounded digit classes
    for (let n = Math.max(0, min - 20); n <= Math.min(max + 20, min + 3000); n++) {
      assert.equal(re.test(String(n)), n >= min && n <= max, `${n} in [${min}, ${max}]`);
    }
    assert.equal(re.test('00' + String(max)), true, 'leading zeros are accepted without a fixed width');
  }
  const fixed = new RegExp(`^(?:${decimalInterval(5, 120, 3)})$`);
  assert.equal(fixed.test('005'), true);
  assert.equal(fixed.test('5'), false);
  assert.equal(fixed.test('121'), false);
});

test('invalid patterns and unsupported boolean nesting are refused with SEARCH_ILLEGAL_ARGUMENT', () => {
  for (const bad of ['(ab', '[ab', 'a{2', 'a|', '<1-x>', '"ab', 'a{3,2}', 'a(~b)c', 'x(a&b)*']) {
    assert.throws(() => compileLuceneRegex(bad), (e: Error) => e instanceof InvalidArgumentError && e.code === 'SEARCH_ILLEGAL_ARGUMENT' && e.message.includes(`[${bad}]`), bad);
  }
});

test('a backtracking bomb is answered, and answered correctly', () => {
  assert.equal(compileLuceneRegex('(a|aa)*b')('a'.repeat(64)), false);
  assert.equal(compileLuceneRegex('(a|aa)*b')('a'.repeat(64) + 'b'), true);
});
