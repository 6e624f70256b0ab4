/**
 * Background work of a TSDB shard, run by `tick()` (and the admin API): cutting the head into 2 h blocks once
 * it spans 1.5 block ranges, leveled compaction (2 h → 6 h → 18 h … up to the max block duration),
 * retention by time and size (oldest blocks first), tombstone cleaning and snapshots. Every operation is
 * chained on `db.maintenance` so they never interleave within a shard.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import { compareLabels, MATCH_REGEXP, newMatcher, VAL_FLOAT } from './api.ts';
import type { SampleCursor } from './api.ts';
import type { Block } from './block.ts';
import { ChunkReadPass, listBlockDirs, openBlock } from './block.ts';
import { BlockDirWriter, encodeChunks, writeBlockDir, type BlockChunk, type BlockSeries } from './block-writer.ts';
import { addCutChunkHistograms, emptyCutChunkHistograms, observeCutChunk, type CutChunkHistograms } from './chunk-histograms.ts';
import type { Interval } from './chunk-meta.ts';
import { isDeleted } from './chunk-meta.ts';
import { EngineError } from '../errors.ts';
import type { Tsdb } from './db.ts';
import { checkpointWal } from './head-replay.ts';
import { MultiSourceQuerier } from './querier.ts';
import { mergeHeadCuts, removeBlockDir } from './shard-layout.ts';
import { decodeXor as decodeInto, xorCount } from './xor-chunk.ts';

const MATCH_ALL = [newMatcher(MATCH_REGEXP, '__name__', '.*')];
const DAY_MS = 86_400_000;

/**
 * A directory of blocks that compaction and retention work on: a standalone TSDB (its blocks and head) or the
 * shared directory of a sharded one (shared-blocks.ts).
 */
export interface BlockSet {
  /** Where new blocks are written. */
  readonly dir: string;
  blocks: Block[];
  readonly blockRangeMs: number;
  readonly opts: { retentionMs?: number; retentionBytes?: number; maxBlockDurationMs?: number };
  /** Serialises the maintenance of this set. */
  maintenance: Promise<unknown>;
  now(): number;
  reloadBlocks(): Promise<void>;
  /** Bytes of the WAL(s) beside the blocks, counted towards the size retention. */
  walSizeBytes(): Promise<number>;
  /**
   * Set when the blocks are also served by a reader that closes them itself when it reloads (the shared
   * blocks of worker 0 are its query view's): deleting a block then leaves it open until that reload.
   */
  readonly keepsDeletedOpen?: boolean;
  /** Set once the node shuts down: a compaction running then gives up (`writeMergedBlock`). */
  readonly shutdown?: ShutdownSignal;
}

/**
 * Read by maintenance between series: a worker's shutdown word (read-stop.ts, word 0). Prometheus's `DB.Close`
 * cancels a running compaction the same way, so a SIGTERM does not wait for minutes of merging.
 */
export interface ShutdownSignal { readonly canceled: boolean }

export function serially<T>(db: BlockSet, fn: () => Promise<T>): Promise<T> {
  const p = db.maintenance.then(fn, fn);
  db.maintenance = p.catch(() => {});
  return p;
}

export interface TickResult {
  blocksCut: number;
  blocksDeleted: number;
  /** 1 when the time limit deleted blocks, else 0 (Prometheus counts retention runs, not blocks); same for size. */
  timeRetentions: number;
  sizeRetentions: number;
  /** How long each compaction took, in seconds: one entry per compaction (`prometheus_tsdb_compaction_duration_seconds`). */
  compactionSeconds: number[];
  /** The chunks the head cuts wrote (`prometheus_tsdb_compaction_chunk_*`). */
  cutChunks: CutChunkHistograms;
  /**
   * Per head cut, seconds spent dropping the cut range from the head and checkpointing the WAL (Prometheus's
   * head garbage collection and WAL truncation: `prometheus_tsdb_head_gc_duration_seconds`, `…_wal_truncate_…`).
   */
  headGcSeconds: number[];
  walTruncateSeconds: number[];
}

/** A tick that did nothing. */
export function emptyTick(): TickResult {
  return { blocksCut: 0, blocksDeleted: 0, timeRetentions: 0, sizeRetentions: 0, compactionSeconds: [], cutChunks: emptyCutChunkHistograms(), headGcSeconds: [], walTruncateSeconds: [] };
}

