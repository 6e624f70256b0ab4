/**
 * The bounded cache of decoded segment data (term blocks, postings, doc-value columns, stored-field blocks):
 * what keeps hot parts of on-disk segments in memory without letting memory grow with the data. One cache per
 * shard worker, shared by all its segments; least recently used entries go first once the byte budget is
 * exceeded. Entries are immutable decoded values, so a caller may keep one after it was evicted (it is then
 * simply no longer counted).
 *
 * Stored-field blocks have a section of their own (STORED_SHARE of the budget): a search fetches its hits'
 * blocks at random across the shard, so in one shared LRU they would push out the postings and columns every
 * query reads again.
 */

export interface CacheStats { entries: number; bytes: number; budgetBytes: number; hits: number; misses: number; evictions: number }

interface Entry { value: unknown; bytes: number }

const STORED_SHARE = 1 / 8;

/** One least-recently-used map with a byte budget. */
class Lru {
  private readonly map = new Map<string, Entry>();
  bytes = 0;
  hits = 0;
  misses = 0;
  evictions = 0;

  constructor(public budgetBytes: number) {}

  get size(): number { return this.map.size; }

  get<T>(key: string, load: () => { value: T; bytes: number }): T {
    const e = this.map.get(key);
    if (e !== undefined) {
      this.hits++;
      // Re-insertion moves the key to the young end of the Map's insertion order.
      this.map.delete(key);
      this.map.set(key, e);
      return e.value as T;
    }
    this.misses++;
    const loaded = load();
    // A value larger than the whole budget is returned uncached rather than flushing everything else.
    if (loaded.bytes <= this.budgetBytes) {
      this.map.set(key, { value: loaded.value, bytes: loaded.bytes });
      this.bytes += loaded.bytes;
      this.evict();
    }
    return loaded.value;
  }

  evict(): void {
    if (this.bytes <= this.budgetBytes) return;
    for (const [k, old] of this.map) {
      if (this.bytes <= this.budgetBytes) break;
      this.map.delete(k);
      this.bytes -= old.bytes;
      this.evictions++;
    }
  }

  dropPrefix(prefix: string): void {
    for (const [k, e] of this.map) {
      if (!k.startsWith(prefix)) continue;
      this.map.delete(k);
      this.bytes -= e.bytes;
    }
  }

  clear(): void {
    this.map.clear();
    this.bytes = 0;
  }
}

export class BlockCache {
  private readonly main: Lru;
  private readonly storedBlocks: Lru;

  constructor(private budgetBytes: number) {
    this.main = new Lru(0);
    this.storedBlocks = new Lru(0);
    this.setBudget(budgetBytes);
  }

  /** The cached value for `key`, or `load()`'s (cached with its reported size). */
  get<T>(key: string, load: () => { value: T; bytes: number }): T {
    return this.main.get(key, load);
  }

  /** As `get`, for stored-field blocks (their own section of the budget). */
  getStored<T>(key: string, load: () => { value: T; bytes: number }): T {
    return this.storedBlocks.get(key, load);
  }

  /** Drops every entry whose key starts with `prefix` (a closed segment's). */
  dropPrefix(prefix: string): void {
    this.main.dropPrefix(prefix);
    this.storedBlocks.dropPrefix(prefix);
  }

  /** Drops every entry (`_cache/clear`). */
  clear(): void {
    this.main.clear();
    this.storedBlocks.clear();
  }

  setBudget(budgetBytes: number): void {
    this.budgetBytes = budgetBytes;
    this.storedBlocks.budgetBytes = Math.floor(budgetBytes * STORED_SHARE);
    this.main.budgetBytes = budgetBytes - this.storedBlocks.budgetBytes;
    this.main.evict();
    this.storedBlocks.evict();
  }

  stats(): CacheStats {
    const a = this.main, b = this.storedBlocks;
    return {
      entries: a.size + b.size, bytes: a.bytes + b.bytes, budgetBytes: this.budgetBytes,
      hits: a.hits + b.hits, misses: a.misses + b.misses, evictions: a.evictions + b.evictions,
    };
  }
}
