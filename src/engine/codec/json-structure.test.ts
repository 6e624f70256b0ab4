import { test } from 'node:test';
import assert from 'node:assert/strict';
import { jsonStructureProblem, jsonProblemMessage } from './json-structure.ts';

const f = (text: string, want: unknown, maxDepth?: number): void => {
  JSON.parse(text); // the checker's precondition
  assert.deepEqual(jsonStructureProblem(text, maxDepth), want, text.slice(0, 80));
};

test('duplicate keys are found per object, including escaped spellings and many-key objects', () => {
  f('{"title":{"dup":1},"title":"x"}', { kind: 'duplicate', key: 'title', line: 1, col: 20 });
  f('{"a":{"a":1},"b":{"a":2}}', null);
  f('{"a":[{"k":1},{"k":2}],"k":3}', null);
  f('{"a":1,\n "\\u0061":2}', { kind: 'duplicate', key: 'a', line: 2, col: 2 });
  f('{"s":"x,\\"a\\":1","a":2}', null);
  const many = Array.from({ length: 40 }, (_, i) => `"k${i}":${i}`).join(',');
  f(`{${many}}`, null);
  f(`{${many},"k7":1}`, { kind: 'duplicate', key: 'k7', line: 1, col: many.length + 3 });
  f('[{"a":1,"b":{"c":[1,{"a":2}]},"a":2}]', { kind: 'duplicate', key: 'a', line: 1, col: 31 });
  // Escaped first, plain later; equal lengths that differ; a key that is a prefix of another.
  f('{"\\u0061b":1,"ab":2}', { kind: 'duplicate', key: 'ab', line: 1, col: 14 });
  f('{"ab":1,"ba":2,"a":3,"abc":4}', null);
  f('{"\\"q":1,"q":2,"\\"q":3}', { kind: 'duplicate', key: '"q', line: 1, col: 16 });
  // Strings ending in escaped backslashes or escaped quotes end where JSON says (odd and even backslash runs).
  f('{"s":"x\\\\","s":1}', { kind: 'duplicate', key: 's', line: 1, col: 12 });
  f('{"s":"\\\\\\"","t":"\\\\\\\\","s":1}', { kind: 'duplicate', key: 's', line: 1, col: 24 });
  f('{"":1,"\\\\":2,"":3}', { kind: 'duplicate', key: '', line: 1, col: 14 });
  // Keys of one document are not remembered for the next.
  f('{"x":1,"y":2}', null);
  f('{"y":1,"x":2}', null);
  f(`{"k16":0,${many}}`, { kind: 'duplicate', key: 'k16', line: 1, col: 10 + many.indexOf('"k16"') });
});

test('nesting deeper than the limit is found at the first bracket past it', () => {
  f('[[[]]]', null, 3);
  f('[[[[]]]]', { kind: 'depth', key: '', line: 1, col: 4 }, 3);
  f(`{"a":${'['.repeat(1000)}${']'.repeat(1000)}}`, { kind: 'depth', key: '', line: 1, col: 1005 });
  f(`${'{"a":'.repeat(1000)}1${'}'.repeat(1000)}`, null);
  assert.match(jsonProblemMessage({ kind: 'duplicate', key: 'x', line: 1, col: 9 }), /^Duplicate field 'x'\n at \[Source: .*line: 1, column: 9\]$/);
});

test('object depth counts objects under the top-level one, arrays transparent, and names the path', () => {
  f('{"a":{"b":{}}}', null, undefined);
  assert.equal(jsonStructureProblem('{"a":{"b":{}}}', 1000, 2), null);
  assert.deepEqual(jsonStructureProblem('{"a":{"b":[{"c":{}}]}}', 1000, 2), { kind: 'objectDepth', key: 'a.b.c', line: 1, col: 17 });
  assert.equal(jsonStructureProblem('{"a":[[[[{"b":1}]]]]}', 1000, 1), null);
  assert.equal(jsonStructureProblem('{"a":{"b":1},"c":{"d":1}}', 1000, 1), null);
  assert.deepEqual(jsonStructureProblem('{"\\u0061":{"b\\"c":{"d":{}}}}', 1000, 2), { kind: 'objectDepth', key: 'a.b"c.d', line: 1, col: 24 });
});
