import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encoderSlabBytes, outOfBand, pack, packMessage, packWithViews, SLAB_KEEP_BYTES, transferList, unpack, unpackWithViews } from './msgpack.ts';

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

test('a window of a Buffer is copied into a Buffer of its own, a window of a Uint8Array into a Uint8Array', () => {
  const json = Buffer.from('{"resultType":"vector"} and more');
  const bytes = new Uint8Array([1, 2, 3, 4, 5]);
  const msg = packWithViews({ j: outOfBand(json.subarray(0, 23)), u: outOfBand(bytes.subarray(1, 4)) });
  const back = unpackWithViews<{ j: Buffer; u: Uint8Array }>(msg);
  assert.ok(Buffer.isBuffer(back.j));
  assert.equal(back.j.toString(), '{"resultType":"vector"}');
  assert.equal(back.j.byteLength, back.j.buffer.byteLength);
  assert.ok(!Buffer.isBuffer(back.u) && back.u instanceof Uint8Array);
  assert.deepEqual([...back.u], [2, 3, 4]);
  assert.equal(back.u.byteLength, back.u.buffer.byteLength);
});

test('plain pack writes outOfBand arrays inline', () => {
  const back = unpack<{ a: Float64Array }>(pack({ a: outOfBand(new Float64Array([5, 6])) }));
  assert.deepEqual([...back.a], [5, 6]);
});

test('ring-link messages (records) unpack as plain messages do, and leave the reader right for plain ones after', () => {
  // Many shapes (more than msgpackr keeps record slots for), repeated shapes, nesting, and values that a
  // records reader could take for references (small integers 64..127).
  const shapes = Array.from({ length: 300 }, (_, i) => ({ [`k${i}`]: i, v: 64 + (i % 64), nested: { ok: { result: 'created', seqNo: i } } }));
  const message = {
    replies: Array.from({ length: 500 }, (_, i) => (i % 7 === 0 ? { err: { type: 'x', reason: `r${i}` } } : { ok: { result: 'created', version: 1, seqNo: i, primaryTerm: 1 } })),
    shapes, bytes: new Uint8Array([1, 2, 3]), none: null, empty: {}, list: [64, 65, 127, 'x'],
  };
  const viaRecords = unpack(packMessage(message));
  assert.deepEqual(viaRecords, unpack(pack(message)));
  assert.deepEqual((viaRecords as typeof message).shapes[299], shapes[299]);
  assert.ok(packMessage(message).byteLength < pack(message).byteLength, 'repeated shapes are written once');
  assert.deepEqual(unpack(pack({ a: 64, b: [100, 127], c: { d: 65 } })), { a: 64, b: [100, 127], c: { d: 65 } });
});

test('a large message leaves no large encoder slab behind, and its bytes stay valid after later messages', () => {
  const big = Array.from({ length: 40_000 }, (_, i) => `label_value_${i}_${'x'.repeat(80)}`);
  const bytes = pack(big);
  assert.ok(bytes.length > 3 * SLAB_KEEP_BYTES, `${bytes.length}`);
  assert.ok(encoderSlabBytes() <= SLAB_KEEP_BYTES, `slab ${encoderSlabBytes()} bytes after a ${bytes.length}-byte message`);
  const copy = Buffer.from(bytes);
  for (let i = 0; i < 50; i++) pack({ i, s: 'y'.repeat(1000) });
  packMessage([{ a: 1 }]);
  assert.ok(copy.equals(bytes), 'the returned bytes were overwritten by later messages');
  assert.deepEqual(unpack(bytes), big);
  const viaViews = packWithViews({ big, t: outOfBand(new Float64Array([1, 2])) });
  assert.ok(encoderSlabBytes() <= SLAB_KEEP_BYTES);
  assert.deepEqual(unpackWithViews<{ big: string[] }>(viaViews).big, big);
});

test('a message up to SLAB_KEEP_BYTES after a large one is written into the kept slab, without growing it', () => {
  pack(Array.from({ length: 40_000 }, (_, i) => `large_${i}_${'x'.repeat(80)}`));
  // A shard's half of a 2,000-document bulk: ~1,000 items of ~400-byte sources.
  const items = Array.from({ length: 1000 }, (_, i) => ({ action: 'index', op: { id: `log-${i}`, source: Buffer.alloc(400, 97) } }));
  const bytes = packMessage([{ op: 'docs.write', args: { items } }]);
  assert.ok(bytes.byteLength > 400_000 && bytes.byteLength < SLAB_KEEP_BYTES, `${bytes.byteLength}`);
  assert.equal(bytes.buffer.byteLength, SLAB_KEEP_BYTES, 'the message was written into a slab of the kept size');
  assert.equal(encoderSlabBytes(), SLAB_KEEP_BYTES);
});

test('consecutive messages are written over the same bytes of the slab; bytes of an earlier plain pack are left alone', () => {
  const held = pack({ keep: 'x'.repeat(100) });
  const copy = Buffer.from(held);
  const batch = (k: number) => [{ op: 'docs.write', args: { items: Array.from({ length: 1000 }, (_, i) => ({ action: 'index', op: { id: `d-${k}-${i}`, source: Buffer.alloc(400, 97 + k) } })) } }];
  const first = packMessage(batch(0));
  const at = first.byteOffset, buffer = first.buffer;
  for (let k = 1; k < 6; k++) {
    const m = packMessage(batch(k));
    assert.equal(m.buffer, buffer, `message ${k} was written into a new slab`);
    assert.equal(m.byteOffset, at, `message ${k} did not reuse the previous message's bytes`);
    assert.equal((unpack(m) as ReturnType<typeof batch>)[0].args.items[999].op.id, `d-${k}-999`);
  }
  assert.ok(copy.equals(held), 'a later message wrote over the bytes of an earlier plain pack');
});
