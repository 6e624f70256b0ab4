import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { MATCH_EQUAL, MATCH_REGEXP, newMatcher } from '../../src/engine/tsdb/api.ts';
import { cleanTombstones, headSizeBytes, mergeOverlappingBlocks, snapshot, tick } from '../../src/engine/tsdb/db-maintenance.ts';
import { BlockDirWriter, encodeChunks, writeBlock, writeBlockDir, type BlockSeries } from '../../src/engine/tsdb/block-writer.ts';
import { dirSize, openBlock } from '../../src/engine/tsdb/block.ts';
import type { ChunkMeta } from '../../src/engine/tsdb/chunk-meta.ts';
import { ULID_RE } from '../../src/engine/tsdb/ulid.ts';
import { CorruptionError, QueryCanceledError, QueryTimeoutError } from '../../src/engine/errors.ts';
import { ReadStop } from '../../src/engine/read-stop.ts';
import { labelsFromRecord } from '../../src/engine/tsdb/labels.ts';
import type { Tsdb } from '../../src/engine/tsdb/db.ts';
import { batch, openTestDb, tempDir, TestClock } from './support/db.ts';

const H = 3_600_000;
const ALL = [newMatcher(MATCH_REGEXP, '__name__', '.+')];
const blockDirs = (dir: string) => readdirSync(dir).filter((n) => ULID_RE.test(n)).sort();

/** `n` series (`i` from `first`) sampled every minute over [fromH, toH) hours, time-major; value = minute index. */
async function ingest(db: Tsdb, n: number, fromH: number, toH: number, first = 0): Promise<void> {
  for (let t = fromH * H; t < toH * H; t += 10 * 60_000) {
    const s: [Record<string, string>, number, number][] = [];
    for (let k = 0; k < 10; k++) for (let i = first; i < first + n; i++) s.push([{ __name__: 'm', i: String(i) }, t + k * 60_000, (t + k * 60_000) / 60_000]);
    s.sort((a, b) => a[1] - b[1]);
    await db.append(batch(s));
  }
}

function assertSeriesComplete(db: Tsdb, fromH: number, toH: number, n: number): void {
  const got = db.select(ALL, fromH * H, toH * H - 1);
  assert.equal(got.length, n);
  for (const s of got) {
    assert.equal(s.t.length, (toH - fromH) * 60, `samples of ${JSON.stringify(s.labels)}`);
    for (let i = 0; i < s.t.length; i++) {
      assert.equal(s.t[i], fromH * H + i * 60_000);
      assert.equal(s.v[i], s.t[i] / 60_000);
    }
  }
}

test('head is cut into 2h blocks at 1.5x span; queries span blocks and head; compaction merges 3 blocks', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const clock = new TestClock();
    const { db, store } = await openTestDb(dir, undefined, { now: clock.now });
    await ingest(db, 5, 0, 10);
    const r = await tick(db);
    assert.equal(r.blocksCut, 4);
    assert.equal(r.compactionSeconds.length, 1);
    // Each cut dropped its range from the head and checkpointed the WAL, each timed once.
    assert.equal(r.headGcSeconds.length, 4);
    assert.equal(r.walTruncateSeconds.length, 4);
    assert.ok(r.walTruncateSeconds.every((s) => s > 0));
    // Each chunk the cuts wrote is recorded as Prometheus records its head compaction's: 5 series × 4 blocks, one
    // chunk each of 120 samples over 119 minutes; the bytes are the chunks' data as the blocks hold them.
    const { size, samples, range } = r.cutChunks;
    assert.deepEqual([samples.count, samples.sum, samples.counts[8], samples.counts[9]], [20, 2400, 0, 20]);
    assert.deepEqual([range.count, range.sum, range.counts[8], range.counts[9]], [20, 20 * 119 * 60_000, 0, 20]);
    let bytes = 0;
    for (const n of blockDirs(dir)) {
      const b = await openBlock(path.join(dir, n));
      try {
        const out: ChunkMeta[] = [];
        for (const ref of b.index.select(ALL).toUint32Array()) { out.length = 0; b.chunksOf(ref, 0, 8 * H, out); for (const c of out) bytes += c.bytes.length; }
      } finally { b.close(); }
    }
    assert.deepEqual([size.count, size.sum], [20, bytes]);
    const metas = blockDirs(dir).map((n) => JSON.parse(readFileSync(path.join(dir, n, 'meta.json'), 'utf8')));
    assert.deepEqual(metas.map((m) => [m.minTime / H, m.maxTime / H, m.compaction.level]).sort((a, b) => a[0] - b[0]), [[0, 6, 2], [6, 8, 1]]);
    assert.equal(metas.find((m) => m.minTime === 0).compaction.sources.length, 3);
    assert.equal(metas.find((m) => m.minTime === 0).stats.numSamples, 5 * 360);
    assert.equal(db.head.minTime, 8 * H);
    assertSeriesComplete(db, 0, 10, 5);
    assertSeriesComplete(db, 5, 9, 5);
    // samples before the newest block's end are now out of bounds
    const oob = await db.append(batch([[{ __name__: 'm', i: '0' }, 8 * H - 1, 1]]));
    assert.equal(oob.outOfBounds, 1);
    await db.close();
    // reopen: blocks + checkpoint + WAL tail give back the same data
    const { db: db2 } = await openTestDb(dir, store, { now: clock.now });
    assertSeriesComplete(db2, 0, 10, 5);
    assert.ok(store.checkpoint !== null, 'the block cut checkpointed the WAL');
    await db2.close();
  } finally { cleanup(); }
});

