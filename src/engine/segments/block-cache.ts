/**
 * The bounded cache of decoded segment data (term blocks, postings, doc-value columns, stored-field blocks):
 * what keeps hot parts of on-disk segments in memory without letting memory grow with the data. One cache per
 * shard worker, shared by all its segments; least recently used entries go first once the byte budget is
 * exceeded. Entries are immutable decoded values, so a caller may keep one after it was evicted (it is then
 * simply no longer counted).
 */

export interface CacheStats { entries: number; bytes: number; budgetBytes: number; hits: number; misses: number; evictions: number }

interface Entry { value: unknown; bytes: number }

export class BlockCache {
  private readonly map = new Map<string, Entry>();
  private bytes = 0;
  private hits = 0;
  private misses = 0;
  private evictions = 0;

  constructor(private budgetBytes: number) {}

  /** The cached value for `key`, or `load()`'s (cached with its reported size). */
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
    this.put(key, loaded.value, loaded.bytes);
    return loaded.value;
  }

  private put(key: string, value: unknown, bytes: number): void {
    // A value larger than the whole budget is returned uncached rather than flushing everything else.
    if (bytes > this.budgetBytes) return;
    this.map.set(key, { value, bytes });
    this.bytes += bytes;
    this.evict();
  }

  private evict(): void {
    if (this.bytes <= this.budgetBytes) return;
    for (const [k, old] of this.map) {
      if (this.bytes <= this.budgetBytes) break;
      this.map.delete(k);
      this.bytes -= old.bytes;
      this.evictions++;
    }
  }

  /** Drops every entry whose key starts with `prefix` (a closed segment's). */
  dropPrefix(prefix: string): void {
    for (const [k, e] of this.map) {
      if (!k.startsWith(prefix)) continue;
      this.map.delete(k);
      this.bytes -= e.bytes;
    }
  }

  /** Drops every entry (`_cache/clear`). */
  clear(): void {
    this.map.clear();
    this.bytes = 0;
  }

  setBudget(budgetBytes: number): void {
    this.budgetBytes = budgetBytes;
    this.evict();
  }

  stats(): CacheStats {
    return { entries: this.map.size, bytes: this.bytes, budgetBytes: this.budgetBytes, hits: this.hits, misses: this.misses, evictions: this.evictions };
  }
}
