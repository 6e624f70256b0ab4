/**
 * What serving a shared block costs a shard worker (src/engine/tsdb/owned-block.ts): in TSDB directory layout 2
 * every worker selects over the whole block and skips the series the client routes to the other worker.
 *
 * Data (deterministic): N = 4,000 series `m{i="0000".."3999", job="j"}`, 240 samples each (15 s apart, two XOR
 * chunks), routed over 2 workers with `shardOfSeries` (about 2,000 each). Measured, as one worker (shard 0):
 *   - before: `fetchSeries` over a block holding only shard 0's series (layout 1, the shard's own block);
 *   - after, warm: over an OwnedBlock of the block with all N series (ownership already known);
 *   - after, cold: the same with a fresh OwnedBlock each time (the first select of a block in a worker reads
 *     and hashes every selected series' labels);
 *   - whole block, no filter: one worker serving everything (reference);
 *   - the same cases selecting series only, without decoding samples (`collect`, as /api/v1/series).
 * Reported: selects/s and µs per select, and per selected series.
 * Run: node --import tsx bench/tsdb/shared-block-select.bench.ts   (about 10 s; BENCH_CASE="series only" etc. for a subset)
 */
import { Bench } from 'tinybench';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { MATCH_EQUAL, newMatcher } from '../../src/engine/tsdb/api.ts';
import { openBlock } from '../../src/engine/tsdb/block.ts';
import { encodeChunks, writeBlockDir, type BlockSeries } from '../../src/engine/tsdb/block-writer.ts';
import { labelsFromRecord, labelsToFlat, shardOfSeries } from '../../src/engine/tsdb/labels.ts';
import { OwnedBlock } from '../../src/engine/tsdb/owned-block.ts';
import { fetchSeries, MultiSourceQuerier } from '../../src/engine/tsdb/querier.ts';
import type { SeriesSource } from '../../src/engine/tsdb/chunk-meta.ts';

const N = 4000, SAMPLES = 240, T0 = 1_704_067_200_000;
const dir = mkdtempSync(path.join(tmpdir(), 'bench-shared-'));
const all: BlockSeries[] = [], mine: BlockSeries[] = [];
for (let i = 0; i < N; i++) {
  const labels = labelsFromRecord({ __name__: 'm', i: String(i).padStart(4, '0'), job: 'j' });
  const t = new Float64Array(SAMPLES), v = new Float64Array(SAMPLES);
  for (let k = 0; k < SAMPLES; k++) { t[k] = T0 + k * 15_000; v[k] = i + k * 0.5; }
  const s = { labels, chunks: encodeChunks(t, v, 0, SAMPLES) };
  all.push(s);
  if (shardOfSeries(labelsToFlat(labels), 2) === 0) mine.push(s);
}
const info = { minTime: T0, maxTime: T0 + 7_200_000, level: 1 };
const whole = await openBlock(path.join(dir, await writeBlockDir(dir, all, info, T0)));
const own = await openBlock(path.join(dir, await writeBlockDir(dir, mine, info, T0)));
const ms = [newMatcher(MATCH_EQUAL, '__name__', 'm')];
const warm = new OwnedBlock(whole, 0, 2);
let sink = 0;
const run = (src: SeriesSource): void => { sink += fetchSeries(new MultiSourceQuerier([src], T0, T0 + 7_200_000), ms, T0, T0 + 7_200_000).length; };
/** Series selection without decoding samples (what /api/v1/series does): the filter's share is largest here. */
const list = (src: SeriesSource): void => { sink += new MultiSourceQuerier([src], T0, T0 + 7_200_000).collect(ms, T0, T0 + 7_200_000).length; };
run(warm);

// BENCH_CASE=<substring> runs only the matching cases (one per process keeps the call sites monomorphic).
const only = process.env.BENCH_CASE ?? '';
const bench = new Bench({ time: 1500 });
const add = (name: string, fn: () => void): Bench => (name.includes(only) ? bench.add(name, fn) : bench);
add(`before: shard 0's own block (${mine.length} series)`, () => run(own));
add(`after, warm: shared block of ${N}, shard 0's ${mine.length}`, () => run(warm));
add(`after, cold: shared block of ${N}, fresh OwnedBlock`, () => run(new OwnedBlock(whole, 0, 2)));
add(`whole block, no filter (${N} series)`, () => run(whole));
add(`series only, before: own block`, () => list(own));
add(`series only, after, warm`, () => list(warm));
add(`series only, after, cold`, () => list(new OwnedBlock(whole, 0, 2)));
await bench.run();
for (const t of bench.tasks) {
  const r = t.result as { latency: { mean: number }; throughput: { mean: number } };
  const us = r.latency.mean * 1000;
  console.log(`${t.name.padEnd(56)} ${r.throughput.mean.toFixed(0).padStart(6)} selects/s  ${us.toFixed(0).padStart(6)} µs/select  ${(us * 1000 / mine.length).toFixed(0)} ns per shard-0 series`);
}
whole.close(); own.close();
rmSync(dir, { recursive: true, force: true });
if (sink === 0) console.log('');