test('the head counts appended samples and the series and chunks it created and removed (prometheus_tsdb_head_*_total)', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const { db } = await openTestDb(dir);
    const totals = db.head.totals;
    // Series 0–4 over 10 h and series 10–12 over the first 2 h only, a sample a minute, in time order.
    for (let t = 0; t < 10 * H; t += 60_000) {
      const s: [Record<string, string>, number, number][] = [];
      for (const i of t < 2 * H ? [0, 1, 2, 3, 4, 10, 11, 12] : [0, 1, 2, 3, 4]) s.push([{ __name__: 'm', i: String(i) }, t, t / 60_000]);
      await db.append(batch(s));
    }
    assert.equal(totals.samplesAppended, 3 * 120 + 5 * 600);
    assert.equal(totals.seriesCreated, 8);
    assert.equal(totals.chunksCreated, db.head.numChunks());
    const refused = await db.append(batch([[{ __name__: 'm', i: '0' }, 10 * H - 60_000, -1]])); // another value at a stored time
    assert.equal(refused.duplicate, 1);
    assert.equal(totals.samplesAppended, 3 * 120 + 5 * 600, 'a refused sample is not counted');
    // A series named by a ref the head never gave out: reported as unknown, counted as not found.
    const stale = await db.append({ refs: [999_999], sidx: [0], ts: Float64Array.of(10 * H), vs: Float64Array.of(1) });
    assert.deepEqual(stale.unknown, [0]);
    assert.equal(totals.seriesNotFound, 1);
    const chunksBefore = db.head.numChunks();
    await tick(db); // cuts [0, 8 h) into four blocks: series 10–12 leave the head with their chunks
    assert.equal(totals.seriesRemoved, 3);
    assert.equal(db.head.numSeries, 5);
    assert.ok(totals.chunksRemoved > 0);
    assert.equal(totals.chunksRemoved, chunksBefore - db.head.numChunks());
    assert.equal(totals.chunksCreated - totals.chunksRemoved, db.head.numChunks());
    await db.close();
  } finally { cleanup(); }
});

test('retention by time drops blocks older than the newest block max time minus retention', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const { db } = await openTestDb(dir, undefined, { retentionMs: 5 * H, maxBlockDurationMs: 2 * H });
    await ingest(db, 2, 0, 13);
    const r = await tick(db);
    assert.equal(r.compactionSeconds.length, 0);
    // blocks [0,2) … [8,10); newest maxTime 10h: blocks ending more than 5h earlier (2h, 4h) go
    assert.equal(r.blocksDeleted, 2);
    assert.deepEqual([r.timeRetentions, r.sizeRetentions], [1, 0], 'one time retention, counted once for its two blocks');
    const spans = db.blocks.map((b) => [b.minTime / H, b.maxTime / H]);
    assert.deepEqual(spans, [[4, 6], [6, 8], [8, 10]]);
    assert.equal(blockDirs(dir).length, 3);
    assert.equal(db.select(ALL, 0, 4 * H - 1).length, 0);
    assertSeriesComplete(db, 4, 13, 2);
    await db.close();
  } finally { cleanup(); }
});

