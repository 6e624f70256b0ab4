/** The one label-set module: keys, the flat form, routing and builders, as PromQL, rules, scrape and the head use them. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  buildLabels, getLabel, labelsFromFlat, labelsFromRecord, labelsKey, labelsKeyOfFlat, labelsToFlat, labelsToRecord,
  labelsHash, normalizeLabels, setLabel, shardOfHash, shardOfSeries,
} from './labels.ts';

const ls = labelsFromRecord({ job: 'api', __name__: 'up', instance: 'a:1', empty: '' });

test('a label set is built sorted, without empty values, and converts both ways', () => {
  assert.deepEqual(ls.map((l) => l.name), ['__name__', 'instance', 'job']);
  assert.deepEqual(labelsToRecord(ls), { __name__: 'up', instance: 'a:1', job: 'api' });
  assert.deepEqual(labelsFromFlat(labelsToFlat(ls)), ls);
  assert.deepEqual(normalizeLabels([{ name: 'b', value: '1' }, { name: 'a', value: '' }, { name: 'a2', value: '2' }]).map((l) => l.name), ['a2', 'b']);
});

test('the key of a label set is the key of its flat form (the worker protocol keys series without label objects)', () => {
  assert.equal(labelsKey(ls), labelsKeyOfFlat(labelsToFlat(ls)));
  assert.equal(labelsKey(ls), '__name__\xffup\xffinstance\xffa:1\xffjob\xffapi');
  assert.equal(labelsKey([]), '');
  // Different label sets, different keys, also where a naive concatenation would collide.
  assert.notEqual(labelsKey(labelsFromRecord({ a: 'bc' })), labelsKey(labelsFromRecord({ ab: 'c' })));
  assert.notEqual(labelsKey(labelsFromRecord({ a: '1', b: '2' })), labelsKey(labelsFromRecord({ a: '1b2' })));
});

test('series routing is pinned: a change would move series to other workers', () => {
  assert.equal(shardOfSeries(['__name__', 'up'], 1_000_003), 634_620); // values from the routing before it moved into the engine
  assert.equal(shardOfSeries(['__name__', 'a', 'k', '1'], 2), 1);
  assert.equal(shardOfSeries(['__name__', 'req_total', 'i', '7', 'job', 'x'], 7), 3);
  const counts = [0, 0, 0, 0];
  for (let i = 0; i < 4000; i++) counts[shardOfSeries(['__name__', 'm', 'i', String(i)], 4)]++;
  for (const c of counts) assert.ok(c > 800 && c < 1200, `balanced: ${counts}`);
  // A worker deciding which series of a shared block are its own routes them as the client does.
  for (let i = 0; i < 200; i++) {
    const flat = ['__name__', 'm', 'i', String(i), 'job', `j${i % 7}`];
    assert.equal(shardOfHash(labelsHash(labelsFromFlat(flat)), 3), shardOfSeries(flat, 3));
  }
});

test('getLabel, setLabel and buildLabels keep label sets sorted and drop empty values', () => {
  assert.equal(getLabel(ls, 'job'), 'api');
  assert.equal(getLabel(ls, 'nope'), '');
  assert.deepEqual(setLabel(ls, 'zone', 'eu').map((l) => l.name), ['__name__', 'instance', 'job', 'zone']);
  assert.deepEqual(setLabel(ls, 'job', '').map((l) => l.name), ['__name__', 'instance']);
  assert.deepEqual(labelsToRecord(buildLabels(ls, [['b', 'x'], ['job', '']], ['instance'])), { __name__: 'up', b: 'x' });
});