/** What a retention pass deleted: blocks in all, and whether each limit deleted any. */
export type RetentionResult = Pick<TickResult, 'blocksDeleted' | 'timeRetentions' | 'sizeRetentions'>;

/**
 * Cuts, compacts and applies retention until there is nothing left to do. A shard of a sharded TSDB only cuts
 * parts: the shared maintenance (shared-blocks.ts) merges, compacts and applies retention for all shards.
 */
export function tick(db: Tsdb): Promise<TickResult> {
  return serially(db, async () => {
    const res = emptyTick();
    while (headCompactable(db)) { await cutHeadBlock(db, res); res.blocksCut++; }
    if (db.opts.shared) return res;
    res.compactionSeconds = await compactAll(db);
    return { ...res, ...await applyRetention(db) };
  });
}

/** Runs leveled compaction until the plan is empty; returns each compaction's duration in seconds. */
export async function compactAll(db: BlockSet): Promise<number[]> {
  const seconds: number[] = [];
  for (let group = planCompaction(db); group; group = planCompaction(db)) {
    const t0 = performance.now();
    await compactBlocks(db, group, 0);
    seconds.push((performance.now() - t0) / 1000);
  }
  return seconds;
}

/** Re-reads the block directories, serialised with compaction (which adds and removes blocks). */
export function refreshBlocks(db: Tsdb): Promise<void> {
  return serially(db, () => db.reloadBlocks());
}

/** Writes the whole head out as blocks (used for a shard no worker appends to any more). */
export function flushHead(db: Tsdb): Promise<number> {
  return serially(db, async () => {
    let n = 0;
    while (db.head.numSeries > 0) { await cutHeadBlock(db); n++; }
    return n;
  });
}

export function headCompactable(db: Tsdb): boolean {
  const h = db.head;
  return h.numSeries > 0 && h.maxTime - h.minTime > (db.blockRangeMs / 2) * 3;
}

/**
 * Writes the oldest block range of the head as a level-1 block, truncates the head and checkpoints the WAL;
 * adds the chunks it wrote and the time of the truncation and checkpoint to `res` when given.
 */
export async function cutHeadBlock(db: Tsdb, res: TickResult | null = null): Promise<void> {
  const R = db.blockRangeMs;
  const mint = Math.floor(db.head.minTime / R) * R, maxt = mint + R;
  const series: BlockSeries[] = [];
  const observed = emptyCutChunkHistograms();
  for (const slot of db.head.slots()) {
    const ref = db.head.refAt(slot);
    const chunks: BlockChunk[] = db.head.chunksWithBytes(slot, maxt);
    const del = db.head.tombstones.get(ref);
    const kept = del ? rewriteDeleted(chunks, del) : chunks;
    if (kept.length) series.push({ labels: db.head.labelsAt(slot), chunks: kept });
    for (const c of kept) observeCutChunk(observed, c.bytes.length, xorCount(c.bytes), c.maxt - c.mint);
  }
  series.sort((a, b) => compareLabels(a.labels, b.labels));
  if (series.length) await writeBlockDir(db.dir, series, { minTime: mint, maxTime: maxt, level: 1, cutFromHead: true }, db.now());
  db.head.minValidTime = Math.max(db.head.minValidTime, maxt);
  await db.reloadBlocks();
  const t0 = performance.now();
  db.head.truncate(maxt);
  const t1 = performance.now();
  await checkpointWal(db.head, db.wal);
  if (res === null) return;
  addCutChunkHistograms(res.cutChunks, observed);
  res.headGcSeconds.push((t1 - t0) / 1000);
  res.walTruncateSeconds.push((performance.now() - t1) / 1000);
}