test('retention by size keeps the newest blocks that fit', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const { db } = await openTestDb(dir, undefined, { maxBlockDurationMs: 2 * H });
    await ingest(db, 20, 0, 11);
    await tick(db);
    assert.equal(db.blocks.length, 4);
    const sizes = db.blocks.map((b) => b.sizeBytes);
    // A block's size is summed from the files it opens: every file of its directory, as a listing counts them.
    assert.deepEqual(sizes, await Promise.all(db.blocks.map((b) => dirSize(b.dir))));
    const limit = (await headSizeBytes(db)) + sizes[3] + sizes[2] + 10;
    (db.opts as { retentionBytes?: number }).retentionBytes = limit;
    const r = await tick(db);
    assert.equal(r.blocksDeleted, 2);
    assert.deepEqual([r.timeRetentions, r.sizeRetentions], [0, 1]);
    assert.deepEqual(db.blocks.map((b) => b.minTime / H), [4, 6]);
    await db.close();
  } finally { cleanup(); }
});

test('delete_series hides data at once in blocks and head; clean_tombstones rewrites blocks', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const { db, store } = await openTestDb(dir, undefined, { maxBlockDurationMs: 2 * H });
    await ingest(db, 3, 0, 6);
    await tick(db);
    assert.equal(db.blocks.length, 2); // [0,2h) [2h,4h); the head keeps [4h,6h)
    const before = db.blocks.map((b) => b.ulid);
    const sel = [newMatcher(MATCH_EQUAL, 'i', '1')];
    await db.deleteSeries(sel, H, 5 * H);
    const got = db.select(sel, 0, 6 * H)[0];
    assert.equal(got.t.length, 60 + 59); // [0,1h) and (5h, 6h)
    assert.equal(db.select([newMatcher(MATCH_EQUAL, 'i', '0')], 0, 6 * H)[0].t.length, 360);
    assert.deepEqual(db.blocks.map((b) => b.meta.stats.numTombstones), [1, 1]);
    const n = await cleanTombstones(db);
    assert.equal(n, 2);
    assert.equal(db.blocks.some((b) => before.includes(b.ulid)), false);
    assert.deepEqual(db.blocks.map((b) => b.tombstones.size), [0, 0]);
    assert.deepEqual(db.blocks.map((b) => b.meta.stats.numSamples), [3 * 120 - 60, 2 * 120]);
    for (const u of before) assert.equal(existsSync(path.join(dir, u)), false);
    assert.equal(db.select(sel, 0, 6 * H)[0].t.length, 119);
    await db.close();
    const { db: db2 } = await openTestDb(dir, store);
    assert.equal(db2.select(sel, 0, 6 * H)[0].t.length, 119); // head tombstone replayed from the WAL
    await db2.close();
  } finally { cleanup(); }
});

test('an unbounded delete survives the tombstones file and WAL round trips (the lower bound used to come back positive)', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const { db, store } = await openTestDb(dir);
    await ingest(db, 2, 0, 5);
    await tick(db);
    assert.equal(db.blocks.length, 1);
    const sel = [newMatcher(MATCH_EQUAL, 'i', '1')];
    await db.deleteSeries(sel, -Infinity, Infinity);
    assert.equal(db.select(sel, 0, 5 * H).length, 0);
    await db.close();
    const { db: db2 } = await openTestDb(dir, store);
    assert.equal(db2.select(sel, 0, 5 * H).length, 0, 'still deleted after reopening (block tombstones file, head from the WAL)');
    assert.equal(db2.select(ALL, 0, 5 * H).length, 1);
    await db2.close();
  } finally { cleanup(); }
});

test('writeBlock output is picked up by reloadBlocks and merged with head data', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const imp = path.join(dir, 'import');
    const { db } = await openTestDb(path.join(dir, 'shard'), undefined, { extraBlockDirs: [imp] });
    await db.append(batch([[{ __name__: 'x', a: 'b' }, 2 * H + 5, 7]]));
    const t = Float64Array.from([1000, 2000, 3000]), v = Float64Array.from([1, 2, 3]);
    const id = await writeBlock(imp, [{ labels: labelsFromRecord({ __name__: 'x', a: 'b' }), t, v },
      { labels: labelsFromRecord({ __name__: 'y' }), t, v }], 0, 2 * H);
    assert.match(id, ULID_RE);
    assert.equal(db.select(ALL, 0, 3 * H).length, 1);
    await db.reloadBlocks();
    const got = db.select(ALL, 0, 3 * H);
    assert.deepEqual(got.map((s) => [...s.t]), [[1000, 2000, 3000, 2 * H + 5], [1000, 2000, 3000]]);
    // an imported block does not make the head refuse its own older samples
    assert.equal((await db.append(batch([[{ __name__: 'z' }, 2 * H - 1, 1]]))).added, 1);
    await db.close();
  } finally { cleanup(); }
});

