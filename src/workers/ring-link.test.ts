import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SpscProducer, SpscRing } from '../engine/queue/spsc-ring.ts';
import { FRAME_MAX, FrameReader, LINK_RING_BYTES, readMessages, writeFrames } from './ring-link.ts';

const bytesOf = (n: number, seed: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 31 + seed) & 0xff);

test('a message splits into frames of at most FRAME_MAX bytes and reassembles exactly', async () => {
  for (const n of [0, 1, FRAME_MAX - 1, FRAME_MAX, FRAME_MAX + 1, 3 * FRAME_MAX + 17]) {
    const ring = SpscRing.create(LINK_RING_BYTES * 4);
    const msg = bytesOf(n, n);
    await writeFrames(new SpscProducer(ring), 7, msg);
    const sizes: number[] = [];
    const reader = new FrameReader();
    const done: ReturnType<FrameReader['readFrom']>[] = [];
    while (ring.nextLength() >= 0) { sizes.push(ring.nextLength()); done.push(reader.readFrom(ring)); }
    assert.equal(sizes.length, Math.max(1, Math.ceil(n / FRAME_MAX)), `frames for ${n} bytes`);
    assert.ok(sizes.every((s) => s <= FRAME_MAX + 8), 'frame size');
    assert.ok(done.slice(0, -1).every((d) => d === null), 'only the last frame completes the message');
    assert.equal(done.at(-1)!.id, 7);
    assert.deepEqual(done.at(-1)!.bytes, msg);
  }
});

test('frames of two messages in turn reassemble each, across the ring\'s wrap', async () => {
  // A ring a little over two frames, so frames wrap at varying offsets; the reader interleaves two ids.
  const ring = SpscRing.create(LINK_RING_BYTES);
  const producer = new SpscProducer(ring), reader = new FrameReader();
  const a = bytesOf(2 * FRAME_MAX + 5, 1), b = bytesOf(FRAME_MAX + 3, 2);
  const got = new Map<number, Uint8Array>();
  const drain = (): void => { while (ring.nextLength() >= 0) { const m = reader.readFrom(ring); if (m) got.set(m.id, m.bytes); } };
  for (let round = 0; round < 5; round++) {
    const wa = writeFrames(producer, 10 + round, a);
    const wb = writeFrames(producer, 20 + round, b);
    while (got.size < 2 * (round + 1)) { drain(); await Promise.resolve(); await new Promise((r) => setImmediate(r)); }
    await Promise.all([wa, wb]);
    assert.deepEqual(got.get(10 + round), a);
    assert.deepEqual(got.get(20 + round), b);
  }
});

test('the caller may overwrite its bytes as soon as writeFrames returns, whether the ring took them or they wait', async () => {
  const ring = SpscRing.create(LINK_RING_BYTES);
  const producer = new SpscProducer(ring);
  // The first message fills most of the ring, so the second's frames wait in the producer's queue.
  const big = bytesOf(LINK_RING_BYTES - 64, 9), msg = bytesOf(100, 1);
  const copy = msg.slice();
  const w1 = writeFrames(producer, 1, big);
  const w2 = writeFrames(producer, 2, msg);
  assert.ok(producer.queued > 0, 'the second message waits');
  msg.fill(0);
  const reader = new FrameReader();
  const got: Uint8Array[] = [];
  while (got.length < 2) {
    if (ring.nextLength() >= 0) { const m = reader.readFrom(ring); if (m) got.push(m.bytes); } else await new Promise((r) => setImmediate(r));
  }
  await Promise.all([w1, w2]);
  assert.deepEqual(got[0], big);
  assert.deepEqual(got[1], copy);
});

test('messages larger than the ring stream through it while the reader drains', async () => {
  const ring = SpscRing.create(LINK_RING_BYTES);
  const producer = new SpscProducer(ring);
  const sent = [bytesOf(3 * LINK_RING_BYTES + 5, 3), bytesOf(12, 4), bytesOf(LINK_RING_BYTES, 5)];
  const got: { id: number; bytes: Uint8Array }[] = [];
  const reading = readMessages(ring, (id, bytes) => { got.push({ id, bytes: bytes.slice() }); if (got.length === sent.length) ring.close(); });
  await Promise.all(sent.map((m, i) => writeFrames(producer, i + 1, m)));
  await reading;
  assert.deepEqual(got.map((g) => g.id), [1, 2, 3]);
  got.forEach((g, i) => assert.deepEqual(g.bytes, sent[i]));
});
