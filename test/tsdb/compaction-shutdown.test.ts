/**
 * A compaction under way stops when the node shuts down, as Prometheus's `DB.Close` cancels its compaction:
 * the partial block is removed, the inputs stay whole, and the next start compacts them. In the engine, with a
 * shutdown signal that turns on part-way; through the server, with the test hook TESSERA_TEST_COMPACTION_STALL
 * (the compaction stalls at its first series until the shutdown, as one too long to finish would): without the
 * stop, SIGTERM would let the compaction finish and delete its inputs.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import path from 'node:path';
import { writeBlockDir, encodeChunks, type BlockSeries } from '../../src/engine/tsdb/block-writer.ts';
import { openBlock } from '../../src/engine/tsdb/block.ts';
import { maintainShared, SharedBlocks } from '../../src/engine/tsdb/index.ts';
import { labelsFromRecord } from '../../src/engine/tsdb/labels.ts';
import { ULID_RE } from '../../src/engine/tsdb/ulid.ts';
import { EngineError } from '../../src/engine/errors.ts';
import { startServer } from '../support/server.ts';
import { waitFor } from '../support/wait-for.ts';
import { tempDir } from './support/db.ts';

const T0 = 1_704_067_200_000; // 6h-aligned, so the first three 2 h blocks make one 6 h compaction
const H = 3_600_000;
const SERIES = 20;
const blockDirs = (dir: string): string[] => readdirSync(dir).filter((n) => ULID_RE.test(n)).sort();
/** Everything in the directory that is a block or a block being written or deleted. */
const blockEntries = (dir: string): string[] => readdirSync(dir).filter((n) => /^[0-9A-Z]{26}/.test(n)).sort();

/** Series `i` of `m`: one sample a minute in 2 h block `k`, value = minutes since T0 + 1000 i. */
function blockSeries(k: number): BlockSeries[] {
  const out: BlockSeries[] = [];
  for (let i = 0; i < SERIES; i++) {
    const n = 120, t = new Float64Array(n), v = new Float64Array(n);
    for (let j = 0; j < n; j++) { t[j] = T0 + k * 2 * H + j * 60_000; v[j] = (t[j] - T0) / 60_000 + 1000 * i; }
    out.push({ labels: labelsFromRecord({ __name__: 'm', i: String(i).padStart(2, '0') }), chunks: encodeChunks(t, v, 0, n) });
  }
  return out;
}

/** Four level-1 2 h blocks from T0: the first three are due for compaction (the newest stays out, as in Prometheus). */
async function writeFourBlocks(dir: string): Promise<void> {
  for (let k = 0; k < 4; k++) await writeBlockDir(dir, blockSeries(k), { minTime: T0 + k * 2 * H, maxTime: T0 + (k + 1) * 2 * H, level: 1 }, T0 + 9 * H);
}

const isStopped = (e: unknown): boolean => e instanceof EngineError && e.code === 'TSDB_MAINTENANCE_STOPPED';

test('a compaction stopped part-way removes its partial block and leaves its inputs; the next pass compacts them', async (t) => {
  const { dir, cleanup } = tempDir('tsdb-stop-');
  t.after(cleanup);
  await writeFourBlocks(dir);
  const inputs = blockDirs(dir);
  let reads = 0;
  let partialSeen = false;
  const shutdown = {
    get canceled() {
      if (++reads <= 5) return false;
      partialSeen = readdirSync(dir).some((n) => n.endsWith('.tmp'));
      return true;
    },
  };
  const stopped = new SharedBlocks({ dir, blockRangeMs: 2 * H, now: () => T0 + 9 * H, shutdown });
  await assert.rejects(maintainShared(stopped), isStopped);
  stopped.close();
  assert.ok(partialSeen, 'the compaction had its output directory when it stopped');
  assert.deepEqual(blockEntries(dir), inputs, 'only the inputs are left');
  for (const id of inputs) {
    const b = await openBlock(path.join(dir, id));
    try { assert.equal(b.meta.stats?.numSeries, SERIES); } finally { b.close(); }
  }

  const next = new SharedBlocks({ dir, blockRangeMs: 2 * H, now: () => T0 + 9 * H, shutdown: { canceled: false } });
  const r = await maintainShared(next);
  next.close();
  assert.equal(r.compactionSeconds.length, 1);
  assert.ok(r.compactionSeconds[0] > 0);
  const after = blockDirs(dir);
  assert.deepEqual(blockEntries(dir), after, 'no partial or deleted block left');
  const metas = await Promise.all(after.map(async (id) => { const b = await openBlock(path.join(dir, id)); b.close(); return b.meta; }));
  assert.deepEqual(metas.map((m) => [(m.minTime - T0) / H, (m.maxTime - T0) / H, m.compaction.level, m.stats?.numSamples]).sort((x, y) => x[0] - y[0]),
    [[0, 6, 2, SERIES * 360], [6, 8, 1, SERIES * 120]]);
});

test('SIGTERM during a compaction: the node exits without finishing it, and the next start compacts the same data', { timeout: 120_000 }, async (t) => {
  const { dir, cleanup } = tempDir('tsdb-stop-node-');
  t.after(cleanup);
  const tsdb = path.join(dir, 'tsdb');
  await writeFourBlocks(tsdb);
  const inputs = blockDirs(tsdb);
  const args = ['--storage.tsdb.retention.time', '100y'];
  const stalled = await startServer({ dataDir: dir, services: ['metrics'], workers: 1, args, env: { TESSERA_TEST_COMPACTION_STALL: '1' } });
  await waitFor('the compaction to start its block', () => readdirSync(tsdb).some((n) => n.endsWith('.tmp')));
  assert.equal(await stalled.stop(), 0, stalled.stderr());
  assert.deepEqual(blockEntries(tsdb), inputs, 'the inputs stay, and nothing of the stopped compaction');
  assert.doesNotMatch(stalled.stderr(), /tsdb maintenance failed/);

  const node = await startServer({ dataDir: dir, services: ['metrics'], workers: 1, args });
  try {
    await waitFor('the compaction after the restart', () => blockDirs(tsdb).length === 2, 60_000);
    const q = new URLSearchParams({ query: 'm', start: String(T0 / 1000), end: String((T0 + 8 * H) / 1000 - 60), step: '60' });
    const body = await (await fetch(`${node.promUrl}/api/v1/query_range?${q}`)).json() as { data: { result: { metric: { i: string }; values: [number, string][] }[] } };
    assert.equal(body.data.result.length, SERIES);
    for (const s of body.data.result) {
      assert.equal(s.values.length, 4 * 120, `samples of series ${s.metric.i}`);
      for (const [ts, v] of s.values) assert.equal(Number(v), (ts * 1000 - T0) / 60_000 + 1000 * Number(s.metric.i));
    }
  } finally {
    await node.stop();
  }
});
