/** `SharedSlot`: a query's gate slot is released once, when the query and every evaluation it started let go. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { QueryGate, SharedSlot } from './query-gate.ts';

test('a slot shared by a query and its two halves is released after the last holder, once', async () => {
  const gate = new QueryGate(1);
  const slot = new SharedSlot(await gate.acquire(new AbortController().signal));
  const earlier = slot.hold(), later = slot.hold();
  slot.letGo();
  earlier();
  earlier(); // a second call lets go of nothing more
  assert.equal(gate.running, 1, 'the later half still holds the slot');
  let granted = false;
  const next = gate.acquire(new AbortController().signal).then((release) => { granted = true; return release; });
  await Promise.resolve();
  assert.equal(granted, false);
  later();
  (await next)();
  assert.equal(granted, true);
  assert.equal(gate.running, 0);
});