/** Re-encodes the chunks without the samples inside `del`. */
function rewriteDeleted(chunks: BlockChunk[], del: readonly Interval[]): BlockChunk[] {
  const ts: number[] = [];
  const vsParts: Float64Array[] = [];
  const idx: [number, number][] = [];
  for (const c of chunks) {
    const b = c.bytes;
    const n = xorCount(b);
    const t = new Float64Array(n), v = new Float64Array(n);
    decodeInto(b, t, v);
    vsParts.push(v);
    for (let i = 0; i < n; i++) if (!isDeleted(del, t[i])) { ts.push(t[i]); idx.push([vsParts.length - 1, i]); }
  }
  const T = Float64Array.from(ts), V = new Float64Array(ts.length);
  idx.forEach(([p, i], k) => { V[k] = vsParts[p][i]; });
  return encodeChunks(T, V, 0, T.length);
}

/** Leveled compaction ranges: R, 3R, 9R, … up to the max block duration. */
export function compactionRanges(db: BlockSet): number[] {
  const max = maxBlockDuration(db);
  const out = [db.blockRangeMs];
  for (let r = db.blockRangeMs * 3; r <= max; r *= 3) out.push(r);
  return out;
}

export function maxBlockDuration(db: BlockSet): number {
  if (db.opts.maxBlockDurationMs) return db.opts.maxBlockDurationMs;
  const ret = db.opts.retentionMs ?? 15 * DAY_MS;
  return Math.max(db.blockRangeMs, Math.min(ret > 0 ? ret / 10 : 31 * DAY_MS, 31 * DAY_MS));
}

/** Prometheus's `LeveledCompactor.Plan`: overlapping blocks first, then the first full range group. */
export function planCompaction(db: BlockSet): Block[] | null {
  const blocks = [...db.blocks].sort((a, b) => a.minTime - b.minTime);
  for (let i = 1; i < blocks.length; i++) {
    if (blocks[i].minTime < blocks[i - 1].maxTime) {
      const group = [blocks[i - 1]];
      let maxt = blocks[i - 1].maxTime;
      for (let j = i; j < blocks.length && blocks[j].minTime < maxt; j++) { group.push(blocks[j]); maxt = Math.max(maxt, blocks[j].maxTime); }
      return group;
    }
  }
  const ds = blocks.slice(0, -1); // the newest block is left alone
  if (ds.length === 0) return null;
  const highTime = ds[ds.length - 1].minTime;
  for (const r of compactionRanges(db).slice(1)) {
    for (const p of splitByRange(ds, r)) {
      const mint = p[0].minTime, maxt = p[p.length - 1].maxTime;
      if (p.length > 1 && (maxt - mint === r || maxt <= highTime)) return p;
    }
  }
  for (const b of ds) {
    const t = b.meta.stats.numTombstones ?? 0;
    if (t > 0 && t / Math.max(1, b.meta.stats.numSeries) > 0.05) return [b];
  }
  return null;
}

function splitByRange(ds: Block[], r: number): Block[][] {
  const out: Block[][] = [];
  for (let i = 0; i < ds.length;) {
    const t0 = Math.floor(ds[i].minTime / r) * r;
    if (ds[i].maxTime > t0 + r) { i++; continue; }
    const group: Block[] = [];
    for (; i < ds.length && ds[i].minTime >= t0 && ds[i].maxTime <= t0 + r; i++) group.push(ds[i]);
    if (group.length) out.push(group);
  }
  return out;
}

/**
 * Merges `group` into one block (tombstoned samples dropped, overlapping samples de-duplicated), then deletes
 * the inputs. Chunks are copied as they are when a series needs no rewriting.
 */
export async function compactBlocks(db: BlockSet, group: Block[], levelBump = 1): Promise<string | null> {
  const level = Math.max(...group.map((b) => b.meta.compaction.level)) + (group.length > 1 ? 1 : levelBump);
  const id = await writeMergedBlock(db.dir, group, level, db.now(), db.shutdown);
  await deleteBlocks(db, group);
  return id;
}

/** Chunk places presized for a merged block at most (24 MB of columns); a larger block grows them. */
const MAX_PRESIZED_CHUNKS = 1 << 20;

/**
 * Writes the merge of `group` as one new block of `level` under `parent` (none when no sample is left); returns its
 * ULID. Once `shutdown` is canceled it removes what it wrote and throws TSDB_MAINTENANCE_STOPPED; the inputs stay.
 */
