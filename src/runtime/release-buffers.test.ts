import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { setImmediate as turn } from 'node:timers/promises';
import { releaseNow } from './release-buffers.ts';

const anonMb = (): number => Number(/RssAnon:\s+(\d+)/.exec(readFileSync('/proc/self/status', 'utf8'))![1]) / 1024;

test('released buffers are detached and their memory leaves the process without a collection', { skip: process.platform === 'linux' ? false : 'reads /proc/self/status' }, async () => {
  const bufs = [new ArrayBuffer(48 << 20), new ArrayBuffer(16 << 20, { maxByteLength: 1 << 30 })];
  for (const b of bufs) new Uint8Array(b).fill(7);
  const view = new Uint8Array(bufs[0], 100, 10);
  const before = anonMb();
  releaseNow(bufs);
  assert.equal(bufs[0].byteLength, 0);
  assert.equal(bufs[1].byteLength, 0);
  assert.equal(view.length, 0, 'a view of a released buffer is empty');
  // The ports close on the next turns; the views above keep the buffers' objects alive, so no collection frees them.
  let freed = false;
  for (let i = 0; i < 200 && !freed; i++) { await turn(); freed = before - anonMb() >= 48; }
  assert.ok(freed, `RssAnon ${before.toFixed(0)} → ${anonMb().toFixed(0)} MB`);
  assert.equal(view.byteLength, 0);
});

test('a pooled Buffer\'s memory is left as it is: the other Buffers of the pool stay readable', () => {
  const a = Buffer.from('first'), b = Buffer.from('second');
  assert.equal(a.buffer, b.buffer, 'both in Node\'s pool');
  releaseNow([a.buffer as ArrayBuffer]);
  assert.equal(b.toString(), 'second');
  assert.equal(a.toString(), 'first');
  const gone = new ArrayBuffer(8);
  releaseNow([gone]);
  releaseNow([gone]); // already detached: nothing happens
  assert.equal(gone.byteLength, 0);
});
