import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { SpscProducer, SpscRing } from './spsc-ring.ts';
import { LimitExceededError } from '../errors.ts';

const msg = (n: number, fill: number): Uint8Array => new Uint8Array(n).fill(fill & 0xff);

test('messages come out in order with their exact bytes', () => {
  const ring = SpscRing.create(64);
  for (const n of [0, 1, 3, 4, 5]) assert.equal(ring.tryWrite(msg(n, n + 1)), true);
  for (const n of [0, 1, 3, 4, 5]) assert.deepEqual(ring.tryRead(), msg(n, n + 1));
  assert.equal(ring.tryRead(), null);
});

test('wrap-around: payloads split across the end of the data area survive', () => {
  const ring = SpscRing.create(64);
  // Walk the write position around the ring many times with sizes that do not divide the capacity.
  for (let i = 0; i < 500; i++) {
    const m = msg(1 + (i * 7) % 41, i);
    assert.equal(ring.tryWrite(m), true, `write ${i}`);
    assert.deepEqual(ring.tryRead(), m, `read ${i}`);
  }
  assert.equal(ring.used(), 0);
});

test('a head and a body written as one message, and a message read in parts, at every wrap position', () => {
  const ring = SpscRing.create(64);
  const bytes = (n: number, seed: number): Uint8Array => Uint8Array.from({ length: n }, (_, i) => (i * 13 + seed) & 0xff);
  for (let i = 0; i < 300; i++) {
    const head = bytes(1 + (i % 9), i), body = bytes((i * 5) % 37, i + 100);
    assert.equal(ring.tryWrite(head, body), true, `write ${i}`);
    const len = ring.nextLength();
    assert.equal(len, head.byteLength + body.byteLength);
    // Read the body first, then the head, into one array: parts come from any offset of the message.
    const out = new Uint8Array(len + 3);
    ring.copyNext(head.byteLength, body.byteLength, out, 3 + head.byteLength);
    ring.copyNext(0, head.byteLength, out, 3);
    assert.equal(ring.nextLength(), len, 'copyNext does not consume');
    ring.consumeNext();
    assert.deepEqual(out.subarray(3), Uint8Array.from([...head, ...body]), `read ${i}`);
    assert.equal(ring.nextLength(), -1);
  }
  assert.equal(ring.used(), 0);
});

test('wrap-around with several queued messages straddling the boundary', () => {
  const ring = SpscRing.create(32);
  assert.ok(ring.tryWrite(msg(20, 1)));
  assert.deepEqual(ring.tryRead(), msg(20, 1));
  // tail is at 24: a 10-byte payload starts at 28 and wraps to 0..5
  assert.ok(ring.tryWrite(msg(10, 2)));
  assert.ok(ring.tryWrite(msg(4, 3)));
  assert.deepEqual(ring.tryRead(), msg(10, 2));
  assert.deepEqual(ring.tryRead(), msg(4, 3));
});

test('a full ring refuses writes until the consumer frees space', () => {
  const ring = SpscRing.create(32);
  assert.ok(ring.tryWrite(msg(12, 1))); // 16 bytes
  assert.ok(ring.tryWrite(msg(12, 2))); // 32 bytes: full
  assert.equal(ring.tryWrite(msg(1, 3)), false);
  assert.equal(ring.write(msg(1, 3), 20), false, 'blocking write times out while full');
  assert.deepEqual(ring.tryRead(), msg(12, 1));
  assert.ok(ring.tryWrite(msg(1, 3)));
});

test('a message larger than the free space waits; larger than the ring throws', async () => {
  const ring = SpscRing.create(64);
  assert.ok(ring.tryWrite(msg(40, 1))); // 44 used, 20 free
  const big = msg(30, 9);
  assert.equal(ring.tryWrite(big), false);
  let written = false;
  const p = ring.writeAsync(big).then(() => { written = true; });
  await new Promise((r) => setImmediate(r));
  assert.equal(written, false, 'still waiting for space');
  assert.deepEqual(ring.tryRead(), msg(40, 1));
  await p;
  assert.deepEqual(ring.tryRead(), big);
  assert.throws(() => ring.tryWrite(msg(61, 0)), LimitExceededError);
  assert.ok(ring.tryWrite(msg(60, 0)), 'exactly the maximum fits in an empty ring');
});

test('back-pressure across threads: a blocked producer delivers every message in order', async () => {
  const ring = SpscRing.create(256);
  const N = 5000;
  const src = `
    const { workerData, parentPort } = require('node:worker_threads');
    const ctl = new Int32Array(workerData.sab, 0, 48);
    const cap = workerData.sab.byteLength - 192;
    const data = new Uint8Array(workerData.sab, 192, cap);
    const view = new DataView(workerData.sab, 192, cap);
    // Minimal producer following the documented layout (the TS module is not loadable in an eval worker).
    for (let i = 0; i < workerData.n; i++) {
      const len = 1 + (i % 50);
      const need = 4 + ((len + 3) & ~3);
      for (;;) {
        const tail = Atomics.load(ctl, 16), head = Atomics.load(ctl, 0);
        if (cap - ((tail - head) | 0) >= need) {
          const at = tail & (cap - 1);
          view.setUint32(at, len, true);
          for (let k = 0; k < len; k++) data[(at + 4 + k) & (cap - 1)] = (i + k) & 0xff;
          Atomics.store(ctl, 16, (tail + need) | 0);
          if (Atomics.exchange(ctl, 36, 0) === 1) Atomics.notify(ctl, 16);
          break;
        }
        Atomics.store(ctl, 40, 1); // writer sleeping: the consumer notifies only then
        if (Atomics.load(ctl, 0) !== head) { Atomics.store(ctl, 40, 0); continue; }
        Atomics.wait(ctl, 0, head, 1000);
      }
    }
    parentPort.postMessage('done');
  `;
  const w = new Worker(src, { eval: true, workerData: { sab: ring.buffer, n: N } });
  // Listen before reading: the worker's 'done' can arrive while the loop below awaits, and a message event
  // with no listener is gone — then nothing keeps the event loop alive and the test is cancelled.
  const done = new Promise((r) => w.once('message', r));
  let got = 0;
  while (got < N) {
    const m = ring.tryRead();
    if (!m) { await ring.waitReadable(); continue; }
    const len = 1 + (got % 50);
    assert.equal(m.byteLength, len);
    for (let k = 0; k < len; k++) if (m[k] !== ((got + k) & 0xff)) assert.fail(`message ${got} byte ${k}`);
    got++;
  }
  await done;
  await w.terminate();
  assert.equal(got, N);
});

test('producer: a message waiting for space is not overtaken by a later one that would fit', async () => {
  const ring = SpscRing.create(64);
  const producer = new SpscProducer(ring);
  await producer.write(msg(40, 1));            // 44 of 64 bytes used
  const big = producer.write(msg(30, 2));      // needs 36: waits
  const small = producer.write(msg(4, 3));     // would fit now (8 bytes), but must queue behind
  assert.equal(producer.queued, 2);
  assert.deepEqual(ring.tryRead(), msg(40, 1));
  await Promise.all([big, small]);
  assert.deepEqual(ring.tryRead(), msg(30, 2));
  assert.deepEqual(ring.tryRead(), msg(4, 3));
  assert.equal(ring.tryRead(), null);
});