export async function writeMergedBlock(parent: string, group: readonly Block[], level: number, nowMs: number, shutdown?: ShutdownSignal): Promise<string | null> {
  const mint = Math.min(...group.map((b) => b.minTime)), maxt = Math.max(...group.map((b) => b.maxTime));
  const q = new MultiSourceQuerier([...group], mint, maxt - 1);
  // Copied as they are, the inputs' chunks are the output's (re-encoded series may come out with more or fewer);
  // a meta.json's count is not trusted beyond a bound.
  let chunks = 0;
  for (const b of group) chunks += b.meta.stats?.numChunks ?? 0;
  const w = await BlockDirWriter.open(parent, nowMs, Math.min(chunks, MAX_PRESIZED_CHUNKS));
  // Chunks copied as they are go through readers of the compaction's own, which refill in place.
  const pass = new ChunkReadPass();
  for (const b of group) b.readOnce = true;
  try {
    let cur: SampleCursor | null = null;
    for (const s of q.stream(MATCH_ALL, mint, maxt - 1)) {
      if (shutdown?.canceled) throw EngineError.of('TSDB_MAINTENANCE_STOPPED', [`compaction of ${group.length} blocks`], { phase: 'compaction' });
      if (s.plain()) { await w.add(s.labels, s.chunks.map((r) => r.c), pass); continue; }
      let cap = 0;
      for (const r of s.chunks) cap += xorCount(r.c.bytes);
      const t = new Float64Array(cap), v = new Float64Array(cap);
      cur = s.iterator(cur);
      let n = 0;
      while (cur.next() === VAL_FLOAT) { t[n] = cur.t; v[n] = cur.v; n++; }
      if (n) await w.add(s.labels, encodeChunks(t, v, 0, n));
    }
    if (w.numSeries === 0) { await w.discard(); return null; }
    const sources = [...new Set(group.flatMap((b) => b.meta.compaction.sources))].sort();
    const parents = group.map((b) => ({ ulid: b.ulid, minTime: b.minTime, maxTime: b.maxTime }));
    const cutFromHead = group.some((b) => b.meta.tessera?.cutFromHead);
    const cuts = mergeHeadCuts(group);
    const headCuts = Object.keys(cuts).length ? cuts : undefined;
    return await w.finish({ minTime: mint, maxTime: maxt, level, sources, parents, cutFromHead, headCuts });
  } catch (e) {
    await w.discard();
    throw e;
  } finally {
    pass.close();
    for (const b of group) b.endReadOnce();
  }
}

/**
 * Merges the blocks directly under `dir` whose time ranges overlap into one block each, and deletes the
 * merged ones: every shard worker writes its own blocks into a snapshot, and this makes the snapshot one
 * block per time range for the whole TSDB, as a Prometheus snapshot is. Not for a live shard directory
 * (nothing here coordinates with queries). Returns the number of blocks written.
 */
export async function mergeOverlappingBlocks(dir: string, nowMs: number): Promise<number> {
  const blocks: Block[] = [];
  for (const d of await listBlockDirs([dir])) blocks.push(await openBlock(d));
  let written = 0;
  try {
    for (const g of groupOverlapping(blocks)) {
      if (g.length < 2) continue;
      await writeMergedBlock(dir, g, mergeLevel(g), nowMs);
      written++;
      for (const b of g) { b.close(); await removeBlockDir(b.dir); }
    }
  } finally {
    for (const b of blocks) b.close();
  }
  return written;
}

/** The inputs' level: merging the shards' parts of a range is not a compaction step. */
export function mergeLevel(group: readonly Block[]): number {
  return Math.max(...group.map((b) => b.meta.compaction.level));
}

/** `blocks` in groups whose time ranges overlap (transitively), in time order; a lone block is a group of one. */
export function groupOverlapping(blocks: readonly Block[]): Block[][] {
  const sorted = [...blocks].sort((a, b) => a.minTime - b.minTime);
  const groups: Block[][] = [];
  let end = -Infinity; // max time of the current group
  for (const b of sorted) {
    if (groups.length > 0 && b.minTime < end) groups[groups.length - 1].push(b);
    else { groups.push([b]); end = -Infinity; }
    end = Math.max(end, b.maxTime);
  }
  return groups;
}

