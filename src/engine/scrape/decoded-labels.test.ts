/** Decoded label arrays: one per series across appends (consumers cache by identity), renewed after an eviction. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DecodedLabels } from './decoded-labels.ts';
import { SeriesTable } from './series-table.ts';
import { SampleColumns } from './sample-columns.ts';

test('a series keeps its decoded array across appends until its table renumbers', () => {
  const table = new SeriesTable(), cols = new SampleColumns(table), decoded = new DecodedLabels();
  const a = table.intern([{ name: '__name__', value: 'a' }]), b = table.intern([{ name: '__name__', value: 'b' }]);
  cols.push(a, 1, 1); cols.push(b, 1, 2); cols.push(a, 2, 3);
  const first = decoded.samples(cols);
  assert.deepEqual(first.map((s) => [s.labels[0].value, s.t, s.v]), [['a', 1, 1], ['b', 1, 2], ['a', 2, 3]]);
  assert.equal(first[0].labels, first[2].labels);
  cols.clear(); cols.push(b, 3, 4);
  assert.equal(decoded.samples(cols)[0].labels, first[1].labels, 'the next append: the same array');
  table.compact((id) => id === b); // b is id 0 now
  cols.clear(); cols.push(0, 4, 5);
  const after = decoded.samples(cols);
  assert.deepEqual(after[0].labels, [{ name: '__name__', value: 'b' }]);
  assert.notEqual(after[0].labels, first[1].labels, 'decoded again after the renumbering');
});
