/**
 * Opening, flushing and closing a document shard on disk: `<dir>/translog/` is the shard's WAL and
 * `<dir>/index/` its segments and commit points (docs/format.md "Document segments"). Open = open the last
 * commit's segments + replay the translog after the position the commit records (documents in committed
 * segments are never re-analysed); flush = cut the translog, commit the index, delete the translog segments
 * the commit covers.
 *
 * A shard written by format 1 (`shard.snap`, the whole shard state rewritten at each flush) is converted on
 * first open: its documents are indexed, the translog tail replayed, a commit written, and `shard.snap`
 * removed, with log lines reporting progress.
 */
import { CorruptionError } from '../errors.ts';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { DOC_SNAPSHOT_FILE, SEGMENTS_DIR } from '../codec/format-ids.ts';
import { ShardIndex } from '../indexing/shard-index.ts';
import type { IndexingMemory } from '../indexing/indexing-memory.ts';
import type { TieredMergeSettings } from '../indexing/tiered-merge-policy.ts';
import type { BlockCache } from '../segments/block-cache.ts';
import { Wal } from '../wal/index.ts';
import { DocShard, type DocShardOptions } from './doc-shard.ts';
import { readSnapshot } from './shard-snapshot.ts';
import type { ShardRecovery } from './doc-shard-types.ts';

export interface ShardStoreOptions {
  /** The worker's block cache and indexing buffer budget. */
  cache: BlockCache;
  memory: IndexingMemory | null;
  /** The index's settings as ES JSON (analysis, …). */
  indexSettings: Record<string, unknown>;
  walCompression?: boolean;
  walSegmentSizeBytes?: number;
  walRepair?: boolean;
  mergeSettings?: TieredMergeSettings;
  autoMerge?: boolean;
  /** Check every region of every segment at open (`index.shard.check_on_startup`). */
  verifyOnOpen?: boolean;
  onWarning?: (msg: string) => void;
  onInfo?: (msg: string) => void;
  /** A translog batch failed (wal/index.ts `onFailure`): the owner must reopen the shard from disk. */
  onTranslogFailure?: (err: unknown) => void;
}

const UPGRADE_PROGRESS_DOCS = 100_000;

/** A shard bound to its files. */
export class StoredShard {
  readonly shard: DocShard;
  readonly dir: string;
  private readonly wal: Wal;
  private flushing: Promise<void> | null = null;
  /** What this open found and replayed (`_cat/recovery`). */
  recovery: ShardRecovery | null = null;

  private constructor(shard: DocShard, dir: string, wal: Wal) {
    this.shard = shard;
    this.dir = dir;
    this.wal = wal;
  }

