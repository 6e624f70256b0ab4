import { test } from 'node:test';
import assert from 'node:assert/strict';
import { sortedUnion, sortedUnionBy } from './sorted-union.ts';
import { compareFlatLabels, compareLabels } from './labels.ts';

test('sortedUnion is the sorted distinct union, in the order Array.prototype.sort gives', () => {
  const lists = [['a', 'c', 'x'], [], ['b', 'c', 'z'], ['A', 'a', '\u{1F600}', '\uFFFD'].sort(), ['c']];
  const want = [...new Set(lists.flat())].sort();
  assert.deepEqual(sortedUnion(lists), want);
  assert.deepEqual(sortedUnion([]), []);
  assert.deepEqual(sortedUnion([[], ['only']]), ['only']);
});

test('sortedUnionBy merges flat label sets in compareLabels order, keeping equal sets once', () => {
  const a = [['__name__', 'a', 'i', '1'], ['__name__', 'a', 'i', '2'], ['__name__', 'b']];
  const b = [['__name__', 'a'], ['__name__', 'a', 'i', '2'], ['__name__', 'a', 'i', '3'], ['__name__', 'c']];
  const got = sortedUnionBy([a, [], b], compareFlatLabels).map((f) => f.join(','));
  assert.deepEqual(got, ['__name__,a', '__name__,a,i,1', '__name__,a,i,2', '__name__,a,i,3', '__name__,b', '__name__,c']);
  const asLabels = (f: string[]) => { const ls = []; for (let i = 0; i < f.length; i += 2) ls.push({ name: f[i], value: f[i + 1] }); return ls; };
  const all = [...a, ...b];
  for (const x of all) for (const y of all) assert.equal(Math.sign(compareFlatLabels(x, y)), Math.sign(compareLabels(asLabels(x), asLabels(y))));
});
