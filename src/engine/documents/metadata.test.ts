import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineError } from '../errors.ts';
import { validateIndexName } from './names.ts';
import { flattenSettings, nestSettings, validateSettings } from './settings.ts';
import { dynamicUpdate, NEED_LOSSLESS } from './dynamic.ts';
import { mergeMapping, renderMapping } from './mapping.ts';
import { buildIndex } from './index-create.ts';
import { applyAliasActions } from './aliases.ts';
import { parseTemplate } from './templates.ts';
import { EMPTY_STATE, withIndex, type ClusterState } from './cluster-state.ts';
import { resolveRead, resolveWrite } from './resolve.ts';
import { parse } from '../codec/lossless-json.ts';

const errOf = (fn: () => unknown): EngineError => {
  try { fn(); } catch (e) { if (e instanceof EngineError) return e; throw e; }
  assert.fail('expected an error');
};

test('index name validation follows ES order and wording', () => {
  const cases: [string, string][] = [
    ['a b', 'Invalid index name [a b], must not contain the following characters [ , ", *, \\, <, |, ,, >, /, ?]'],
    ['a#b', "Invalid index name [a#b], must not contain '#'"],
    ['_a', "Invalid index name [_a], must not start with '_', '-', or '+'"],
    ['x'.repeat(300), 'Invalid index name [' + 'x'.repeat(300) + '], index name is too long, (300 > 255)'],
    ['..', "Invalid index name [..], must not be '.' or '..'"],
    ['Abc', 'Invalid index name [Abc], must be lowercase'],
  ];
  for (const [name, msg] of cases) assert.equal(errOf(() => validateIndexName(name)).message, msg);
  validateIndexName('ok-name.1');
});

test('settings accept flat, prefixed and nested forms', () => {
  const want = { 'index.number_of_shards': '3', 'index.number_of_replicas': '0' };
  assert.deepEqual(flattenSettings({ number_of_shards: 3, number_of_replicas: '0' }), want);
  assert.deepEqual(flattenSettings({ 'index.number_of_shards': 3, 'index.number_of_replicas': 0 }), want);
  assert.deepEqual(flattenSettings({ index: { number_of_shards: 3, number_of_replicas: 0 } }), want);
  assert.deepEqual(nestSettings(want), { index: { number_of_replicas: '0', number_of_shards: '3' } });
  assert.match(errOf(() => validateSettings(flattenSettings({ foo: 1 }))).message, /^unknown setting \[index\.foo\] please check/);
  assert.match(errOf(() => validateSettings(flattenSettings({ number_of_shards: 0 }))).message, /must be >= 1/);
});

test('dynamic mapping follows the 6.x table', () => {
  const doc = parse('{"s":"hello","i":5,"f":1.5,"b":true,"d":"2015-01-01","d2":"2015/09/02","n":null,"e":[],"o":{"x":"1"},"arr":[null,3]}') as Record<string, unknown>;
  const u = dynamicUpdate({}, '_doc', doc);
  assert.deepEqual(renderMapping(u!), {
    properties: {
      arr: { type: 'long' }, b: { type: 'boolean' }, d: { type: 'date' },
      d2: { type: 'date', format: 'yyyy/MM/dd HH:mm:ss||yyyy/MM/dd' }, f: { type: 'float' }, i: { type: 'long' },
      o: { properties: { x: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } } } },
      s: { type: 'text', fields: { keyword: { type: 'keyword', ignore_above: 256 } } },
    },
  });
  assert.throws(() => dynamicUpdate({}, '_doc', { i: 5 }), (e) => e === NEED_LOSSLESS);
  assert.equal(dynamicUpdate({ properties: { i: { type: 'long' } } }, '_doc', { i: 5 }), null);
});

test('mapped values are validated with coercion', () => {
  const m = { properties: { age: { type: 'long' }, ok: { type: 'boolean' }, user: { properties: { name: { type: 'keyword' } } } } };
  assert.equal(dynamicUpdate(m, '_doc', { age: '5' }), null);
  const e = errOf(() => dynamicUpdate(m, '_doc', { age: 'abc' }));
  assert.equal(e.message, 'failed to parse field [age] of type [long]');
  assert.equal((e.details.cause as { message: string }).message, 'For input string: "abc"');
  assert.equal(errOf(() => dynamicUpdate(m, '_doc', { user: 'x' })).message,
    'object mapping for [user] tried to parse field [user] as object, but found a concrete value');
  assert.equal(errOf(() => dynamicUpdate({ dynamic: 'strict' }, '_doc', { foo: 'x' })).message,
    'mapping set to strict, dynamic introduction of [foo] within [_doc] is not allowed');
  assert.equal(dynamicUpdate({ dynamic: false }, '_doc', { foo: 'x' }), null);
});

test('mapping merge refuses type changes', () => {
  const cur = { properties: { age: { type: 'long' } } };
  assert.equal(errOf(() => mergeMapping(cur, { properties: { age: { type: 'text' } } })).message,
    'mapper [age] of different type, current_type [long], merged_type [text]');
  assert.deepEqual(mergeMapping(cur, { properties: { n: { type: 'keyword' } } }).properties, { age: { type: 'long' }, n: { type: 'keyword' } });
});

test('create index applies templates, then aliases switch atomically', () => {
  let st: ClusterState = { ...EMPTY_STATE, templates: { t1: parseTemplate('t1', { index_patterns: ['log*'], order: 1, settings: { number_of_shards: 2 }, aliases: { '{index}-a': {} }, mappings: { _doc: { properties: { h: { type: 'keyword' } } } } }) } };
  const idx = buildIndex(st, 'logs1', { settings: { number_of_replicas: 0 } }, { now: 1 });
  assert.equal(idx.settings['index.number_of_shards'], '2');
  assert.equal(idx.settings['index.number_of_replicas'], '0');
  assert.equal(idx.type, '_doc');
  assert.deepEqual(Object.keys(idx.aliases), ['logs1-a']);
  st = withIndex(st, idx);
  st = withIndex(st, buildIndex(st, 'logs2', null, { now: 2 }));
  st = applyAliasActions(st, { actions: [{ add: { index: 'logs1', alias: 'cur' } }] });
  assert.equal(resolveWrite(st, 'cur').name, 'logs1');
  st = applyAliasActions(st, { actions: [{ remove: { index: 'logs1', alias: 'cur' } }, { add: { index: 'logs2', alias: 'cur' } }] });
  assert.deepEqual(resolveRead(st, 'cur').map((r) => r.index.name), ['logs2']);
  const before = st;
  assert.throws(() => applyAliasActions(st, { actions: [{ add: { index: 'logs1', alias: 'x' } }, { add: { index: 'nope', alias: 'y' } }] }));
  assert.equal(st, before);
  assert.equal(errOf(() => buildIndex(st, 'logs1', null, { now: 3 })).message, `index [logs1/${st.indices.logs1.uuid}] already exists`);
});