  static async open(dir: string, shardOpts: Omit<DocShardOptions, 'translog' | 'index'>, o: ShardStoreOptions): Promise<StoredShard> {
    const startMs = Date.now();
    const existed = existsSync(dir) && readdirSync(dir).length > 0;
    await mkdir(dir, { recursive: true });
    const index = ShardIndex.open({
      dir: join(dir, SEGMENTS_DIR), indexSettings: o.indexSettings, cache: o.cache, memory: o.memory,
      mergeSettings: o.mergeSettings, autoMerge: o.autoMerge, verifyOnOpen: o.verifyOnOpen, onBackgroundError: (e) => o.onWarning?.(`shard [${shardOpts.indexName}][${shardOpts.shard}]: ${(e as Error).message}`),
    });
    try {
      const shard = new DocShard({ ...shardOpts, index, translog: null });
      const commit = index.lastCommit;
      let from = commit ? { segment: commit.translogSegment, offset: commit.translogOffset } : null;
      if (commit) shard.maxSeqNo = commit.maxSeqNo;
      const legacy = !commit && existsSync(join(dir, DOC_SNAPSHOT_FILE));
      if (legacy) from = await upgradeSnapshot(dir, shard, o);
      const wal = await Wal.open({
        dir: join(dir, 'translog'), compress: o.walCompression ?? false, repair: o.walRepair ?? false,
        segmentSizeBytes: o.walSegmentSizeBytes ?? 16 * 1024 * 1024, onWarning: o.onWarning, onFailure: o.onTranslogFailure,
      });
      // Segment files but no commit point, and a translog that no longer starts at its beginning (trimmed by a
      // commit, or emptied by a clean shutdown's flush): a commit point was lost, and its documents are only in
      // those segments. Before a first commit the translog still starts at segment 0 and holds every document.
      if (!commit && !legacy && (wal.firstSegment() ?? 1) > 0 && readdirSync(join(dir, SEGMENTS_DIR)).some((f) => f.startsWith('_'))) {
        await wal.close();
        throw new CorruptionError(join(dir, SEGMENTS_DIR), 0, 'segment files without a commit point (segments_N), and a translog trimmed by an earlier commit: '
          + 'a commit point was lost; restore the shard directory from a backup, or delete the index');
      }
      let replayed = 0;
      await wal.replay(from, (type, payload) => { replayed++; shard.replayRecord(type, payload); });
      shard.translog = wal;
      shard.refresh();
      const stored = new StoredShard(shard, dir, wal);
      const files = indexFiles(join(dir, SEGMENTS_DIR));
      stored.recovery = { type: existed ? 'existing_store' : 'empty_store', startMs, stopMs: Date.now(), files: files.count, bytes: files.bytes, translogOps: replayed };
      if (legacy) {
        await stored.flush();
        await rm(join(dir, DOC_SNAPSHOT_FILE), { force: true });
        o.onInfo?.(`shard ${dir}: upgraded from format 1 (shard.snap) to segments; ${shard.stats(0).rootDocs} documents`);
      }
      return stored;
    } catch (e) {
      await index.close();
      throw e;
    }
  }

  /** Persists the state and trims the translog; concurrent calls share one flush. */
  flush(): Promise<void> {
    this.flushing ??= this.doFlush().finally(() => { this.flushing = null; });
    return this.flushing;
  }

  private async doFlush(): Promise<void> {
    // Every operation before `pos` is already in the index (operations change it before their append).
    const pos = await this.wal.cut();
    await this.shard.shardIndex.flush({ translogSegment: pos.segment, translogOffset: pos.offset, maxSeqNo: this.shard.maxSeqNo }, this.wal);
    this.shard.afterFlush();
    await this.wal.truncateBefore(pos);
  }

  /** Translog bytes written since the last flush (what `_stats` adds to the segments' size). */
  translogBytes(): number {
    return this.shard.translogBytes;
  }

  /**
   * Closes the translog and the index. Throws when the translog could not put back the files of a failed
   * batch (then the shard must not be reopened yet; calling `close` again retries).
   */
  async close(): Promise<void> {
    await this.flushing?.catch(() => undefined);
    try {
      await this.wal.close();
    } finally {
      await this.shard.shardIndex.close();
    }
  }

  /** Closes and deletes the shard's files (index deletion). */
  async destroy(): Promise<void> {
    await this.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}

/** The files of the index directory and their total size (what a store recovery reuses). */
function indexFiles(dir: string): { count: number; bytes: number } {
  let count = 0, bytes = 0;
  for (const f of existsSync(dir) ? readdirSync(dir) : []) {
    const st = statSync(join(dir, f), { throwIfNoEntry: false });
    if (!st?.isFile()) continue;
    count++; bytes += st.size;
  }
  return { count, bytes };
}

/** Indexes the documents of a format-1 snapshot; returns the translog position the snapshot covers. */
async function upgradeSnapshot(dir: string, shard: DocShard, o: ShardStoreOptions): Promise<{ segment: number; offset: number }> {
  o.onInfo?.(`shard ${dir}: converting format 1 (shard.snap) to segments`);
  let n = 0;
  const meta = await readSnapshot(dir, (id, e) => {
    shard.apply(id, e, null, true);
    if (++n % UPGRADE_PROGRESS_DOCS === 0) o.onInfo?.(`shard ${dir}: converted ${n} documents`);
  });
  shard.maxSeqNo = Math.max(shard.maxSeqNo, meta!.maxSeqNo);
  return { segment: meta!.walSegment, offset: meta!.walOffset };
}