export async function deleteBlocks(db: BlockSet, blocks: Block[]): Promise<void> {
  // Unpublish first: a select running in this worker between the awaits below must not reach a closed block.
  db.blocks = db.blocks.filter((b) => !blocks.includes(b));
  for (const b of blocks) {
    if (!db.keepsDeletedOpen) b.close();
    await removeBlockDir(b.dir);
  }
  await db.reloadBlocks();
}

/** Deletes blocks beyond the time retention (measured from the newest block's max time) and the size limit. */
export async function applyRetention(db: BlockSet): Promise<RetentionResult> {
  const newestFirst = [...db.blocks].sort((a, b) => b.maxTime - a.maxTime);
  const doomed = new Set<Block>();
  let timeRetentions = 0, sizeRetentions = 0;
  const ret = db.opts.retentionMs ?? 0;
  if (ret > 0) {
    for (let i = 1; i < newestFirst.length; i++) {
      if (newestFirst[0].maxTime - newestFirst[i].maxTime > ret) { for (const b of newestFirst.slice(i)) doomed.add(b); timeRetentions = 1; break; }
    }
  }
  const limit = db.opts.retentionBytes ?? 0;
  if (limit > 0) {
    let size = await db.walSizeBytes();
    for (let i = 0; i < newestFirst.length; i++) {
      size += newestFirst[i].sizeBytes;
      if (size > limit) { for (const b of newestFirst.slice(i)) doomed.add(b); sizeRetentions = 1; break; }
    }
  }
  if (doomed.size) await deleteBlocks(db, [...doomed]);
  return { blocksDeleted: doomed.size, timeRetentions, sizeRetentions };
}

/** Bytes of the WAL(s), checkpoints included (Prometheus counts the head's WAL towards the size limit too). */
export function headSizeBytes(db: BlockSet): Promise<number> {
  return db.walSizeBytes();
}

/** Rewrites every block that has tombstones without the deleted data. */
export function cleanTombstones(db: Tsdb): Promise<number> {
  return serially(db, () => rewriteTombstoned(db));
}

/** Rewrites each of `set`'s blocks that has tombstones without the deleted data (run inside `serially`); how many. */
export async function rewriteTombstoned(set: BlockSet): Promise<number> {
  let n = 0;
  for (const b of [...set.blocks]) {
    if (b.tombstones.size === 0) continue;
    await compactBlocks(set, [b], 0);
    n++;
  }
  return n;
}

/**
 * Copies the blocks (hard links) and the head (as a block) of this shard into `dir`; in a sharded TSDB the
 * shard's unmerged parts, and the shared blocks from the shard that writes them. The caller merges the
 * overlapping parts afterwards (`mergeOverlappingBlocks`).
 */
export function snapshot(db: Tsdb, dir: string, withHead: boolean): Promise<void> {
  return serially(db, async () => {
    await fsp.mkdir(dir, { recursive: true });
    await db.reloadBlocks(); // parts merged since the last reload are in the shared blocks now
    const blocks = db.opts.shared?.writer ? [...db.blocks, ...db.shared.map((v) => v.block)] : db.blocks;
    for (const b of blocks) await linkTree(b.dir, path.join(dir, path.basename(b.dir)));
    if (!withHead || db.head.numSeries === 0) return;
    const series: BlockSeries[] = [];
    for (const slot of db.head.slots()) {
      const ref = db.head.refAt(slot);
      const chunks: BlockChunk[] = db.head.chunksWithBytes(slot);
      const del = db.head.tombstones.get(ref);
      const kept = del ? rewriteDeleted(chunks, del) : chunks;
      if (kept.length) series.push({ labels: db.head.labelsAt(slot), chunks: kept });
    }
    series.sort((a, b) => compareLabels(a.labels, b.labels));
    if (series.length) await writeBlockDir(dir, series, { minTime: db.head.minTime, maxTime: db.head.maxTime + 1, level: 1 }, db.now());
  });
}

async function linkTree(src: string, dst: string): Promise<void> {
  await fsp.mkdir(dst, { recursive: true });
  for (const e of await fsp.readdir(src, { withFileTypes: true })) {
    const s = path.join(src, e.name), d = path.join(dst, e.name);
    if (e.isDirectory()) await linkTree(s, d);
    else await fsp.link(s, d).catch(() => fsp.copyFile(s, d));
  }
}