test('a snapshot of two shards holds one block per range: the shards\' parts are merged', async () => {
  const { dir, cleanup } = tempDir();
  try {
    // Two shards with disjoint series, as the workers hold them: each cuts 0–2 h and keeps 2–4 h in its head.
    const { db: a } = await openTestDb(path.join(dir, 'a'), undefined, { maxBlockDurationMs: 2 * H });
    const { db: b } = await openTestDb(path.join(dir, 'b'), undefined, { maxBlockDurationMs: 2 * H });
    await ingest(a, 2, 0, 4, 0);
    await ingest(b, 3, 0, 4, 2);
    await tick(a);
    await tick(b);
    const snap = path.join(dir, 'snap');
    await snapshot(a, snap, true);
    await snapshot(b, snap, true);
    assert.equal(blockDirs(snap).length, 4, 'before merging: a cut block and a head block per shard');
    assert.equal(await mergeOverlappingBlocks(snap, 0), 2);
    const metas = blockDirs(snap).map((n) => JSON.parse(readFileSync(path.join(snap, n, 'meta.json'), 'utf8')) as { minTime: number; maxTime: number; stats: { numSeries: number }; compaction: { level: number; sources: string[] } }).sort((x, y) => x.minTime - y.minTime);
    assert.deepEqual(metas.map((m) => [m.minTime, m.stats.numSeries, m.compaction.level, m.compaction.sources.length]), [[0, 5, 1, 2], [2 * H, 5, 1, 2]]);
    assert.ok(metas[0].maxTime <= metas[1].minTime, 'no overlap left');
    assert.equal(readdirSync(snap).filter((n) => n.endsWith('.deleted')).length, 0);
    const { db: view } = await openTestDb(snap);
    assertSeriesComplete(view, 0, 4, 5);
    await view.close();
    await a.close();
    await b.close();
  } finally { cleanup(); }
});

test('snapshot holds blocks and head', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const { db } = await openTestDb(path.join(dir, 'db'), undefined, { maxBlockDurationMs: 2 * H });
    await ingest(db, 2, 0, 4);
    await tick(db);
    const snap = path.join(dir, 'snap');
    await snapshot(db, snap, true);
    const { db: view } = await openTestDb(snap);
    assertSeriesComplete(view, 0, 4, 2);
    await view.close();
    await db.close();
  } finally { cleanup(); }
});

test('a select past its deadline stops with QueryTimeoutError (blocks and head), before it a select is whole', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const { db } = await openTestDb(path.join(dir, 'db'), undefined, { maxBlockDurationMs: 2 * H });
    await ingest(db, 3, 0, 4);
    await tick(db);
    assert.ok(db.blocks.length > 0, 'a block and the head are both read');
    assert.throws(() => db.select(ALL, 0, 4 * H, new ReadStop(Date.now() - 1, null, 0)), (e: Error) => e instanceof QueryTimeoutError && e.message === 'query timed out in expanding series');
    assert.equal(db.select(ALL, 0, 4 * H, new ReadStop(Date.now() + 60_000, null, 0)).length, 3);
    await db.close();
  } finally { cleanup(); }
});

test('a select whose stop word another thread set, or the shutdown word, stops with QueryCanceledError', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const { db } = await openTestDb(path.join(dir, 'db'), undefined, { maxBlockDurationMs: 2 * H });
    await ingest(db, 3, 0, 4);
    await tick(db);
    const words = new Int32Array(new SharedArrayBuffer(4 * 4));
    const stop = new ReadStop(Infinity, words, 2);
    assert.equal(db.select(ALL, 0, 4 * H, stop).length, 3);
    const canceled = (e: Error) => e instanceof QueryCanceledError && e.message === 'query was canceled in expanding series';
    Atomics.store(words, 2, 1);
    assert.throws(() => db.select(ALL, 0, 4 * H, stop), canceled);
    Atomics.store(words, 2, 0);
    Atomics.store(words, 0, 1);
    assert.throws(() => db.select(ALL, 0, 4 * H, stop), canceled, 'word 0 stops every read');
    await db.close();
  } finally { cleanup(); }
});

