/**
 * A compaction reads each entry of its inputs once: it decodes them without the thread's series cache (whose
 * entries would outlive the young generation), and the inputs cache again once it is done.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { encodeChunks, writeBlockDir, type BlockSeries } from './block-writer.ts';
import { openBlock, type Block } from './block.ts';
import { writeMergedBlock } from './db-maintenance.ts';
import { labelsFromRecord } from './labels.ts';
import { MATCH_EQUAL, newMatcher } from './api.ts';

const T0 = 1_704_067_200_000, H = 3_600_000, SERIES = 30;
const firstRef = (b: Block): number => b.index.select([newMatcher(MATCH_EQUAL, '__name__', 'm')]).toUint32Array()[0];

function series(k: number): BlockSeries[] {
  const out: BlockSeries[] = [];
  for (let i = 0; i < SERIES; i++) {
    const t = new Float64Array(120), v = new Float64Array(120);
    for (let j = 0; j < 120; j++) { t[j] = T0 + k * 2 * H + j * 60_000; v[j] = i * 1000 + k * 120 + j; }
    out.push({ labels: labelsFromRecord({ __name__: 'm', i: String(i).padStart(2, '0') }), chunks: encodeChunks(t, v, 0, 120) });
  }
  return out;
}

test('a compaction decodes its inputs\' entries without caching them, and merges every sample', async () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'compaction-reads-'));
  const inputs: Block[] = [];
  try {
    for (let k = 0; k < 3; k++) {
      const id = await writeBlockDir(dir, series(k), { minTime: T0 + k * 2 * H, maxTime: T0 + (k + 1) * 2 * H, level: 1 }, T0 + 9 * H);
      inputs.push(await openBlock(path.join(dir, id)));
    }
    const id = await writeMergedBlock(dir, inputs, 2, T0 + 9 * H);
    assert.ok(id);
    assert.deepEqual(inputs.map((b) => b.cachedEntries()), [0, 0, 0], 'no input entry cached by the compaction');
    const out = await openBlock(path.join(dir, id));
    try {
      assert.deepEqual(out.meta.stats, { numSamples: 3 * SERIES * 120, numSeries: SERIES, numChunks: 3 * SERIES });
      assert.deepEqual(out.labelsOf(firstRef(out)), labelsFromRecord({ __name__: 'm', i: '00' }));
    } finally { out.close(); }
    // Outside a compaction the inputs' entries are cached as before.
    inputs[0].labelsOf(firstRef(inputs[0]));
    assert.equal(inputs[0].cachedEntries(), 1);
  } finally {
    for (const b of inputs) b.close();
    rmSync(dir, { recursive: true, force: true });
  }
});
