import { test } from 'node:test';
import assert from 'node:assert/strict';
import { simpleMatch } from './simple-match.ts';

test('simpleMatch: `*` is any run of characters, everything else literal', () => {
  const f = (pattern: string, value: string, want: boolean): void => assert.equal(simpleMatch(pattern, value), want, `${pattern} ~ ${value}`);
  f('', '', true); f('', 'a', false); f('*', '', true); f('*', 'anything', true);
  f('abc', 'abc', true); f('abc', 'abd', false); f('ab', 'abc', false);
  f('a*', 'a', true); f('a*', 'abc', true); f('*c', 'abc', true); f('*c', 'abd', false);
  f('a*c', 'ac', true); f('a*c', 'abbbc', true); f('a*c', 'abbbcd', false);
  f('*b*d*', 'abcde', true); f('*b*d*', 'abce', false); f('a**b', 'ab', true);
  f('log-*.2024', 'log-x.2024', true); f('a.b', 'axb', false); f('(a|b)', '(a|b)', true);
  f('*aab', 'aaab', true); f('*ab*ab', 'abxabab', true);
});

test('simpleMatch: many stars against a long value that does not match answer at once', () => {
  assert.equal(simpleMatch(`${'*a'.repeat(1000)}*b`, 'a'.repeat(5000)), false);
  assert.equal(simpleMatch(`${'*a'.repeat(1000)}*b`, `${'a'.repeat(5000)}b`), true);
});
