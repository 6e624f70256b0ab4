/** RefTable against a Map model: random adds and deletes (colliding refs included), across growth. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { RefTable } from './ref-table.ts';

test('ref table: random adds and deletes agree with a Map, refs beyond 32 bits included', () => {
  const refOfSlot: number[] = [];
  const t = new RefTable((slot) => refOfSlot[slot]);
  const model = new Map<number, number>();
  let seed = 11;
  const rnd = (n: number): number => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed % n; };
  const freeSlots: number[] = [];
  for (let step = 0; step < 50_000; step++) {
    if (rnd(3) > 0 || model.size === 0) {
      // Refs from a small range (many probe collisions) and a few huge ones.
      const ref = rnd(10) === 0 ? 2 ** 40 + rnd(5000) * 2 ** 32 : 1 + rnd(20_000);
      if (model.has(ref)) continue;
      const slot = freeSlots.length ? freeSlots.pop()! : refOfSlot.length;
      refOfSlot[slot] = ref;
      t.add(slot);
      model.set(ref, slot);
    } else {
      const refs = [...model.keys()];
      const ref = refs[rnd(refs.length)];
      t.delete(ref);
      freeSlots.push(model.get(ref)!);
      model.delete(ref);
    }
    if (step % 997 === 0) {
      for (const [ref, slot] of model) assert.equal(t.get(ref), slot);
      assert.equal(t.get(999_999), -1);
    }
  }
  assert.equal(t.size, model.size);
  for (const [ref, slot] of model) assert.equal(t.get(ref), slot, `ref ${ref}`);
  for (let ref = 1; ref <= 20_000; ref++) if (!model.has(ref)) assert.equal(t.get(ref), -1);
  t.delete(123_456_789); // absent: no change
  assert.equal(t.size, model.size);
});
