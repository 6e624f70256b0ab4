/**
 * TSDB directory layout 2 (docs/format.md "TSDB directory layout"): after head compaction on two shard
 * workers the TSDB directory holds one block per range for the whole TSDB (checked with the real promtool when
 * installed), queries answer exactly as before the cut; a crash between writing a merged block and deleting
 * its parts resolves at open; a layout-1 directory (blocks inside the shard directories) is merged on the
 * first maintenance pass; a newer layout is refused.
 */
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ShardPool } from '../../src/server/pool.ts';
import { TsdbClient } from '../../src/server/prom/tsdb-client.ts';
import { MATCH_REGEXP, newMatcher, type FetchedSeries } from '../../src/engine/tsdb/api.ts';
import { labelsFromRecord, shardOfSeries, labelsToFlat } from '../../src/engine/tsdb/labels.ts';
import { checkTsdbLayout, maintainShared, SharedBlocks, tick, Tsdb } from '../../src/engine/tsdb/index.ts';
import { ULID_RE } from '../../src/engine/tsdb/ulid.ts';
import { FormatVersionError } from '../../src/engine/errors.ts';
import { MemWalStore } from './support/mem-wal.ts';
import { batch, tempDir } from './support/db.ts';

const PROMTOOL = ['/usr/bin/promtool', '/usr/local/bin/promtool'].find((p) => existsSync(p));
const T0 = 1_704_067_200_000; // 2h-aligned
const H = 3_600_000;
const ALL = [newMatcher(MATCH_REGEXP, '__name__', '.+')];
const cleanups: (() => Promise<void> | void)[] = [];
after(async () => { for (const c of cleanups.reverse()) await c(); });

const blockDirs = (dir: string): string[] => readdirSync(dir).filter((n) => ULID_RE.test(n)).sort();
const metaOf = (dir: string, id: string) => JSON.parse(readFileSync(path.join(dir, id, 'meta.json'), 'utf8'));

/** Samples of `n` series (`__name__` m, `i`), one per minute in `[from, to)`; value depends on series and time. */
function samples(n: number, from: number, to: number): { labels: Record<string, string>; t: number; v: number }[] {
  const out = [];
  for (let t = from; t < to; t += 60_000) for (let i = 0; i < n; i++) out.push({ labels: { __name__: 'm', i: String(i).padStart(3, '0') }, t, v: i * 1000 + (t - T0) / 60_000 });
  return out;
}

const flat = (ss: FetchedSeries[]) => ss.map((s) => ({ l: s.labels.map((l) => `${l.name}=${l.value}`).join(','), t: [...s.t], v: [...s.v] }));

/** Every block's range, in order, and whether any two overlap. */
function ranges(dir: string): { ranges: [number, number][]; overlapping: boolean } {
  const rs = blockDirs(dir).map((id) => { const m = metaOf(dir, id); return [m.minTime, m.maxTime] as [number, number]; }).sort((a, b) => a[0] - b[0]);
  let overlapping = false;
  for (let i = 1; i < rs.length; i++) if (rs[i][0] < rs[i - 1][1]) overlapping = true;
  return { ranges: rs, overlapping };
}

