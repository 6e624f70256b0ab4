/**
 * The bounded cache of decoded segment data (term blocks, postings, doc-value columns):
 * what keeps hot parts of on-disk segments in memory without letting memory grow with the data. One cache per
 * shard worker, shared by all its segments; least recently used entries go first once the byte budget is
 * exceeded. Entries are immutable decoded values, so a caller may keep one after it was evicted (it is then
 * simply no longer counted).
 *
 * Stored-field blocks are not cached (stored-fields-format.ts says why). Columns (doc values, norms) have a
 * section of their own (COLUMN_SHARE of the budget): there are few of them (fields ×
 * segments), nearly every sorted, filtered or aggregating query reads them, and one costs milliseconds to
 * decode again — while searches over varied words decode postings of ever new terms, which in a shared LRU
 * pushed the columns out (seen on 1M docs: a third of the aggregation and range queries' time went to
 * re-decoding columns).
 */

export interface CacheStats { entries: number; bytes: number; budgetBytes: number; hits: number; misses: number; evictions: number }

/**
 * One reader's key space in the cache (a segment's term dictionary, postings, columns): its
 * entries by numeric key, dropped together when the segment closes. Keys were strings (a segment prefix and a
 * block or term number) concatenated and hashed anew at every lookup: 4–8% of a search's CPU on a shard.
 */
export class CacheOwner {
  /** The owner's cached entries by key: one key space across the sections. */
  readonly entries = new Map<number, Entry>();
}

/** A cached value, linked in its section's recency list (oldest at `head`). */
interface Entry { owner: CacheOwner; key: number; section: Lru; value: unknown; bytes: number; older: Entry | null; newer: Entry | null }

const COLUMN_SHARE = 1 / 4;

/**
 * One least-recently-used section with a byte budget: entries found through their owner's map, recency kept in
 * a doubly linked list, so a hit and an eviction each cost a few pointer updates. (Ordering by a Map's own
 * insertion order cost a delete and a set per hit, and each eviction walked from the front past every hole
 * earlier deletions left there until V8 rehashed the table: 45–120 µs per cache miss at 10,000–40,000 entries.)
 */
class Lru {
  private head: Entry | null = null;
  private tail: Entry | null = null;
  size = 0;
  bytes = 0;
  hits = 0;
  misses = 0;
  evictions = 0;

  constructor(public budgetBytes: number) {}

  get<T>(owner: CacheOwner, key: number, load: () => { value: T; bytes: number }): T {
    const e = owner.entries.get(key);
    if (e !== undefined) {
      this.hits++;
      if (e !== this.tail) { this.unlink(e); this.append(e); }
      return e.value as T;
    }
    this.misses++;
    const loaded = load();
    // A value larger than the whole budget is returned uncached rather than flushing everything else.
    if (loaded.bytes <= this.budgetBytes) {
      const n: Entry = { owner, key, section: this, value: loaded.value, bytes: loaded.bytes, older: null, newer: null };
      owner.entries.set(key, n);
      this.append(n);
      this.size++;
      this.bytes += loaded.bytes;
      this.evict();
    }
    return loaded.value;
  }

  evict(): void {
    while (this.bytes > this.budgetBytes && this.head !== null) {
      this.remove(this.head);
      this.evictions++;
    }
  }

  clear(): void {
    for (let e = this.head; e !== null; e = e.newer) e.owner.entries.delete(e.key);
    this.head = this.tail = null;
    this.size = 0;
    this.bytes = 0;
  }

  remove(e: Entry): void {
    this.forget(e);
    e.owner.entries.delete(e.key);
  }

  /** Takes `e` out of this section without touching its owner's map (the caller clears that). */
  forget(e: Entry): void {
    this.unlink(e);
    this.size--;
    this.bytes -= e.bytes;
  }

  private unlink(e: Entry): void {
    if (e.older !== null) e.older.newer = e.newer; else this.head = e.newer;
    if (e.newer !== null) e.newer.older = e.older; else this.tail = e.older;
    e.older = e.newer = null;
  }

  private append(e: Entry): void {
    e.older = this.tail;
    if (this.tail !== null) this.tail.newer = e; else this.head = e;
    this.tail = e;
  }
}

export class BlockCache {
  private readonly main = new Lru(0);
  private readonly columns = new Lru(0);
  private readonly sections = [this.main, this.columns];

  constructor(private budgetBytes: number) {
    this.setBudget(budgetBytes);
  }

  /** The cached value of `owner`'s `key`, or `load()`'s (cached with its reported size): postings and term blocks. */
  get<T>(owner: CacheOwner, key: number, load: () => { value: T; bytes: number }): T {
    return this.main.get(owner, key, load);
  }

  /** As `get`, for whole-segment columns (doc values, norms): their own section of the budget. */
  getColumn<T>(owner: CacheOwner, key: number, load: () => { value: T; bytes: number }): T {
    return this.columns.get(owner, key, load);
  }

  /** Drops every entry of `owner` (a closed segment's reader). */
  drop(owner: CacheOwner): void {
    for (const e of owner.entries.values()) e.section.forget(e);
    owner.entries.clear();
  }

  /** Drops every entry (`_cache/clear`). */
  clear(): void {
    for (const l of this.sections) l.clear();
  }

  setBudget(budgetBytes: number): void {
    this.budgetBytes = budgetBytes;
    this.columns.budgetBytes = Math.floor(budgetBytes * COLUMN_SHARE);
    this.main.budgetBytes = budgetBytes - this.columns.budgetBytes;
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
