/** Go RE2 syntax in label matchers and label_replace, translated for JS; and Go's template expansion. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { compileGoRegex, expandTemplate } from '../../src/engine/promql/regex.ts';

const MATCHES: [string, string, boolean][] = [
  ['[[:digit:]]+', '123', true], ['[[:alpha:]]+', 'ab1', false], ['a\\Q.*\\Eb', 'a.*b', true], ['a\\Q.*\\Eb', 'axxb', false],
  ['(?i:ab)c', 'ABc', true], ['(?i:ab)c', 'ABC', false], ['(?i)ab', 'aB', true], ['foo\\z', 'foo', true],
  ['(?P<x>a)b', 'ab', true], ['[^[:space:]]+', 'a b', false], ['(?i)[a-c]+', 'ABC', true], ['.*?(?i:PRO).*', 'production', true],
  ['a.b', 'a\nb', false], ['(?s)a.b', 'a\nb', true], ['abc', 'xabcx', false],
];

test('Go regex syntax is honoured and matches are fully anchored', () => {
  for (const [re, s, want] of MATCHES) assert.equal(compileGoRegex(re).test(s), want, `${re} on ${JSON.stringify(s)}`);
});

test('Regexp.Expand semantics for label_replace replacements', () => {
  const m = compileGoRegex('(?P<host>[^:]+):(\\d+)').exec('db-1:5432')!;
  assert.equal(expandTemplate('$1', m), 'db-1');
  assert.equal(expandTemplate('${2}x', m), '5432x');
  assert.equal(expandTemplate('$2x', m), '');
  assert.equal(expandTemplate('$host-$$', m), 'db-1-$');
  assert.equal(expandTemplate('$9', m), '');
  assert.equal(expandTemplate('${host', m), '${host');
});
