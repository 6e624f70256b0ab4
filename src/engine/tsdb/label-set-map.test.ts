import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LabelSetMap } from './label-set-map.ts';
import { labelsToFlat } from './labels.ts';
import type { Labels } from './api.ts';

const ls = (...kv: string[]): Labels => { const out = []; for (let i = 0; i < kv.length; i += 2) out.push({ name: kv[i], value: kv[i + 1] }); return out; };

test('finds items by label set in both forms, and tells apart sets that share a hash', () => {
  const m = new LabelSetMap<{ labels: Labels; id: number }>();
  const a = { labels: ls('__name__', 'up', 'job', 'a'), id: 1 };
  const b = { labels: ls('__name__', 'up', 'job', 'b'), id: 2 };
  const c = { labels: ls('__name__', 'up', 'job', 'c'), id: 3 };
  m.add(a);
  m.add(b, 7); // forced collisions: b and c share hash 7
  m.add(c, 7);
  assert.equal(m.size, 3);
  assert.equal(m.get(ls('__name__', 'up', 'job', 'a'))?.id, 1);
  assert.equal(m.getFlat(labelsToFlat(a.labels))?.id, 1);
  assert.equal(m.get(b.labels, 7)?.id, 2);
  assert.equal(m.get(c.labels, 7)?.id, 3);
  assert.equal(m.get(ls('__name__', 'up', 'job', 'd'), 7), undefined);
  assert.equal(m.get(ls('__name__', 'up')), undefined, 'a subset is another set');
  m.delete(b, 7);
  assert.equal(m.get(b.labels, 7), undefined);
  assert.equal(m.get(c.labels, 7)?.id, 3);
  for (const x of m.values()) m.delete(x, x === a ? undefined : 7);
  assert.equal(m.size, 0);
  assert.deepEqual([...m.values()], []);
});
