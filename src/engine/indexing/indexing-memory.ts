/**
 * The indexing buffer budget of one shard worker (Elasticsearch's `indices.memory.index_buffer_size` and its
 * IndexingMemoryController): the shards of the worker report how many bytes their buffers and in-memory
 * segments hold; when the total passes the budget, the shard holding the most writes its in-memory segments
 * to disk. Memory for indexing stays bounded however many documents the shards receive.
 */

export interface BufferedShard {
  /** Bytes held by the indexing buffer and the in-memory segments. */
  memoryBytes(): number;
  /** Writes the in-memory segments to disk (at most one write-out per shard at a time). */
  writeOutMemory(): Promise<void>;
  readonly writingOut: boolean;
}

export class IndexingMemory {
  private readonly shards = new Set<BufferedShard>();

  constructor(public budgetBytes: number) {}

  register(s: BufferedShard): void { this.shards.add(s); }
  unregister(s: BufferedShard): void { this.shards.delete(s); }

  /** Total bytes the registered shards hold. */
  usedBytes(): number {
    let n = 0;
    for (const s of this.shards) n += s.memoryBytes();
    return n;
  }

  /** Starts a write-out of the largest shard when over budget (cheap enough to call every few hundred writes). */
  check(onError: (e: unknown) => void): void {
    if (this.usedBytes() <= this.budgetBytes) return;
    let largest: BufferedShard | null = null, most = -1;
    for (const s of this.shards) {
      if (s.writingOut) continue;
      const b = s.memoryBytes();
      if (b > most) { most = b; largest = s; }
    }
    largest?.writeOutMemory().catch(onError);
  }
}
