import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stringDistance } from './string-distance.ts';

test('Lucene spell-check similarities', () => {
  const f = (name: Parameters<typeof stringDistance>[0], a: string, b: string, want: number): void =>
    assert.equal(stringDistance(name, a, b), Math.fround(want), `${name} ${a} ${b}`);
  // levenshtein: edits over the longer string; a transposition costs two
  f('levenshtein', 'strng', 'string', 1 - 1 / 6);
  f('levenshtein', 'abcd', 'abdc', 1 - 2 / 4);
  f('levenshtein', '', '', 1);
  f('levenshtein', 'a', '', 0);
  // damerau_levenshtein: a transposition is one edit, over the shorter string
  f('damerau_levenshtein', 'abcd', 'abdc', 1 - 1 / 4);
  f('damerau_levenshtein', 'strng', 'string', 1 - 1 / 5);
  // jaro_winkler: MARTHA/MARHTA is the textbook pair (Jaro 0.944, Winkler 0.961)
  assert.ok(Math.abs(stringDistance('jaro_winkler', 'MARTHA', 'MARHTA') - 0.9611111) < 1e-6);
  assert.ok(Math.abs(stringDistance('jaro_winkler', 'DWAYNE', 'DUANE') - 0.84) < 1e-6);
  f('jaro_winkler', 'abc', 'xyz', 0);
});