test('after head compaction on two workers the TSDB directory has one block per range; answers unchanged; promtool lists them', async (t) => {
  const { dir, cleanup } = tempDir('tsdb-shared-');
  const pool = new ShardPool({ workers: 2, dataDir: dir, options: {} });
  const client = new TsdbClient(pool);
  cleanups.push(async () => { await client.close(); await pool.close(); cleanup(); });
  await client.open({ retentionMs: 0, retentionBytes: 0 });
  const n = 40;
  assert.ok(new Set(Array.from({ length: n }, (_, i) => shardOfSeries(labelsToFlat(labelsFromRecord({ __name__: 'm', i: String(i).padStart(3, '0') })), 2))).size === 2, 'series on both workers');
  await client.append(samples(n, T0, T0 + 5 * H));
  const want = flat(await client.select(ALL, -Infinity, Infinity));
  assert.equal(want.length, n);
  await client.tick();
  const root = path.join(dir, 'tsdb');
  assert.deepEqual(ranges(root), { ranges: [[T0, T0 + 2 * H]], overlapping: false });
  for (const s of ['shard-0', 'shard-1']) assert.deepEqual(blockDirs(path.join(root, s)), [], `${s} holds no block once merged`);
  const meta = metaOf(root, blockDirs(root)[0]);
  assert.equal(meta.compaction.parents.length, 2, 'both workers\' parts merged');
  assert.equal(meta.stats.numSeries, n);
  assert.deepEqual(meta.tessera.headCuts, { 0: T0 + 2 * H, 1: T0 + 2 * H });
  assert.deepEqual(flat(await client.select(ALL, -Infinity, Infinity)), want, 'same answers, no sample twice');
  // Both workers still answer: each serves its own series of the shared block.
  const packed = await client.selectPacked(ALL, T0, T0 + 2 * H - 1);
  assert.equal(packed.filter((p) => p.refs.length > 0).length, 2, 'both workers return series from the shared block');

  await client.append(samples(n, T0 + 5 * H, T0 + 9 * H));
  const want2 = flat(await client.select(ALL, -Infinity, Infinity));
  await client.tick();
  const r = ranges(root);
  assert.equal(r.overlapping, false);
  assert.deepEqual(r.ranges.map(([a, b]) => [(a - T0) / H, (b - T0) / H]), [[0, 2], [2, 4], [4, 6]]);
  assert.deepEqual(flat(await client.select(ALL, -Infinity, Infinity)), want2);
  // A head sample older than the last cut is out of bounds, on both workers (the bound survives the merge).
  const late = await client.append(samples(n, T0 + 5 * H, T0 + 5 * H + 60_000));
  assert.equal(late.outOfBounds, n);
  // Leveled compaction over the shared blocks (worker 0), with both workers reading the result.
  await client.append(samples(n, T0 + 9 * H, T0 + 11 * H));
  const want3 = flat(await client.select(ALL, -Infinity, Infinity));
  await client.tick();
  assert.deepEqual(ranges(root).ranges.map(([a, b]) => [(a - T0) / H, (b - T0) / H]), [[0, 6], [6, 8]]);
  assert.equal(metaOf(root, blockDirs(root).find((id) => metaOf(root, id).minTime === T0)!).compaction.level, 2);
  assert.deepEqual(flat(await client.select(ALL, -Infinity, Infinity)), want3);
  // After a restart (parts gone, heads replayed from the WALs) the answers are the same.
  await client.close();
  const again = new TsdbClient(pool);
  await again.open({ retentionMs: 0, retentionBytes: 0 });
  assert.deepEqual(flat(await again.select(ALL, -Infinity, Infinity)), want3);
  if (!PROMTOOL) { t.skip('promtool not installed (Debian package prometheus): tsdb list is not checked'); return; }
  const listed = execFileSync(PROMTOOL, ['tsdb', 'list', root], { encoding: 'utf8' }).trim().split('\n').slice(1);
  assert.equal(listed.length, 2, listed.join('\n'));
  for (const id of blockDirs(root)) assert.ok(listed.some((l) => l.startsWith(id)), `promtool lists ${id}`);
});

/** Two shards of a sharded TSDB at `root`, over in-memory WALs (the stores survive a reopen). */
async function openShards(root: string, stores: MemWalStore[]): Promise<Tsdb[]> {
  const out: Tsdb[] = [];
  for (let i = 0; i < 2; i++) {
    out.push(await Tsdb.open({ dir: path.join(root, `shard-${i}`), openWal: stores[i].open, shared: { dir: root, shard: i, shards: 2, serve: true, writer: i === 0 } }));
  }
  return out;
}

/** Appends each sample to the shard its series routes to. */
async function appendRouted(dbs: Tsdb[], ss: ReturnType<typeof samples>): Promise<void> {
  for (let i = 0; i < dbs.length; i++) {
    const mine = ss.filter((s) => shardOfSeries(labelsToFlat(labelsFromRecord(s.labels)), dbs.length) === i);
    if (mine.length) await dbs[i].append(batch(mine.map((s) => [s.labels, s.t, s.v])));
  }
}

/** All shards' series, merged by label set (as the client does), as comparable rows. */
function selectAll(dbs: Tsdb[]): ReturnType<typeof flat> {
  const rows = dbs.flatMap((d) => flat(d.select(ALL, -Infinity, Infinity)));
  const byLabels = new Map<string, { l: string; t: number[]; v: number[] }>();
  for (const r of rows) {
    const old = byLabels.get(r.l);
    if (!old) { byLabels.set(r.l, r); continue; }
    const merged = old.t.map((t, k) => [t, old.v[k]] as [number, number]).concat(r.t.map((t, k) => [t, r.v[k]] as [number, number])).sort((a, b) => a[0] - b[0]);
    byLabels.set(r.l, { l: r.l, t: merged.map((x) => x[0]), v: merged.map((x) => x[1]) });
  }
  return [...byLabels.values()].sort((a, b) => (a.l < b.l ? -1 : 1));
}