test('many blocks open at once and are all served; one damaged block fails the open with its error and leaves no file open', async () => {
  const { dir, cleanup } = tempDir();
  try {
    const imp = path.join(dir, 'import');
    const ids: string[] = [];
    for (let b = 0; b < 40; b++) {
      const t = Float64Array.from([b * 2 * H, b * 2 * H + 1000]), v = Float64Array.from([b, b]);
      ids.push(await writeBlock(imp, [{ labels: labelsFromRecord({ __name__: 'x', b: String(b) }), t, v }], b * 2 * H, (b + 1) * 2 * H));
    }
    const { db } = await openTestDb(path.join(dir, 'shard'), undefined, { extraBlockDirs: [imp] });
    const got = db.select(ALL, 0, 80 * H);
    assert.deepEqual(got.map((s) => s.v[0]).sort((a, b) => a - b), Array.from({ length: 40 }, (_, b) => b));
    await db.close();

    const fdsBefore = readdirSync('/proc/self/fd').length;
    const index = path.join(imp, ids[17], 'index');
    const bytes = readFileSync(index);
    bytes.writeUInt32BE(0x12345678, 0);
    writeFileSync(index, bytes);
    await assert.rejects(openTestDb(path.join(dir, 'shard'), undefined, { extraBlockDirs: [imp] }),
      (e: Error) => e instanceof CorruptionError && e.file === index && /invalid magic number 12345678/.test(e.message));
    assert.equal(readdirSync('/proc/self/fd').length, fdsBefore, 'the blocks opened before the failure are closed');
  } finally { cleanup(); }
});

test('blocks written at the same time, and after a failed and a discarded one, each hold exactly their own chunks (write buffers are reused)', async (t) => {
  const { dir, cleanup } = tempDir();
  t.after(cleanup);
  // Series of random walks, ~2.5 MB of chunks per block: several flushes of a write buffer each.
  const blockSeries = (seed: number): BlockSeries[] => {
    const out: BlockSeries[] = [];
    let x = seed;
    for (let i = 0; i < 40; i++) {
      const n = 3600, t = new Float64Array(n), v = new Float64Array(n);
      for (let k = 0; k < n; k++) { x = (x * 1103515245 + 12345) % 2147483648; t[k] = k * 1000; v[k] = x / 7; }
      out.push({ labels: labelsFromRecord({ __name__: 'w', seed: String(seed), i: String(i).padStart(3, '0') }), chunks: encodeChunks(t, v, 0, n) });
    }
    return out;
  };
  const expected = [blockSeries(1), blockSeries(2), blockSeries(3), blockSeries(4)];
  const info = { minTime: 0, maxTime: 3_600_000, level: 1 };
  // Two writers open together, their adds interleaved.
  const [a, b] = await Promise.all([BlockDirWriter.open(dir), BlockDirWriter.open(dir)]);
  for (let i = 0; i < 40; i++) { await a.add(expected[0][i].labels, expected[0][i].chunks); await b.add(expected[1][i].labels, expected[1][i].chunks); }
  const ids = [await a.finish(info), await b.finish(info)];
  // A writer whose finish fails once its chunks are closed (its directory is gone), discarded after, as
  // compaction does; and a writer discarded unfinished.
  const failed = await BlockDirWriter.open(dir);
  await failed.add(expected[2][0].labels, expected[2][0].chunks);
  rmSync(path.join(dir, `${failed.ulid}.tmp`), { recursive: true });
  await assert.rejects(failed.finish(info));
  await failed.discard();
  const gone = await BlockDirWriter.open(dir);
  await gone.add(expected[2][0].labels, expected[2][0].chunks);
  await gone.discard();
  // Then two at once again.
  ids.push(...await Promise.all([writeBlockDir(dir, expected[2], info), writeBlockDir(dir, expected[3], info)]));
  assert.deepEqual(blockDirs(dir), [...ids].sort(), 'the failed and the discarded block left nothing');
  for (let k = 0; k < ids.length; k++) {
    const block = await openBlock(path.join(dir, ids[k]));
    try {
      const refs = block.index.select([newMatcher(MATCH_EQUAL, '__name__', 'w')]).toUint32Array();
      assert.equal(refs.length, 40);
      for (let i = 0; i < refs.length; i++) {
        const metas: ChunkMeta[] = [];
        block.chunksOf(refs[i], -Infinity, Infinity, metas);
        assert.deepEqual(block.labelsOf(refs[i]), expected[k][i].labels);
        assert.equal(metas.length, expected[k][i].chunks.length);
        for (let c = 0; c < metas.length; c++) assert.ok(Buffer.from(metas[c].bytes).equals(expected[k][i].chunks[c].bytes), `block ${k} series ${i} chunk ${c}`);
      }
    } finally {
      block.close();
    }
  }
});
