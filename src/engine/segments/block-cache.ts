/**
 * The bounded cache of decoded segment data (term blocks, postings, doc-value columns, stored-field blocks):
 * what keeps hot parts of on-disk segments in memory without letting memory grow with the data. One cache per
 * shard worker, shared by all its segments; least recently used entries go first once the byte budget is
 * exceeded (approximately: a hit in the youngest quarter does not reorder). Entries are immutable decoded values, so a caller may keep one after it was evicted (it is then
 * simply no longer counted).
 *
 * Stored-field blocks have a section of their own (STORED_SHARE of the budget): a search fetches its hits'
 * blocks at random across the shard, so in one shared LRU they would push out the postings and columns every
 * query reads again. Columns (doc values, norms) have one too (COLUMN_SHARE): there are few of them (fields ×
 * segments), nearly every sorted, filtered or aggregating query reads them, and one costs milliseconds to
 * decode again — while searches over varied words decode postings of ever new terms, which in a shared LRU
 * pushed the columns out (seen on 1M docs: a third of the aggregation and range queries' time went to
 * re-decoding columns).
 */

export interface CacheStats { entries: number; bytes: number; budgetBytes: number; hits: number; misses: number; evictions: number }

interface Entry { value: unknown; bytes: number; tick: number }

const STORED_SHARE = 1 / 8;
const COLUMN_SHARE = 1 / 4;

/** One least-recently-used map with a byte budget. */
class Lru {
  private readonly map = new Map<string, Entry>();
  /** Counts insertions and promotions: the Map's order is entries' tick order. */
  private tick = 0;
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
      // Re-insertion moves the key to the young end of the Map's insertion order — only for an entry out of
      // the youngest quarter, which is far from eviction anyway: a delete and set on every hit left the Map
      // full of deleted slots, and its rehashes (a new table, fresh pages) were a visible part of searches.
      if (this.tick - e.tick > this.map.size >> 2) {
        this.map.delete(key);
        e.tick = ++this.tick;
        this.map.set(key, e);
      }
      return e.value as T;
    }
    this.misses++;
    const loaded = load();
    // A value larger than the whole budget is returned uncached rather than flushing everything else.
    if (loaded.bytes <= this.budgetBytes) {
      this.map.set(key, { value: loaded.value, bytes: loaded.bytes, tick: ++this.tick });
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
  private readonly main = new Lru(0);
  private readonly columns = new Lru(0);
  private readonly storedBlocks = new Lru(0);
  private readonly sections = [this.main, this.columns, this.storedBlocks];

  constructor(private budgetBytes: number) {
    this.setBudget(budgetBytes);
  }

  /** The cached value for `key`, or `load()`'s (cached with its reported size): postings and term blocks. */
  get<T>(key: string, load: () => { value: T; bytes: number }): T {
    return this.main.get(key, load);
  }

  /** As `get`, for whole-segment columns (doc values, norms): their own section of the budget. */
  getColumn<T>(key: string, load: () => { value: T; bytes: number }): T {
    return this.columns.get(key, load);
  }

  /** As `get`, for stored-field blocks (their own section of the budget). */
  getStored<T>(key: string, load: () => { value: T; bytes: number }): T {
    return this.storedBlocks.get(key, load);
  }

  /** Drops every entry whose key starts with `prefix` (a closed segment's). */
  dropPrefix(prefix: string): void {
    for (const l of this.sections) l.dropPrefix(prefix);
  }

  /** Drops every entry (`_cache/clear`). */
  clear(): void {
    for (const l of this.sections) l.clear();
  }

  setBudget(budgetBytes: number): void {
    this.budgetBytes = budgetBytes;
    this.storedBlocks.budgetBytes = Math.floor(budgetBytes * STORED_SHARE);
    this.columns.budgetBytes = Math.floor(budgetBytes * COLUMN_SHARE);
    this.main.budgetBytes = budgetBytes - this.storedBlocks.budgetBytes - this.columns.budgetBytes;
    for (const l of this.sections) l.evict();
  }

  stats(): CacheStats {
    const out: CacheStats = { entries: 0, bytes: 0, budgetBytes: this.budgetBytes, hits: 0, misses: 0, evictions: 0 };
    for (const l of this.sections) {
      out.entries += l.size; out.bytes += l.bytes; out.hits += l.hits; out.misses += l.misses; out.evictions += l.evictions;
    }
    return out;
  }
}
