import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EngineError } from '../errors.ts';
import { runScript } from './painless.ts';
import { parseLossless, stringifyLossless } from './source.ts';

/** [script, params, source before, source after (or error cause code / 'op:<op>')]. */
const CASES: [string, Record<string, unknown>, string, string][] = [
  ['ctx._source.n += 1', {}, '{"n":1}', '{"n":2}'],
  ['ctx._source.n++', {}, '{"n":1}', '{"n":2}'],
  ['ctx._source.n -= params.k', { k: 5 }, '{"n":1}', '{"n":-4}'],
  ['ctx._source.d += 1', {}, '{"d":1.5}', '{"d":2.5}'],
  ['ctx._source.d = ctx._source.d * 2', {}, '{"d":1.0}', '{"d":2.0}'],
  ['ctx._source.q = 7 / 2; ctx._source.r = 7.0 / 2', {}, '{}', '{"q":3,"r":3.5}'],
  ['ctx._source.big = 1e10 * 10', {}, '{}', '{"big":1.0E11}'],
  ['ctx._source.i = 2147483647 + 1', {}, '{}', '{"i":-2147483648}'],
  ['ctx._source.s = "a" + 1 + 2.0 + true + null', {}, '{}', '{"s":"a12.0truenull"}'],
  ["ctx._source.tags.add('b'); ctx._source.tags.remove(0)", {}, '{"tags":["a"]}', '{"tags":["b"]}'],
  ["if (ctx._source.tags.contains('a')) { ctx._source.has = true } else { ctx._source.has = false }", {}, '{"tags":["a"]}', '{"tags":["a"],"has":true}'],
  ["ctx._source.remove('x')", {}, '{"x":1,"y":2}', '{"y":2}'],
  ["ctx._source.c = ctx._source.containsKey('x') ? 'yes' : 'no'", {}, '{"x":1}', '{"x":1,"c":"yes"}'],
  ['ctx._source.o.p = params.v', { v: 'z' }, '{"o":{}}', '{"o":{"p":"z"}}'],
  ["ctx._source['k'] = ctx._source.list[1]", {}, '{"list":[1,2]}', '{"list":[1,2],"k":2}'],
  ['int t = 0; for (def x : ctx._source.l) { t += x } ctx._source.t = t', {}, '{"l":[1,2,3]}', '{"l":[1,2,3],"t":6}'],
  ['for (int i = 0; i < 3; i++) { ctx._source.n++ }', {}, '{"n":0}', '{"n":3}'],
  ['ctx._source.l = [1, 2]; ctx._source.m = [:]; ctx._source.m.a = ctx._source.l.size()', {}, '{}', '{"l":[1,2],"m":{"a":2}}'],
  ['ctx._source.e = ctx._source.a != null && !(ctx._source.a < 1) || false', {}, '{"a":2}', '{"a":2,"e":true}'],
  ["ctx.op = 'delete'", {}, '{}', 'op:delete'],
  ["if (ctx._source.n == 1) { ctx.op = 'none' }", {}, '{"n":1}', 'op:none'],
  ['ctx._source.n.x', {}, '{"n":1}', 'DOC_SCRIPT_CLASS_CAST'],
  ['ctx._source.missing += 1', {}, '{}', 'DOC_SCRIPT_NULL_POINTER'],
  ['ctx._source.n = 1 / 0', {}, '{}', 'DOC_SCRIPT_ARITHMETIC'],
  ['ctx._source.l[5] = 1', {}, '{"l":[]}', 'DOC_SCRIPT_INDEX_BOUNDS'],
  ['while (true) { }', {}, '{}', 'DOC_SCRIPT'],
  ['ctx._source.x = /a/', {}, '{}', 'DOC_ILLEGAL_ARGUMENT'],
  ['System.exit(0)', {}, '{}', 'DOC_ILLEGAL_ARGUMENT'],
  ['x -> x', {}, '{}', 'DOC_ILLEGAL_ARGUMENT'],
  // No way out to prototypes: these only touch own data properties.
  ["ctx._source['__proto__'].polluted = 1", {}, '{}', 'DOC_SCRIPT_NULL_POINTER'],
  ["ctx._source.c = ctx._source.constructor", {}, '{}', '{"c":null}'],
  ["ctx._source['__proto__'] = 5", {}, '{}', '{"__proto__":5}'],
];

test('painless subset: table of scripts', () => {
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  for (const [source, params, before, after] of CASES) {
    const ctx: Record<string, unknown> = { _source: parseLossless(before), op: 'index' };
    try {
      runScript({ source, params, lang: 'painless' }, ctx);
    } catch (e) {
      assert.ok(e instanceof EngineError, `${source}: ${e}`);
      assert.equal(e.message, 'failed to execute script', source);
      const c = e.details.cause as { details: { cause: { code: string } } };
      assert.equal(c.details.cause.code, after, source);
      continue;
    }
    if (after.startsWith('op:')) assert.equal(ctx.op, after.slice(3), source);
    else assert.equal(stringifyLossless(ctx._source), after, source);
  }
});

test('scripts cannot pollute prototypes', () => {
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
});
