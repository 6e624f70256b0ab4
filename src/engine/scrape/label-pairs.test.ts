import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LabelPairTable } from './label-pairs.ts';

const fresh = (s: string): string => Buffer.from(s).toString();

test('label pairs: an equal pair comes back as the same object; different pairs do not mix', () => {
  const t = new LabelPairTable(10);
  const a = t.pair(fresh('code'), fresh('200'));
  assert.equal(t.pair(fresh('code'), fresh('200')), a);
  assert.deepEqual(a, { name: 'code', value: '200' });
  const b = t.pair('code', '500'), c = t.pair('status', '200');
  assert.notEqual(b, a);
  assert.notEqual(c, a);
  assert.deepEqual([b.value, c.name], ['500', 'status']);
  assert.equal(t.size, 3);
});

test('label pairs: bounded; past the bound new pairs are fresh objects with the right text, kept ones still shared', () => {
  const t = new LabelPairTable(4);
  const kept = [0, 1, 2, 3].map((i) => t.pair('n', String(i)));
  const over = t.pair('n', '4');
  assert.deepEqual(over, { name: 'n', value: '4' });
  assert.notEqual(t.pair('n', '4'), over, 'not kept past the bound');
  assert.equal(t.size, 4);
  assert.equal(t.pair('n', '2'), kept[2]);
});
