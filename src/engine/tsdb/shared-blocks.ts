/**
 * Maintenance of the blocks a sharded TSDB keeps in its own directory (shard-layout.ts, docs/format.md "TSDB
 * directory layout"), run by one shard worker after every shard has cut its head: the parts the shards cut
 * (`shard-<n>/<ULID>/`) are merged into one block per range there, then leveled compaction and retention run
 * over the shared blocks, as today's per-shard maintenance did over a shard's. The other workers pick the new
 * blocks up when they reload; they keep reading deleted blocks through open descriptors until then.
 *
 * Crash safety: a merged block is written whole (tmp + rename) naming its inputs in `compaction.parents`
 * before any input is deleted, and a lone part moves up with one rename, so a crash leaves either the inputs
 * or the merged block plus inputs it supersedes, which every reader skips and the next pass deletes.
 */
import { promises as fsp } from 'node:fs';
import path from 'node:path';
import type { Block } from './block.ts';
import { dirSize, listBlockDirs, openBlock } from './block.ts';
import { writeMeta } from './block-meta.ts';
import type { BlockSet, ShutdownSignal, TickResult } from './db-maintenance.ts';
import type { Tsdb } from './db.ts';
import { applyRetention, compactAll, deleteBlocks, emptyTick, groupOverlapping, mergeLevel, rewriteTombstoned, serially, writeMergedBlock } from './db-maintenance.ts';
import { headCutsOf, removeBlockDir, shardDirs, supersededUlids } from './shard-layout.ts';
import { syncDir } from '../store/durable-files.ts';

export interface SharedBlocksOptions {
  /** The TSDB directory (shared blocks directly in it, shard directories `shard-<n>/` below it). */
  dir: string;
  /**
   * The shard of this worker that serves the shared blocks: its Block objects are used (one copy of each
   * block's symbols and postings table per worker), and it is reloaded where the blocks are. Without it the
   * shared blocks are opened here.
   */
  view?: Tsdb;
  blockRangeMs: number;
  retentionMs?: number;
  retentionBytes?: number;
  maxBlockDurationMs?: number;
  now: () => number;
  /** Stops a merge or compaction under way when the node shuts down. */
  shutdown?: ShutdownSignal;
}

export class SharedBlocks implements BlockSet {
  blocks: Block[] = [];
  maintenance: Promise<unknown> = Promise.resolve();
  readonly blockRangeMs: number;
  readonly now: () => number;
  readonly keepsDeletedOpen: boolean;

  constructor(readonly opts: SharedBlocksOptions) {
    this.blockRangeMs = opts.blockRangeMs;
    this.now = opts.now;
    this.keepsDeletedOpen = opts.view !== undefined;
  }

  get dir(): string { return this.opts.dir; }

  get shutdown(): ShutdownSignal | undefined { return this.opts.shutdown; }

  /**
   * (Re)opens the shared block directories, keeping open ones (their tombstones re-read: the shard that serves
   * deletions writes them through its own handle) and deleting blocks another block names as parents.
   */
  async reloadBlocks(): Promise<void> {
    if (this.opts.view) return this.reloadView(this.opts.view);
    const byDir = new Map(this.blocks.map((b) => [b.dir, b]));
    const next: Block[] = [];
    for (const d of await listBlockDirs([this.dir], byDir)) {
      let b = byDir.get(d);
      if (b) { await b.refreshTombstones(); byDir.delete(d); } else b = await openBlock(d);
      next.push(b);
    }
    for (const b of byDir.values()) b.close();
    const superseded = supersededUlids(next.map((b) => b.meta));
    const live: Block[] = [];
    for (const b of next) {
      if (superseded.has(b.ulid)) { b.close(); await removeBlockDir(b.dir); } else live.push(b);
    }
    this.blocks = live.sort((a, b) => a.minTime - b.minTime);
  }

  /** Reloads the serving shard and takes its blocks; deletes the superseded ones it left out (and closed). */
  private async reloadView(view: Tsdb): Promise<void> {
    await view.reloadBlocks();
    const live = view.shared.map((v) => v.block);
    const superseded = supersededUlids(live.map((b) => b.meta));
    const open = new Set(live.map((b) => b.dir));
    for (const d of await listBlockDirs([this.dir], open)) if (superseded.has(path.basename(d))) await removeBlockDir(d);
    this.blocks = live;
  }