test('a crash after the merged block is written but before its parts are deleted: the parts are deleted at open, nothing read twice', async () => {
  const { dir: root, cleanup } = tempDir('tsdb-shared-crash-');
  cleanups.push(cleanup);
  const stores = [new MemWalStore(), new MemWalStore()];
  let dbs = await openShards(root, stores);
  await appendRouted(dbs, samples(30, T0, T0 + 5 * H));
  const want = selectAll(dbs);
  for (const d of dbs) await tick(d);
  const parts = dbs.map((d) => blockDirs(d.dir));
  assert.deepEqual(parts.map((p) => p.length), [1, 1], 'each shard cut its part');
  const saved = path.join(root, '..', `${path.basename(root)}-parts`);
  mkdirSync(saved);
  cleanups.push(() => rmSync(saved, { recursive: true, force: true }));
  for (let i = 0; i < 2; i++) cpSync(path.join(root, `shard-${i}`, parts[i][0]), path.join(saved, `${i}`), { recursive: true });
  const shared = new SharedBlocks({ dir: root, blockRangeMs: 2 * H, now: () => T0 + 6 * H });
  // Leftovers of an earlier crash: a merged block never renamed into place, a deletion never finished.
  mkdirSync(path.join(root, '01HZZZZZZZZZZZZZZZZZZZZZZZ.tmp', 'chunks'), { recursive: true });
  mkdirSync(path.join(root, '01HZZZZZZZZZZZZZZZZZZZZZZY.deleted'));
  await maintainShared(shared);
  shared.close();
  assert.deepEqual(readdirSync(root).filter((n) => /\.(tmp|deleted)$/.test(n)), [], 'crash leftovers removed by the pass');
  for (const d of dbs) await d.close();
  // The state a kill -9 between the merged block's rename and the parts' deletion leaves behind.
  for (let i = 0; i < 2; i++) cpSync(path.join(saved, `${i}`), path.join(root, `shard-${i}`, parts[i][0]), { recursive: true });
  assert.equal(blockDirs(root).length, 1);
  assert.deepEqual(metaOf(root, blockDirs(root)[0]).compaction.parents.map((p: { ulid: string }) => p.ulid).sort(), parts.flat().sort());

  dbs = await openShards(root, stores);
  for (let i = 0; i < 2; i++) assert.deepEqual(blockDirs(path.join(root, `shard-${i}`)), [], `shard-${i}'s superseded part deleted at open`);
  assert.deepEqual(dbs.map((d) => d.blocks.length), [0, 0]);
  assert.deepEqual(selectAll(dbs), want);
  for (const d of dbs) await d.close();

  // Head truncation stays correct once the parts are gone: with empty WALs (empty heads) each shard's bound
  // is the max time its head data reached in the shared block (meta.json tessera.headCuts).
  dbs = await openShards(root, [new MemWalStore(), new MemWalStore()]);
  assert.deepEqual(dbs.map((d) => d.head.minValidTime), [T0 + 2 * H, T0 + 2 * H]);
  const r = await dbs[0].append(batch([[{ __name__: 'm', i: 'new' }, T0 + H, 1]]));
  assert.equal(r.outOfBounds, 1, 'a sample inside the merged block\'s range is out of bounds');
  for (const d of dbs) await d.close();
});

test('a layout-1 directory (blocks inside the shard directories): served as parts at open, merged into one block per range by the first pass', async () => {
  const { dir, cleanup } = tempDir('tsdb-shared-upgrade-');
  const root = path.join(dir, 'tsdb');
  // Layout 1: each shard a standalone TSDB whose blocks stay in its own directory.
  const stores = [new MemWalStore(), new MemWalStore()];
  const old: Tsdb[] = [];
  for (let i = 0; i < 2; i++) old.push(await Tsdb.open({ dir: path.join(root, `shard-${i}`), openWal: stores[i].open }));
  await appendRouted(old, samples(30, T0, T0 + 5 * H));
  const want = selectAll(old);
  for (const d of old) { await tick(d); await d.close(); }
  assert.deepEqual(blockDirs(root), []);
  assert.deepEqual([0, 1].map((i) => blockDirs(path.join(root, `shard-${i}`)).length), [1, 1]);
  assert.equal(existsSync(path.join(root, 'tessera-layout.json')), false);
  // The shard directories' WALs only exist in memory here: the new layout starts with empty heads, and the
  // data compared is the blocks' (what the layout-1 TSDB had persisted).
  const blocksOnly = want.map((r) => { const k = r.t.findIndex((t) => t >= T0 + 2 * H); return { l: r.l, t: r.t.slice(0, k), v: r.v.slice(0, k) }; });

  const pool = new ShardPool({ workers: 2, dataDir: dir, options: {} });
  const client = new TsdbClient(pool);
  cleanups.push(async () => { await client.close(); await pool.close(); cleanup(); });
  await client.open({ retentionMs: 0, retentionBytes: 0 });
  assert.deepEqual(JSON.parse(readFileSync(path.join(root, 'tessera-layout.json'), 'utf8')), { version: 2 });
  assert.deepEqual(flat(await client.select(ALL, -Infinity, Infinity)), blocksOnly, 'layout-1 blocks served before the first pass');
  await client.tick();
  assert.deepEqual(ranges(root), { ranges: [[T0, T0 + 2 * H]], overlapping: false });
  assert.deepEqual([0, 1].map((i) => blockDirs(path.join(root, `shard-${i}`)).length), [0, 0]);
  assert.deepEqual(flat(await client.select(ALL, -Infinity, Infinity)), blocksOnly, 'and the same after the merge');
});

test('a TSDB directory of a newer layout is refused with FormatVersionError', async () => {
  const { dir, cleanup } = tempDir('tsdb-layout-');
  try {
    writeFileSync(path.join(dir, 'tessera-layout.json'), '{"version":3}\n');
    await assert.rejects(checkTsdbLayout(dir, true), (e: unknown) => e instanceof FormatVersionError && /tessera-layout\.json/.test(String((e as FormatVersionError).details.file)));
    writeFileSync(path.join(dir, 'tessera-layout.json'), '{"version":2}\n');
    assert.equal(await checkTsdbLayout(dir, true), 2);
  } finally { cleanup(); }
});
