import { test } from 'node:test';
import assert from 'node:assert/strict';
import { outOfBand, pack, packWithViews, transferList, unpack, unpackWithViews } from './msgpack.ts';

test('outOfBand arrays travel beside the bytes, each owning its buffer, and come back in place', () => {
  const big = new Float64Array([1, 2, 3, 4]);
  const window = big.subarray(1, 3);
  const ids = new Uint32Array([7, 8]);
  const msg = packWithViews({ a: outOfBand(window), b: [outOfBand(ids), 'x'] });
  assert.equal(msg.x.length, 2);
  assert.equal(msg.x[0].byteLength, msg.x[0].buffer.byteLength, 'a window is copied into its own buffer');
  assert.equal(transferList(msg).length, 3);
  const back = unpackWithViews<{ a: Float64Array; b: [Uint32Array, string] }>(msg);
  assert.ok(back.a instanceof Float64Array);
  assert.deepEqual([...back.a], [2, 3]);
  assert.deepEqual([...back.b[0]], [7, 8]);
  assert.equal(back.b[1], 'x');
});

test('plain pack writes outOfBand arrays inline', () => {
  const back = unpack<{ a: Float64Array }>(pack({ a: outOfBand(new Float64Array([5, 6])) }));
  assert.deepEqual([...back.a], [5, 6]);
});