  /** Every shard's WAL, checkpoints included. */
  async walSizeBytes(): Promise<number> {
    let n = 0;
    for (const d of await shardDirs(this.dir)) n += await dirSize(path.join(d, 'wal')).catch(() => 0);
    return n;
  }

  setRetention(r: { retentionMs?: number; retentionBytes?: number; maxBlockDurationMs?: number }): void {
    if (r.retentionMs !== undefined) this.opts.retentionMs = r.retentionMs;
    if (r.retentionBytes !== undefined) this.opts.retentionBytes = r.retentionBytes;
    if (r.maxBlockDurationMs !== undefined) this.opts.maxBlockDurationMs = r.maxBlockDurationMs;
  }

  close(): void {
    if (!this.opts.view) for (const b of this.blocks) b.close();
    this.blocks = [];
  }
}

/**
 * Merges the shards' parts into the shared blocks, then compacts and applies retention. Merging parts counts
 * neither as a cut (the shards counted those) nor as a compaction.
 */
export function maintainShared(s: SharedBlocks): Promise<TickResult> {
  return serially(s, async () => {
    await removeLeftovers(s.dir);
    await s.reloadBlocks();
    await mergeParts(s);
    const compactionSeconds = await compactAll(s);
    return { ...emptyTick(), compactionSeconds, ...await applyRetention(s) };
  });
}

/** Rewrites every shared block that has tombstones without the deleted data. */
export function cleanSharedTombstones(s: SharedBlocks): Promise<number> {
  return serially(s, async () => {
    await s.reloadBlocks();
    return rewriteTombstoned(s);
  });
}

/**
 * Each group of overlapping parts and shared blocks becomes one shared block of the inputs' level; a part
 * that overlaps nothing moves up as it is. Returns the number of parts merged or moved.
 */
async function mergeParts(s: SharedBlocks): Promise<number> {
  const parts: Block[] = [];
  try {
    const superseded = supersededUlids(s.blocks.map((b) => b.meta));
    for (const sd of await shardDirs(s.dir)) {
      for (const d of await listBlockDirs([sd])) {
        if (superseded.has(path.basename(d))) { await removeBlockDir(d); continue; }
        parts.push(await openBlock(d));
      }
    }
    if (parts.length === 0) return 0;
    const isPart = new Set(parts);
    for (const g of groupOverlapping([...s.blocks, ...parts])) {
      if (!g.some((b) => isPart.has(b))) continue;
      if (g.length === 1) { await moveUp(s.dir, g[0]); continue; }
      await writeMergedBlock(s.dir, g, mergeLevel(g), s.now(), s.shutdown);
      const shared = g.filter((b) => !isPart.has(b));
      for (const b of g) if (isPart.has(b)) { b.close(); await removeBlockDir(b.dir); }
      if (shared.length) await deleteBlocks(s, shared);
    }
    return parts.length;
  } finally {
    for (const b of parts) b.close();
    await s.reloadBlocks();
  }
}

/**
 * Deletes what a crash left in the shared directory: a block being written (`<ULID>.tmp`, never renamed) or
 * being deleted (`<ULID>.deleted`). Only this pass writes there, and the pass runs alone.
 */
async function removeLeftovers(root: string): Promise<void> {
  for (const n of await fsp.readdir(root).catch(() => [] as string[])) {
    if (/^[0-9A-HJKMNP-TV-Z]{26}\.(tmp|deleted)$/.test(n)) await fsp.rm(path.join(root, n), { recursive: true, force: true });
  }
}

/** Moves a lone part into the shared directory, recording which shard's head it came from first. */
async function moveUp(root: string, part: Block): Promise<void> {
  const headCuts = headCutsOf(part.dir, part.meta);
  if (Object.keys(headCuts).length && !part.meta.tessera?.headCuts) {
    await writeMeta(part.dir, { ...part.meta, tessera: { ...part.meta.tessera, cutFromHead: true, headCuts } });
  }
  part.close();
  const from = path.dirname(part.dir);
  await fsp.rename(part.dir, path.join(root, path.basename(part.dir)));
  await syncDir(root);
  await syncDir(from);
}
