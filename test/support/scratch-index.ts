/**
 * A shard index in a temporary directory for in-process tests and benchmarks: versions and sequence numbers
 * are assigned here (the document shard's job in the server), sources are the documents' JSON.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlockCache, IndexingMemory, ShardIndex } from '../../src/engine/indexing/index.ts';
import type { MappingJson } from '../../src/engine/search/api.ts';

export interface ScratchOptions {
  /** Background merges (default off, so tests control segment counts). */
  autoMerge?: boolean;
  /** Indexing buffer budget in bytes (default: no budget, memory segments stay until a flush). */
  bufferBytes?: number;
  cacheBytes?: number;
  /** Called as each merge starts writing (`ShardIndexOptions.onMergeWriting`). */
  onMergeWriting?: () => void;
}

export class ScratchIndex {
  readonly dir: string;
  index: ShardIndex;
  private seqNo = 0;
  private readonly cache: BlockCache;
  private readonly memory: IndexingMemory | null;

  constructor(private readonly settings: Record<string, unknown> = {}, private readonly o: ScratchOptions = {}) {
    this.dir = mkdtempSync(join(tmpdir(), 'scratch-index-'));
    this.cache = new BlockCache(o.cacheBytes ?? 64 << 20);
    this.memory = o.bufferBytes ? new IndexingMemory(o.bufferBytes) : null;
    this.index = this.open();
  }

  private open(): ShardIndex {
    return ShardIndex.open({ dir: this.dir, indexSettings: this.settings, cache: this.cache, memory: this.memory, autoMerge: this.o.autoMerge ?? false, onMergeWriting: this.o.onMergeWriting });
  }

  /** Indexes `source` as `id` (replacing an earlier copy). */
  add(id: string, source: Record<string, unknown>, mapping: MappingJson, version = 1): void {
    const bytes = Buffer.from(JSON.stringify(source));
    this.index.index(id, source, bytes, null, { seqNo: this.seqNo++, version, primaryTerm: 1 }, mapping);
  }

  delete(id: string): boolean { return this.index.delete(id); }

  async flush(): Promise<void> {
    await this.index.flush({ translogSegment: 0, translogOffset: 0, maxSeqNo: this.seqNo - 1 });
  }

  /** Closes and reopens the index from its last commit (what a restart with an empty translog sees). */
  async restart(): Promise<void> {
    await this.index.close();
    this.index = this.open();
  }

  /** Commits, then restarts. */
  async reopen(): Promise<void> {
    await this.flush();
    await this.restart();
  }

  async close(): Promise<void> {
    await this.index.close();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
