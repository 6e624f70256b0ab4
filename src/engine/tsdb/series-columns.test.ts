/** SeriesColumns against a Map-based model: slots stay distinct while in use, hold what was written, are reused once freed. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SeriesColumns } from './series-columns.ts';
import type { Labels } from './api.ts';

test('series columns: random alloc/free/write against a model, across growth', () => {
  const cols = new SeriesColumns();
  const model = new Map<number, { ref: number; labels: Labels; maxT: number; tDelta: number; closed: number[] | null }>();
  let seed = 7;
  const rnd = (n: number): number => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return seed % n; };
  let nextRef = 1;
  for (let step = 0; step < 20_000; step++) {
    const op = rnd(10);
    if (op < 5 || model.size === 0) {
      const ref = nextRef++ * 2 ** 33; // beyond 32 bits: refs are doubles
      const labels: Labels = [{ name: 'n', value: String(ref) }];
      const slot = cols.alloc(ref, labels, ref | 0);
      assert.equal(model.has(slot), false, 'a slot in use is not handed out again');
      assert.equal(cols.maxT[slot], -Infinity);
      assert.equal(cols.chunkAt[slot], -1);
      assert.equal(cols.closed[slot], null);
      model.set(slot, { ref, labels, maxT: -Infinity, tDelta: 0, closed: null });
    } else {
      const slots = [...model.keys()];
      const slot = slots[rnd(slots.length)];
      const m = model.get(slot)!;
      if (op < 8) {
        m.maxT = 1_700_000_000_000 + step; cols.maxT[slot] = m.maxT;
        m.tDelta = 3e9 + step; cols.chunkTDelta[slot] = m.tDelta; // beyond int32: a 35-day gap
        if (op === 7) { (m.closed ??= []).push(step, step + 1, step + 2); (cols.closed[slot] ??= []).push(step, step + 1, step + 2); }
      } else {
        cols.free(slot);
        model.delete(slot);
      }
    }
  }
  assert.equal(cols.size, model.size);
  for (const [slot, m] of model) {
    assert.equal(cols.ref[slot], m.ref);
    assert.equal(cols.labelsAt(slot), m.labels);
    assert.equal(cols.maxT[slot], m.maxT);
    assert.equal(cols.chunkTDelta[slot], m.tDelta);
    assert.deepEqual(cols.closed[slot], m.closed);
    assert.equal(cols.closedCount(slot), (m.closed?.length ?? 0) / 3);
  }
  assert.ok(cols.ref.length >= 1024, 'the columns grew past their initial size');
});
