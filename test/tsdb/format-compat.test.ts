/**
 * Readers of this build open the checked-in version-1 TSDB block (test/fixtures/format/tsdb-v1): meta.json,
 * index with postings, chunk file, tombstones. Corrupted copies are refused with the file and offset named.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { MATCH_EQUAL, newMatcher } from '../../src/engine/tsdb/api.ts';
import { openBlock } from '../../src/engine/tsdb/block.ts';
import { MultiSourceQuerier, fetchSeries } from '../../src/engine/tsdb/querier.ts';
import { CorruptionError, FormatVersionError } from '../../src/engine/errors.ts';
import { tempDir } from './support/db.ts';

const FIXTURE = fileURLToPath(new URL('../fixtures/format/tsdb-v1/01M80FXM1F1WKYG5HD13RX60RA', import.meta.url));
const F = new Float64Array(1), U = new Uint32Array(F.buffer);

test('v1 block fixture opens and reads back exactly', async () => {
  const b = await openBlock(FIXTURE);
  assert.equal(b.meta.minTime, 1_704_067_200_000);
  assert.deepEqual(b.meta.stats, { numSamples: 133, numSeries: 2, numChunks: 3, numTombstones: 1 });
  const q = new MultiSourceQuerier([b], -Infinity, Infinity);
  const total = fetchSeries(q, [newMatcher(MATCH_EQUAL, '__name__', 'fixture_total')], -Infinity, Infinity)[0];
  assert.equal(total.t.length, 130);
  assert.equal(total.v[100], 150);
  F[0] = total.v[129];
  assert.deepEqual([U[1], U[0]], [0x7ff00000, 2]);
  const gauge = fetchSeries(q, [newMatcher(MATCH_EQUAL, 'job', 'b')], -Infinity, Infinity)[0];
  assert.deepEqual([...gauge.t], [1_704_067_200_000, 1_704_067_230_000]); // the tombstone hides the middle sample
  assert.deepEqual([...gauge.v], [1, -Infinity]);
  assert.deepEqual(q.labelValues('job', []), ['a', 'b']);
  b.close();
});

test('corrupted index, bad chunk magic and unknown meta version are refused', async () => {
  const { dir, cleanup } = tempDir('tsdb-compat-');
  try {
    const cases: [string, (d: string) => void, (e: unknown) => boolean][] = [
      ['index', (d) => { const p = path.join(d, 'index'); const b = readFileSync(p); b[20] ^= 0xff; writeFileSync(p, b); },
        (e) => e instanceof CorruptionError && /index/.test(e.file) && /checksum/.test(e.message)],
      ['chunks', (d) => { const p = path.join(d, 'chunks', '000001'); const b = readFileSync(p); b[0] = 0; writeFileSync(p, b); },
        (e) => e instanceof CorruptionError && /000001/.test(e.file) && e.offset === 0],
      ['meta', (d) => { const p = path.join(d, 'meta.json'); writeFileSync(p, readFileSync(p, 'utf8').replace('"version": 1', '"version": 9')); },
        (e) => e instanceof FormatVersionError],
    ];
    for (const [name, damage, check] of cases) {
      const d = path.join(dir, name);
      cpSync(FIXTURE, d, { recursive: true });
      damage(d);
      await assert.rejects(openBlock(d), check, name);
    }
  } finally { cleanup(); }
});
