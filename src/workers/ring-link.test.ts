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
    const frames: Uint8Array[] = [];
    for (let f = ring.tryRead(); f; f = ring.tryRead()) frames.push(f);
    assert.equal(frames.length, Math.max(1, Math.ceil(n / FRAME_MAX)), `frames for ${n} bytes`);
    const reader = new FrameReader();
    const done = frames.map((f) => reader.take(f));
    assert.ok(done.slice(0, -1).every((d) => d === null), 'only the last frame completes the message');
    assert.equal(done.at(-1)!.id, 7);
    assert.deepEqual(done.at(-1)!.bytes, msg);
  }
});

test('the caller may overwrite its bytes as soon as writeFrames returns', async () => {
  const ring = SpscRing.create(LINK_RING_BYTES);
  const msg = bytesOf(100, 1);
  const copy = msg.slice();
  const written = writeFrames(new SpscProducer(ring), 1, msg);
  msg.fill(0);
  await written;
  assert.deepEqual(new FrameReader().take(ring.tryRead()!)!.bytes, copy);
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
