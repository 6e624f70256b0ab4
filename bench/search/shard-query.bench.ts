/**
 * Query latency of one shard in the engine, without HTTP or workers: the four query kinds of
 * loadtest/documents-scale.ts (2-term AND, 2-term OR, terms + stats aggregations under a term filter,
 * bool + date range sorted by date), each with its fetch phase, on a shard index directory that the load test
 * kept (`documents-scale.ts N --keep DIR`, then `DIR/es/indices/<uuid>/<shard>/index`).
 *
 * The cache starts cold and the first WARMUP queries of a kind are not counted; words are drawn from the same
 * Zipf vocabulary (ranks 20–2,000) as the load test's searches, with another seed.
 *
 *   node --import tsx bench/search/shard-query.bench.ts SHARD_INDEX_DIR [queries per kind = 400]
 *
 * KIND=and|or|aggs|range runs one kind; CACHE_MB sets the block cache (default 96, a worker's share).
 * WARM_MIX=N first runs N queries of every kind in turn (the HTTP probe's warm-up: the cache then holds what the
 * mix keeps, not what one kind's first queries decode); BEST_OF=R runs each measured query R times and counts
 * its cheapest run (on a shared machine the other runs absorb the neighbours' noise; the figure is then a warm
 * processor cache's).
 *
 * Prints per kind: mean and median CPU µs (user + system, this process) of the query phase and of the fetch phase (stored fields of the shard's
 * top hits).
 */
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BlockCache, ShardIndex } from '../../src/engine/indexing/index.ts';
import { parseSearchBody } from '../../src/engine/search/search-request.ts';
import { fetchPhase, searchShard } from '../../src/engine/search/index.ts';
import { mulberry32 } from '../support/mulberry32.ts';
import { LOG_T0, logVocabulary } from '../../loadtest/support/log-docs.ts';

const src = process.argv[2];
if (!src) { console.error('usage: shard-query.bench.ts SHARD_INDEX_DIR [queries]'); process.exit(2); }
const PER_KIND = Number(process.argv[3] ?? 400);
const WARMUP = 50;
const WARM_MIX = Number(process.env.WARM_MIX ?? 0);
const BEST_OF = Math.max(1, Number(process.env.BEST_OF ?? 1));
const CACHE_BYTES = Number(process.env.CACHE_MB ?? 96) << 20;

// Open a copy: opening may replay or clean up files, and the kept directory stays reusable.
const dir = mkdtempSync(join(tmpdir(), 'shard-query-'));
cpSync(src, dir, { recursive: true });
const mapping = { properties: { title: { type: 'text' }, body: { type: 'text' }, level: { type: 'keyword' }, host: { type: 'keyword' }, bytes: { type: 'long' }, ts: { type: 'date' } } };
const cache = new BlockCache(CACHE_BYTES);
const index = ShardIndex.open({ dir, indexSettings: {}, cache, memory: null, autoMerge: false });
const reader = index.reader(mapping as never);

const { words } = logVocabulary();
const r = mulberry32(11);
const w = () => words[20 + Math.floor(r() * 1980)];
const kinds: Record<string, () => Record<string, unknown>> = {
  and: () => ({ query: { match: { body: { query: `${w()} ${w()}`, operator: 'and' } } } }),
  or: () => ({ query: { match: { body: `${w()} ${w()}` } } }),
  aggs: () => ({ size: 0, query: { term: { host: `host-${String(Math.floor(r() * 200)).padStart(3, '0')}` } }, aggs: { levels: { terms: { field: 'level' } }, bytes: { stats: { field: 'bytes' } } } }),
  range: () => {
    const from = LOG_T0 + Math.floor(r() * 29) * 86_400_000;
    return { query: { bool: { must: [{ match: { body: w() } }], filter: [{ range: { ts: { gte: new Date(from).toISOString(), lt: new Date(from + 86_400_000).toISOString() } } }] } }, sort: [{ ts: 'desc' }] };
  },
};

/** CPU time rather than wall time: on a shared machine, time spent descheduled is not the query's. */
function cpuUs(): number { const u = process.cpuUsage(); return u.user + u.system; }

function summary(xs: number[]): string {
  const s = [...xs].sort((a, b) => a - b);
  return `mean ${(s.reduce((a, b) => a + b, 0) / s.length).toFixed(0)} µs, median ${s[s.length >> 1].toFixed(0)} µs`;
}

console.log(`${reader.segments.length} segments, ${reader.maxDoc()} docs, cache ${CACHE_BYTES >> 20} MB`);
for (let i = 0; i < WARM_MIX; i++) {
  for (const make of Object.values(kinds)) {
    const req = parseSearchBody(make());
    fetchPhase(reader, req, searchShard(reader, req, { index: 'logs', nowMs: Date.now(), noFetch: true }).hits, { index: 'logs', nowMs: Date.now() });
  }
}
for (const [kind, make] of Object.entries(kinds)) {
  if (process.env.KIND && process.env.KIND !== kind) continue;
  const reqs = Array.from({ length: PER_KIND + WARMUP }, () => parseSearchBody(make()));
  const us: number[] = [];
  const fetchUs: number[] = [];
  for (let i = 0; i < reqs.length; i++) {
    let queryBest = Infinity, fetchBest = Infinity;
    for (let run = 0; run < BEST_OF; run++) {
      const t0 = cpuUs();
      const q = searchShard(reader, reqs[i], { index: 'logs', nowMs: Date.now(), noFetch: true });
      const t1 = cpuUs();
      fetchPhase(reader, reqs[i], q.hits, { index: 'logs', nowMs: Date.now() });
      const t2 = cpuUs();
      queryBest = Math.min(queryBest, t1 - t0);
      fetchBest = Math.min(fetchBest, t2 - t1);
    }
    if (i < WARMUP) continue;
    us.push(queryBest);
    fetchUs.push(fetchBest);
  }
  const c = cache.stats();
  console.log(`${kind.padEnd(6)} query ${summary(us)}; fetch ${summary(fetchUs)}; cache ${c.bytes >> 20} MB, ${c.hits} hits, ${c.misses} misses`);
}
await index.close();
rmSync(dir, { recursive: true, force: true });
