/**
 * Property: whatever byte the last segment is cut at (a crash mid-write), replay returns exactly the records
 * that were completely on disk before the cut, in order, and the log accepts appends afterwards.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { stat, truncate } from 'node:fs/promises';
import { join } from 'node:path';
import fc from 'fast-check';
import { Wal } from '../../src/engine/wal/index.ts';
import { replayAll, tempDir } from './helpers.ts';

const record = fc.record({ type: fc.integer({ min: 1, max: 127 }), payload: fc.uint8Array({ maxLength: 300 }) });

test('a cut anywhere in the last segment recovers exactly the complete records before it', { timeout: 60_000 }, async () => {
  await fc.assert(fc.asyncProperty(
    fc.array(fc.array(record, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 12 }),
    fc.double({ min: 0, max: 1, noNaN: true }),
    fc.boolean(),
    async (batches, cutFraction, compress) => {
      const { dir, cleanup } = await tempDir('tessera-walprop-');
      try {
        const wal = await Wal.open({ dir, compress, segmentSizeBytes: 2048 });
        await Promise.all(batches.map((b) => wal.appendBatch(b)));
        await wal.close();
        const all = batches.flat();
        const clean = await replayAll({ dir });
        assert.equal(clean.recs.length, all.length);
        const last = clean.recs[clean.recs.length - 1].pos.segment;
        const file = join(dir, String(last).padStart(8, '0'));
        const size = (await stat(file)).size;
        const cut = Math.floor(cutFraction * size);
        await truncate(file, cut);
        // Record i is complete when its frame ends at or before the cut; frames are back to back.
        const ends = clean.recs.map((r, i) => {
          const next = clean.recs[i + 1];
          return next && next.pos.segment === r.pos.segment ? next.pos.offset : (r.pos.segment === last ? size : 0);
        });
        const want = clean.recs.filter((r, i) => r.pos.segment < last || (cut >= 8 && ends[i] <= cut)).length;
        const { recs, warnings } = await replayAll({ dir });
        assert.equal(recs.length, want);
        for (let i = 0; i < want; i++) {
          assert.equal(recs[i].type, all[i].type);
          assert.ok(recs[i].payload.equals(all[i].payload));
        }
        assert.ok(warnings.length <= 1);
        const again = await Wal.open({ dir });
        await again.append(5, Buffer.from('after'));
        await again.close();
        assert.equal((await replayAll({ dir })).recs.length, want + 1);
      } finally {
        await cleanup();
      }
    },
  ), { numRuns: 40, seed: 20261122 });
});
