/**
 * Opening, flushing and closing a document shard on disk: `<dir>/translog/` is the shard's WAL and
 * `<dir>/shard.snap` its last flushed state. Open = load the snapshot + replay the translog after the
 * position it covers; flush = cut the WAL, snapshot the state, delete the segments the snapshot covers.
 */
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { Wal } from '../wal/index.ts';
import { DocShard, type DocShardOptions } from './doc-shard.ts';
import { readSnapshot, snapshotSize, writeSnapshot } from './shard-snapshot.ts';

export interface ShardStoreOptions {
  walCompression?: boolean;
  walSegmentSizeBytes?: number;
  walRepair?: boolean;
  onWarning?: (msg: string) => void;
}

/** A shard bound to its files. */
export class StoredShard {
  readonly shard: DocShard;
  readonly dir: string;
  private readonly wal: Wal;
  private flushing: Promise<void> | null = null;
  private snapBytes: number;

  private constructor(shard: DocShard, dir: string, wal: Wal, snapBytes: number) {
    this.shard = shard;
    this.dir = dir;
    this.wal = wal;
    this.snapBytes = snapBytes;
  }

  static async open(dir: string, shardOpts: Omit<DocShardOptions, 'translog'>, o: ShardStoreOptions = {}): Promise<StoredShard> {
    await mkdir(dir, { recursive: true });
    const shard = new DocShard({ ...shardOpts, translog: null });
    const meta = await readSnapshot(dir, (id, e) => shard.apply(id, e, null));
    if (meta) shard.maxSeqNo = Math.max(shard.maxSeqNo, meta.maxSeqNo);
    shard.afterFlush();
    const wal = await Wal.open({
      dir: join(dir, 'translog'), compress: o.walCompression ?? false, repair: o.walRepair ?? false,
      segmentSizeBytes: o.walSegmentSizeBytes ?? 16 * 1024 * 1024, onWarning: o.onWarning,
    });
    await wal.replay(meta ? { segment: meta.walSegment, offset: meta.walOffset } : null, (type, payload) => shard.replayRecord(type, payload));
    shard.translog = wal;
    shard.refresh();
    return new StoredShard(shard, dir, wal, await snapshotSize(dir));
  }

  /** Persists the state and trims the translog; concurrent calls share one flush. */
  flush(): Promise<void> {
    this.flushing ??= this.doFlush().finally(() => { this.flushing = null; });
    return this.flushing;
  }

  private async doFlush(): Promise<void> {
    const pos = await this.wal.cut();
    // Entries are replaced, never mutated, so this copy is a consistent view of every record before `pos`
    // (and maybe a few after it, which replay skips by seq_no).
    this.shard.afterFlush();
    const entries = [...this.shard.docs.entries()];
    this.snapBytes = await writeSnapshot(this.dir, { maxSeqNo: this.shard.maxSeqNo, walSegment: pos.segment, walOffset: pos.offset }, entries);
    await this.wal.truncateBefore(pos);
  }

  /** Bytes on disk: snapshot plus translog written since the last flush. */
  storeBytes(): number {
    return this.snapBytes + this.shard.translogBytes;
  }

  async close(): Promise<void> {
    await this.flushing;
    await this.wal.close();
  }

  /** Closes and deletes the shard's files (index deletion). */
  async destroy(): Promise<void> {
    await this.close();
    await rm(this.dir, { recursive: true, force: true });
  }
}
