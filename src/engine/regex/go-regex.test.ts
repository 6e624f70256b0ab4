/** Go RE2 syntax as label matchers, relabelling and label_replace read it; Go's template expansion. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileGoRegex, compileGoRegexUnanchored, goRegexPredicate } from './go-regex.ts';
import { expandGoTemplate } from './expand.ts';
import { InvalidArgumentError } from '../errors.ts';

// [pattern, value, whole-value match?]
const MATCHES: [string, string, boolean][] = [
  ['[[:digit:]]+', '123', true], ['[[:alpha:]]+', 'ab1', false], ['a\\Q.*\\Eb', 'a.*b', true], ['a\\Q.*\\Eb', 'axxb', false],
  ['(?i:ab)c', 'ABc', true], ['(?i:ab)c', 'ABC', false], ['(?i)ab', 'aB', true], ['foo\\z', 'foo', true],
  ['(?P<x>a)b', 'ab', true], ['[^[:space:]]+', 'a b', false], ['(?i)[a-c]+', 'ABC', true], ['.*?(?i:PRO).*', 'production', true],
  ['a.b', 'a\nb', false], ['(?s)a.b', 'a\nb', true], ['abc', 'xabcx', false], ['a|b', 'ab', false],
  // The shortcuts (literal, literal alternation, .*, .+) agree with the regex.
  ['', '', true], ['', 'x', false], ['foo', 'foo', true], ['foo|bar', 'bar', true], ['foo|bar', 'foobar', false],
  ['.*', '', true], ['.*', 'a\nb', false], ['.+', '', false], ['.+', 'x', true], ['.+', '\n', false],
  ['api-.*', 'api-x', true], ['api-.*', 'api-', true], ['api-.*', 'xapi-', false], ['api-.*', 'api-\n', false],
  ['.*-prod', 'eu-prod', true], ['.*-prod', 'eu-prod2', false], ['.*-prod', 'eu\n-prod', false],
  ['.*err.*', 'an error', true], ['.*err.*', 'fine', false], ['.*err.*', 'err\nx', false], ['.*e\\.r.*', 'xe.rx', true],
  // Alternatives of literals and affixes, each tested alone; a newline anywhere goes to the regex.
  ['s1.*|s2.*', 's10', true], ['s1.*|s2.*', 's2', true], ['s1.*|s2.*', 's3', false], ['s1.*|s2.*', 'xs1', false],
  ['s1.*|s2.*', 's1\n', false], ['s1.*|s2.*', 's2x\ny', false], ['a|.*-prod|.*err.*', 'a', true], ['a|.*-prod|.*err.*', 'ab', false],
  ['a|.*-prod|.*err.*', 'eu-prod', true], ['a|.*-prod|.*err.*', 'an error', true], ['a|.*-prod|.*err.*', 'eu-prod\n', false],
  ['|x.*', '', true], ['|x.*', 'xy', true], ['|x.*', 'y', false], ['x.*|.*', 'y', true], ['x.*|.*', 'y\nz', false],
  // Unicode: `.` is one code point, also outside the BMP.
  ['.', '😀', true], ['..', '😀', false], ['[[:^alpha:]]', '1', true],
];

test('Go regex syntax is honoured and matches are fully anchored', () => {
  for (const [re, s, want] of MATCHES) {
    assert.equal(compileGoRegex(re).matchesWhole(s), want, `compileGoRegex ${re} on ${JSON.stringify(s)}`);
    assert.equal(goRegexPredicate(re)(s), want, `goRegexPredicate ${re} on ${JSON.stringify(s)}`);
  }
});

test('an invalid pattern is an InvalidArgumentError with Go\'s message, also for shortcut-shaped patterns', () => {
  for (const bad of ['(', 'a**', 'x{1001}', '\\8', '(?<', '[[:nope:]]']) {
    assert.throws(() => goRegexPredicate(bad), (e: Error) => e instanceof InvalidArgumentError && e.message.startsWith('error parsing regexp: '), bad);
  }
});

test('a backtracking bomb is answered, and answered correctly', () => {
  // `(a|aa)*b` against a run of `a`s backtracks exponentially in a JS RegExp; RE2 is linear in the input.
  const value = 'a'.repeat(64);
  assert.equal(goRegexPredicate('(a|aa)*b')(value), false);
  assert.equal(goRegexPredicate('(a|aa)*b')(value + 'b'), true);
  assert.equal(goRegexPredicate('(x+x+)+y')('x'.repeat(64)), false);
});

test('unanchored search finds a match inside the value', () => {
  assert.equal(compileGoRegexUnanchored('o+').matchesPart('foo'), true);
  assert.equal(compileGoRegexUnanchored('^o+').matchesPart('foo'), false);
  assert.deepEqual(compileGoRegexUnanchored('o').execAll('foo').map((m) => m.index), [1, 2]);
});

test('Regexp.Expand semantics for relabel and label_replace replacements', () => {
  const m = compileGoRegex('(?P<host>[^:]+):(\\d+)').exec('db-1:5432')!;
  const f = (tpl: string, want: string): void => assert.equal(expandGoTemplate(tpl, m), want, tpl);
  f('$1', 'db-1');
  f('${2}x', '5432x');
  f('$2x', '');
  f('$host-$$', 'db-1-$');
  f('$9', '');
  f('${host', '${host');
  f('${bad-}', '${bad-}');
  f('$', '$');
  f('no dollars', 'no dollars');
  const optional = compileGoRegex('(a)(b)?').exec('a')!;
  assert.equal(expandGoTemplate('[$2]', optional), '[]');
});
