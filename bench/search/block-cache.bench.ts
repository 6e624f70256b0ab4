/**
 * The segment block cache (src/engine/segments/block-cache.ts) on a miss that evicts, and on a hit, with the
 * cache full of 10,000 and of 40,000 entries (4 KiB each, as decoded postings of a few hundred docs).
 *
 * Baseline in the same run: the cache's previous recency scheme, kept here only for the comparison — the Map's
 * own insertion order (a delete and a set per hit, evictions iterating from the Map's front). V8's ordered
 * Map leaves a hole per deleted entry until it rehashes, and an iteration from the front steps over all of
 * them, so each eviction cost grew with the holes earlier evictions left.
 *
 * Run: node --import tsx bench/search/block-cache.bench.ts [--quick]   (about 15 s)
 */
import { Bench } from 'tinybench';
import { BlockCache, CacheOwner } from '../../src/engine/segments/block-cache.ts';

const quick = process.argv.includes('--quick');
const ENTRY = 4096;

/** The previous scheme: recency as the Map's insertion order. */
class MapOrderLru {
  private readonly map = new Map<string, { value: unknown; bytes: number }>();
  private bytes = 0;
  constructor(private readonly budget: number) {}
  get<T>(key: string, load: () => { value: T; bytes: number }): T {
    const e = this.map.get(key);
    if (e !== undefined) { this.map.delete(key); this.map.set(key, e); return e.value as T; }
    const l = load();
    this.map.set(key, l);
    this.bytes += l.bytes;
    if (this.bytes > this.budget) {
      for (const [k, old] of this.map) {
        if (this.bytes <= this.budget) break;
        this.map.delete(k);
        this.bytes -= old.bytes;
      }
    }
    return l.value;
  }
}

const load = () => ({ value: null, bytes: ENTRY });
const bench = new Bench({ time: quick ? 100 : 1000 });
for (const entries of [10_000, 40_000]) {
  // BlockCache's main section is 5/8 of its budget.
  const cache = new BlockCache(Math.round(entries * ENTRY * 8 / 5));
  const baseline = new MapOrderLru(entries * ENTRY);
  const owner = new CacheOwner();
  for (let i = 0; i < entries; i++) { cache.get(owner, i, load); baseline.get(`w${i}`, load); }
  const keys = Array.from({ length: 1 << 16 }, (_, i) => `k${i}`);
  let n = 0, h = 0;
  bench
    .add(`miss + eviction, ${entries} entries: block cache`, () => { cache.get(owner, entries + n++, load); })
    .add(`miss + eviction, ${entries} entries: Map-order LRU (before)`, () => { baseline.get(keys[n++ & 0xffff] + n, load); })
    .add(`hit, ${entries} entries: block cache`, () => { cache.get(owner, h++ % 64, load); })
    .add(`hit, ${entries} entries: Map-order LRU (before)`, () => { baseline.get(`w${h++ % 64}`, load); });
}
await bench.run();
console.table(bench.table());
