/**
 * Worker adapters of the search API: the per-shard query+fetch phase, the dfs statistics phase, scroll
 * pages over a held reader, and `_analyze`. Installs the search index factory into the document shards.
 */
import type { SearchArgs, ShardCall, Stale, TaskSubset, WorkerInit } from './protocol.ts';
import { docsTasks, getDocShard } from './docs-tasks.ts';
import {
  analyzeRequest, collectDfs, fetchPhase, GlobalStats, ScrollStore, searchShard,
  type DfsStats, type IndexReader, type MappingJson, type SearchRequest, type ShardResult, type ShardSearchOptions,
} from '../engine/search/index.ts';
import type { ShardIndex } from '../engine/indexing/index.ts';


/** Query-phase readers awaiting their fetch phase (freed by the fetch, or after a minute). */
const pendingFetch = new Map<string, { reader: IndexReader; req: SearchRequest; opts: ShardSearchOptions; timer: NodeJS.Timeout }>();

const scrolls = new ScrollStore();

function releaseFetch(key: string): void {
  const p = pendingFetch.get(key);
  if (!p) return;
  pendingFetch.delete(key);
  clearTimeout(p.timer);
  p.reader.release();
}

/** Opens the shard through the documents tasks (they own opening with metadata); null when stale. */
async function open(c: ShardCall, init: WorkerInit): Promise<{ index: ShardIndex; mapping: MappingJson } | null> {
  let s = getDocShard(c.uuid, c.shard);
  if (!s || c.meta) {
    const r = await docsTasks['docs.get']({ ...c, id: '' }, init) as { stale?: boolean };
    if (r?.stale) return null;
    s = getDocShard(c.uuid, c.shard);
  }
  if (!s) return null;
  return { index: s.shardIndex, mapping: s.mapping };
}

async function query(a: SearchArgs, init: WorkerInit): Promise<ShardResult | Stale> {
  const o = await open(a, init);
  if (!o) return { stale: true };
  const reader = o.index.reader(o.mapping);
  const opts = { index: a.index, type: a.type, boost: a.boost, nowMs: a.nowMs, filter: a.filter, shardCount: a.shardCount, stats: a.stats ? new GlobalStats(a.stats) : undefined };
  if (a.fetchKey) {
    const key = a.fetchKey;
    // The reader stays open (its segments with it) until the fetch phase or a minute passes.
    reader.acquire();
    const timer = setTimeout(() => releaseFetch(key), 60_000);
    timer.unref();
    pendingFetch.set(key, { reader, req: a.req, opts, timer });
    return searchShard(reader, a.req, { ...opts, noFetch: true });
  }
  if (!a.scroll) return searchShard(reader, a.req, opts);
  const all = searchShard(reader, a.req, { ...opts, topN: reader.maxDoc(), noFetch: true });
  reader.acquire();
  scrolls.put(a.scroll.key, { reader, hits: all.hits, req: a.req, index: a.index, nowMs: a.nowMs }, a.scroll.keepAliveMs);
  const page = scrolls.page(a.scroll.key, 0, a.req.size)!;
  return { ...all, hits: page };
}

async function dfs(a: SearchArgs, init: WorkerInit): Promise<DfsStats | Stale> {
  const o = await open(a, init);
  if (!o) return { stale: true };
  return collectDfs(o.index.reader(o.mapping), a.req, a.index, a.nowMs, a.filter);
}

export const searchTasks = {
  'search.query': query,
  'search.dfs': dfs,
  'search.scroll': (a) => {
    const hits = scrolls.page(a.key, a.offset, a.size, a.keepAliveMs);
    return hits ? { hits } : { missing: true as const };
  },
  'search.clearScroll': (a) => a.keys.map((k) => scrolls.delete(k)),
  'search.fetch': (a) => {
    const p = pendingFetch.get(a.key);
    if (!p) return { missing: true as const };
    try {
      return { hits: a.hits.length ? fetchPhase(p.reader, p.req, a.hits, p.opts) : [] };
    } finally {
      releaseFetch(a.key);
    }
  },
  'search.analyze': (a) => analyzeRequest(a),
} satisfies TaskSubset;
